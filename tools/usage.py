"""What every command module of the command line shares: the usage error (a bad flag or flag value:
exit 2), the exception a SIGTERM becomes (so that cleanup runs and `check` can still report), and the
types of a --timeout and a --subgroup-size value."""
from __future__ import annotations

# _signal: signal's C half. The signal module's start-up makes enums of every signal and handler name
# (0.5 ms), for the one handler a command sets; raise_on_sigterm's answer is the C half's too (an int or a
# function), which signal.signal takes back
import _signal

MAX_SECONDS = 1e7        # about 116 days: longer is no time limit at all, and past the timers' range


class UsageError(Exception):
    """Raised for a bad flag or flag value; tools/cli.py prints it as one line and exits 2."""


class Terminated(BaseException):
    """SIGTERM, raised in the main thread like KeyboardInterrupt is for SIGINT: `finally` blocks run
    (temporary files go, children are killed) and the command exits 143."""


def _raise_terminated(signum, frame):
    raise Terminated()


def raise_on_sigterm():
    """Make SIGTERM raise Terminated in the main thread; returns the previous handler (None when not
    called from the main thread, where handlers cannot be set)."""
    try:
        return _signal.signal(_signal.SIGTERM, _raise_terminated)
    except ValueError:
        return None


def seconds(text: str) -> float:
    """An argparse type: a time limit, a finite number of seconds > 0 and at most MAX_SECONDS."""
    # only the run command's parser, which has argparse loaded, calls it
    import argparse
    import math
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a number of seconds") from None
    if not (math.isfinite(value) and 0 < value <= MAX_SECONDS):
        raise argparse.ArgumentTypeError(f"{text}: expected a number of seconds > 0 and at most {MAX_SECONDS:g}")
    return value


def subgroup_size(text: str) -> int:
    """An argparse type: --subgroup-size, lanes per sub-group, a power of two from 1 to 128."""
    import argparse
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 0 < value <= 128 or value & (value - 1):
        raise argparse.ArgumentTypeError(f"{text}: expected a power of two from 1 to 128")
    return value
