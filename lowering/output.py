"""Writing results: all or nothing. A command that fails must not leave a partial output file behind,
so files are written to a temporary file beside the target and renamed over it."""
from __future__ import annotations

import os
import sys
import tempfile

from lowering.errors import CompileError


def write_output(path: str | os.PathLike | None, data: str | bytes) -> None:
    """Write `data` to `path` atomically, or to stdout for None or '-'."""
    if path is None or os.fspath(path) == "-":
        if isinstance(data, bytes):
            sys.stdout.buffer.write(data)
        else:
            sys.stdout.write(data)
        sys.stdout.flush()
        return
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise CompileError(f"{path}: cannot write: directory {directory} does not exist")
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".reconverge-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data if isinstance(data, bytes) else data.encode())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
