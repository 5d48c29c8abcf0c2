"""The CrossGuard policy pack: one policy per module, assembled in ``policies/__main__.py``.

Policies are importable without starting the pack (``PolicyPack`` serves forever); the list is
:data:`percona_mysql_k8s.policies._catalog.ALL_POLICIES`.
"""
