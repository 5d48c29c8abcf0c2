"""Reference material the tests read and the project does not ship (manifest.toml): pinned, sha256-checked.

``store`` finds or fetches a verified copy of an item (standard library only: ``scripts/fetch-reference.sh``
runs it before any virtual environment exists), ``charts`` checks and packages chart archives, ``resolve``
is the tests' side: the verified path, or a skip whose reason names the fetch command.
"""
