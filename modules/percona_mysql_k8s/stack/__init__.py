"""The stack program's configuration: every key read and validated before any resource exists."""
