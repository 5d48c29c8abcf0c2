"""The sizing command: ``python -m modules.sizing --help``. A thin view over :mod:`modules.core`."""
