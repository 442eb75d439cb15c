"""Writing results without destroying anything.

- All or nothing: a regular file is written to a temporary file in the target's own directory and renamed
  over it, so a failed command never leaves a partial file; a set of files in one directory (run's
  results, pass dumps) is written the same way, and removed again if any of them fails.
- Special files are written in place: `-o /dev/null` or a FIFO is opened and written, never replaced.
- A symlink given as the output is written through: its final target is replaced (keeping that file's
  permission bits), not the link.
- An output that is one of the command's inputs (the same file, also through links) is refused.
- Names taken from the input (kernels, parameters) become file names only through `safe_file_name`,
  and every file lands inside the directory the user named.
- File-system errors are CompileErrors naming the path and the reason (exit 1), not internal errors.
"""
from __future__ import annotations

import errno
import hashlib
import os
import shutil
import stat
import sys
import tempfile
from collections.abc import Iterable

from lowering.errors import CompileError

_SAFE = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.")
MAX_NAME_BYTES = 200


def safe_file_name(name: str) -> str:
    """A file-name component for an input-chosen name, distinct names giving distinct results.

    Bytes of [A-Za-z0-9_.-] are kept and every other UTF-8 byte becomes %XX, so '/', '\\', NUL and '%'
    itself cannot survive; a leading '.' becomes %2E (no hidden files, no '.' or '..'); the empty name is
    '%'. Names longer than MAX_NAME_BYTES keep a prefix plus '~' and 16 hex digits of their SHA-256."""
    raw = name.encode("utf-8", "surrogatepass")
    out = "".join(chr(b) if b in _SAFE and not (i == 0 and b == ord(".")) else f"%{b:02X}"
                  for i, b in enumerate(raw)) or "%"
    if len(out) > MAX_NAME_BYTES:
        out = out[:MAX_NAME_BYTES - 17] + "~" + hashlib.sha256(raw).hexdigest()[:16]
    return out


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


def _same_as_an_input(path: str, inputs: Iterable[str]) -> str | None:
    for source in inputs:
        if source in (None, "-"):
            continue
        try:
            if os.path.samefile(path, source):
                return source
        except OSError:
            continue
    return None


def _write_stdout(data: str | bytes) -> None:
    try:
        if isinstance(data, bytes):
            sys.stdout.buffer.write(data)
        else:
            sys.stdout.write(data)
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:
        _silence_stdout()
        raise CompileError(f"<stdout>: cannot write: {_reason(exc)}") from None


def _silence_stdout() -> None:
    """After a failed write to stdout, point it at /dev/null so the interpreter's final flush of what
    is still buffered cannot print a second, multi-line error."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


def write_output(path: str | os.PathLike | None, data: str | bytes, inputs: Iterable[str] = ()) -> None:
    """Write `data` to `path` (stdout for None or '-'), never over one of `inputs`."""
    if path is None or os.fspath(path) == "-":
        _write_stdout(data)
        return
    shown = os.fspath(path)
    payload = data if isinstance(data, bytes) else data.encode()
    target = os.path.realpath(shown)              # through symlinks: the file the link names
    source = _same_as_an_input(target, inputs)
    if source is not None:
        raise CompileError(f"{shown}: refusing to write the output over the input {source}")
    try:
        st = os.stat(target)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise CompileError(f"{shown}: cannot write: {_reason(exc)}") from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise CompileError(f"{shown}: cannot write: {os.strerror(errno.EISDIR)}")
    if st is not None and not stat.S_ISREG(st.st_mode):
        _write_in_place(shown, target, payload)
        return
    directory = os.path.dirname(target)
    if not os.path.isdir(directory):
        raise CompileError(f"{shown}: cannot write: directory {os.path.dirname(os.path.abspath(shown))} "
                           f"does not exist")
    _replace_atomically(shown, target, payload, None if st is None else stat.S_IMODE(st.st_mode))


def _write_in_place(shown: str, target: str, payload: bytes) -> None:
    """Devices, FIFOs and sockets: open and write; replacing them would destroy the node."""
    try:
        with open(target, "wb") as f:
            f.write(payload)
    except OSError as exc:
        raise CompileError(f"{shown}: cannot write: {_reason(exc)}") from None


def _replace_atomically(shown: str, target: str, payload: bytes, mode: int | None) -> None:
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(target), prefix=".reconverge-")
        with os.fdopen(fd, "wb") as f:
            f.write(payload)
        if mode is not None:
            os.chmod(tmp, mode)
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)          # as open() would have created it
        os.replace(tmp, target)
        tmp = None
    except OSError as exc:
        raise CompileError(f"{shown}: cannot write: {_reason(exc)}") from None
    finally:
        if tmp is not None and os.path.lexists(tmp):
            os.unlink(tmp)


def check_names_distinct(names: Iterable[tuple[str, str]], what: str) -> dict[str, str]:
    """original name -> safe file name, refusing two originals that would share a file."""
    files: dict[str, str] = {}
    owner: dict[str, str] = {}
    for name, suffix in names:
        file = safe_file_name(name) + suffix
        if file in owner and owner[file] != name:
            raise CompileError(f"{what} '{owner[file]}' and '{name}' would both be written to {file}")
        owner[file] = name
        files[name] = file
    return files


def write_files(directory: str, files: dict[str, bytes], inputs: Iterable[str] = ()) -> list[str]:
    """Write every `files` entry (a file name, already made safe, -> contents) into `directory`, all or
    none. The directory is created if needed (and removed again on failure). Files already there are
    replaced, links included (the link, never what it points to: results stay inside `directory`)."""
    if os.path.lexists(directory) and not os.path.isdir(directory):
        raise CompileError(f"{directory}: cannot write the results: {os.strerror(errno.ENOTDIR)}")
    created = not os.path.exists(directory)
    try:
        os.makedirs(directory, exist_ok=True)
        root = os.path.realpath(directory)
        tmp = tempfile.mkdtemp(dir=root, prefix=".reconverge-")
    except OSError as exc:
        if created:
            shutil.rmtree(directory, ignore_errors=True)
        raise CompileError(f"{directory}: cannot create the output directory ({_reason(exc)})") from None
    moved: list[str] = []
    ok = False
    try:
        for name in files:
            if name != os.path.basename(name) or name in ("", ".", ".."):
                raise CompileError(f"{directory}: refusing to write '{name}': not a plain file name")
            target = os.path.join(root, name)
            if os.path.commonpath([root, os.path.abspath(target)]) != root:
                raise CompileError(f"{directory}: refusing to write '{name}' outside the directory")
            if os.path.exists(target) and not os.path.islink(target):
                source = _same_as_an_input(target, inputs)
                if source is not None:
                    raise CompileError(f"{os.path.join(directory, name)}: refusing to write a result over "
                                       f"the input {source}")
        for name, data in files.items():
            with open(os.path.join(tmp, name), "wb") as f:
                f.write(data)
        for name in files:
            target = os.path.join(root, name)
            os.replace(os.path.join(tmp, name), target)
            moved.append(target)
        ok = True
    except OSError as exc:
        raise CompileError(f"{directory}: cannot write the results ({_reason(exc)})") from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        if not ok:
            for path in moved:
                os.unlink(path)
            if created:
                shutil.rmtree(directory, ignore_errors=True)
    return [os.path.join(directory, name) for name in files]
