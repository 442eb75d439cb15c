"""Writing results without destroying anything.

- All or nothing: a regular file is written to a temporary file in the target's own directory and renamed
  over it, so a failed command never leaves a partial file; all the outputs of one command (single
  files, sets of files in a directory: run's results and its --trace, pass dumps and the output) are
  written aside first and renamed into place only once every one of them could be (write_all).
- Special files are written in place: `-o /dev/null` or a FIFO is opened and written, never replaced.
- A symlink given as the output is written through: its final target is replaced (keeping that file's
  permission bits), not the link.
- An output that is one of the command's inputs (the same file, also through symlinks and hard links) is
  refused: every writer takes its command's inputs (a required argument), so no command can forget.
- Names taken from the input (kernels, parameters) become file names only through `safe_file_name`,
  and every file lands inside the directory the user named.
- File-system errors are CompileErrors naming the path and the reason (exit 1), not internal errors.
- Binary data (control bytes other than whitespace and ESC, or bytes that are not UTF-8) is never written
  to standard output when that is a terminal, as clang and llc refuse: it is refused before anything is
  written (`-o -` into a pipe or a file is fine).
"""
from __future__ import annotations

import errno
import os
import stat
import sys
from collections.abc import Iterable, Mapping

from reconverge.lowering.errors import CompileError

# hashlib, shutil and tempfile are imported where used: every command imports this module, `reconverge
# --help` too (tests/test_startup.py), and most write to standard output.

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
        import hashlib
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


_TEXT_CONTROLS = b"\t\n\r\f\v\x1b"
_PRINTABLE = bytes(range(0x20, 0x100))


def is_binary(data: str | bytes) -> bool:
    """Whether `data` is not text a terminal can show."""
    if isinstance(data, str):
        return False
    if data.translate(None, _TEXT_CONTROLS).translate(None, _PRINTABLE):     # other control bytes: NUL, ...
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def _refuse_binary_to_terminal(data: str | bytes) -> None:
    try:
        terminal = sys.stdout.isatty()
    except (AttributeError, ValueError):
        terminal = False
    if terminal and is_binary(data):
        raise CompileError("not writing binary output to a terminal: name a file with -o FILE (or pipe -o - "
                           "into another program)")


def write_output(path: str | os.PathLike[str] | None, data: str | bytes, inputs: Iterable[str]) -> None:
    """Write `data` to `path` (stdout for None or '-'), never over one of `inputs` (every caller names
    its inputs: the one check that no command writes over what it reads)."""
    write_all({path: data}, inputs=inputs)


def write_all(outputs: Mapping[str | os.PathLike[str] | None, str | bytes],
              directories: dict[str, dict[str, bytes]] | None = None, *, inputs: Iterable[str]) -> None:
    """One command's outputs, all committed together or none: `outputs` maps a file (None or '-':
    stdout) to its data, `directories` a directory to the files to write into it (see write_files).
    Everything is first written to temporary files beside its target, every check made; only then are
    they renamed into place (and stdout written), so an output that cannot be written leaves none."""
    inputs = [i for i in inputs if i not in (None, "-")]
    staged: list[_Staged] = []
    stdout: list[str | bytes] = []
    try:
        for path, data in outputs.items():
            if path is None or os.fspath(path) == "-":
                _refuse_binary_to_terminal(data)
                stdout.append(data)
            else:
                staged.append(_stage_file(os.fspath(path), data if isinstance(data, bytes) else data.encode(),
                                          inputs))
        for directory, files in (directories or {}).items():
            staged.append(_stage_directory(directory, files, inputs))
        committed = []
        try:
            for item in staged:
                item.commit()
                committed.append(item)
        except BaseException:
            for item in committed:
                item.undo()
            raise
    finally:
        for item in staged:
            item.discard()
    for data in stdout:
        _write_stdout(data)


class _Staged:
    """An output written aside: commit() puts it in place, undo() takes a committed one away again,
    discard() removes whatever temporary files are left."""

    def commit(self) -> None:
        raise NotImplementedError

    def undo(self) -> None:
        pass

    def discard(self) -> None:
        pass


class _StagedFile(_Staged):
    def __init__(self, shown: str, target: str, tmp: str | None, payload: bytes):
        self.shown, self.target, self.tmp, self.payload = shown, target, tmp, payload

    def commit(self) -> None:
        if self.tmp is None:                        # a device or FIFO: written in place
            _write_in_place(self.shown, self.target, self.payload)
            return
        try:
            os.replace(self.tmp, self.target)
            self.tmp = None
        except OSError as exc:
            raise CompileError(f"{self.shown}: cannot write: {_reason(exc)}") from None

    def discard(self) -> None:
        if self.tmp is not None and os.path.lexists(self.tmp):
            os.unlink(self.tmp)


def _stage_file(shown: str, payload: bytes, inputs: list[str]) -> _StagedFile:
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
        return _StagedFile(shown, target, None, payload)
    directory = os.path.dirname(target)
    if not os.path.isdir(directory):
        raise CompileError(f"{shown}: cannot write: directory {os.path.dirname(os.path.abspath(shown))} "
                           f"does not exist")
    return _StagedFile(shown, target, _write_aside(shown, target, payload,
                                                   None if st is None else stat.S_IMODE(st.st_mode)), payload)


