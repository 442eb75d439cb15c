"""The command line's usage error (a bad flag or flag value: exit 2), for every command module."""


class UsageError(Exception):
    """Raised for a bad flag or flag value; tools/cli.py prints it as one line and exits 2."""
