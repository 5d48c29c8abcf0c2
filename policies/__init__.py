"""The CrossGuard policy pack: one policy per module, assembled in ``policies/__main__.py``.

Policies are importable without starting the pack (``PolicyPack`` serves forever); the list is
:data:`policies._catalog.ALL_POLICIES`.
"""