def _write_in_place(shown: str, target: str, payload: bytes) -> None:
    """Devices, FIFOs and sockets: open and write; replacing them would destroy the node."""
    try:
        with open(target, "wb") as f:
            f.write(payload)
    except OSError as exc:
        raise CompileError(f"{shown}: cannot write: {_reason(exc)}") from None


def _create_beside(target: str) -> tuple[int, str]:
    """A new file in `target`'s directory, opened for writing, under a name nobody else has: what
    tempfile.mkstemp(dir=..., prefix=".reconverge-") makes (O_EXCL and O_NOFOLLOW, mode 0600, an absolute
    path), without importing tempfile and the random module behind it (a few ms of every compile's
    start-up, issue 26)."""
    directory = os.path.dirname(target)
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        path = os.path.abspath(os.path.join(directory, ".reconverge-" + os.urandom(6).hex()))
        try:
            return os.open(path, flags, 0o600), path
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no unused temporary file name", directory)


def _write_aside(shown: str, target: str, payload: bytes, mode: int | None) -> str:
    """A temporary file beside `target` holding `payload`, with the mode the output will have."""
    tmp = None
    try:
        fd, tmp = _create_beside(target)
        with os.fdopen(fd, "wb") as f:
            f.write(payload)
        if mode is not None:
            os.chmod(tmp, mode)
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)          # as open() would have created it
        done, tmp = tmp, None
        return done
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


def write_files(directory: str, files: dict[str, bytes], inputs: Iterable[str]) -> list[str]:
    """Write every `files` entry into `directory`, all or none, and return the paths written. A name is
    a file name already made safe, or a relative path of such names ('a/b.txt': subdirectories are
    created). The directory is created if needed (and removed again on failure). Files already there are
    replaced, links included (the link, never what it points to: results stay inside `directory`), but
    not a file or link that is one of `inputs`; a subdirectory on the way must be a real directory."""
    write_all({}, {directory: files}, inputs=inputs)
    return [os.path.join(directory, name) for name in files]


class _StagedDirectory(_Staged):
    def __init__(self, directory: str, root: str, created: bool, tmp: str, names: list[str]):
        self.directory, self.root, self.created, self.tmp, self.names = directory, root, created, tmp, names
        self.moved: list[str] = []
        self.made: list[str] = []                   # subdirectories created, outermost first
        self.committed = False

    def commit(self) -> None:
        try:
            for name in self.names:
                target = os.path.join(self.root, name)
                self._make_parents(os.path.dirname(name))
                os.replace(os.path.join(self.tmp, name), target)
                self.moved.append(target)
            self.committed = True
        except OSError as exc:
            self.undo()
            raise CompileError(f"{self.directory}: cannot write the results ({_reason(exc)})") from None

    def _make_parents(self, relative: str) -> None:
        path = self.root
        for part in relative.split("/") if relative else ():
            path = os.path.join(path, part)
            if not os.path.lexists(path):
                os.mkdir(path)
                self.made.append(path)

    def undo(self) -> None:
        import shutil
        for path in self.moved:
            if os.path.lexists(path):
                os.unlink(path)
        for path in reversed(self.made):
            shutil.rmtree(path, ignore_errors=True)
        self.moved, self.made, self.committed = [], [], False
        if self.created:
            shutil.rmtree(self.directory, ignore_errors=True)

    def discard(self) -> None:
        import shutil
        shutil.rmtree(self.tmp, ignore_errors=True)
        if self.created and not self.committed:
            shutil.rmtree(self.directory, ignore_errors=True)


def _stage_directory(directory: str, files: dict[str, bytes], inputs: list[str]) -> _StagedDirectory:
    import shutil
    import tempfile
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
    staged = _StagedDirectory(directory, root, created, tmp, list(files))
    try:
        for name in files:
            _check_result_name(directory, root, name, inputs)
        for name, data in files.items():
            os.makedirs(os.path.join(tmp, os.path.dirname(name)), exist_ok=True)
            with open(os.path.join(tmp, name), "wb") as f:
                f.write(data)
    except BaseException as exc:
        staged.discard()
        if isinstance(exc, OSError):
            raise CompileError(f"{directory}: cannot write the results ({_reason(exc)})") from None
        raise
    return staged


def _check_result_name(directory: str, root: str, name: str, inputs: list[str]) -> None:
    """A result's name: plain names joined by '/', staying inside `root` through real directories only,
    and not an input of the command."""
    parts = name.split("/")
    if any(p in ("", ".", "..") or p != os.path.basename(p) for p in parts):
        raise CompileError(f"{directory}: refusing to write '{name}': not a plain file name")
    for depth in range(1, len(parts)):
        path = os.path.join(root, *parts[:depth])
        if os.path.lexists(path) and (os.path.islink(path) or not os.path.isdir(path)):
            raise CompileError(f"{os.path.join(directory, *parts)}: refusing to write through "
                               f"{os.path.join(directory, *parts[:depth])}: not a directory")
    target = os.path.join(root, *parts)
    if os.path.commonpath([root, os.path.abspath(target)]) != root:
        raise CompileError(f"{directory}: refusing to write '{name}' outside the directory")
    if os.path.exists(target):                      # a link is replaced, but not one naming an input
        source = _same_as_an_input(target, inputs)
        if source is not None:
            raise CompileError(f"{os.path.join(directory, *parts)}: refusing to write a result over "
                               f"the input {source}")
