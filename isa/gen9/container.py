"""The kernel container: several Gen9 kernels in one file, each with what a launcher needs to run it.

Layout (version 1, all integers little-endian):

    offset 0   8 bytes   magic b"RCVGEN9\\0"
    offset 8   u32       format version (1)
    offset 12  u32       index size N in bytes
    offset 16  N bytes   the index: UTF-8 JSON {"kernels": [KERNEL, ...]}
    then                 each kernel's code at its offset, 64-byte aligned (Gen's kernel start alignment)

    KERNEL = {"name": str, "simd": 8|16|32, "offset": int (from the start of the file), "size": int (bytes),
              "payload": {...}}   # the thread payload layout the code expects (documented by the code
                                  # generator; carried through unread by this module)

A file that does not start with the magic is a bare kernel binary (what `asm` writes), so every command
that reads kernels takes both. The index is JSON so that other tools can read a container with nothing
but a JSON parser.
"""
from __future__ import annotations

import json
import struct

from reconverge.records import field, record

from .errors import IsaError

MAGIC = b"RCVGEN9\0"
VERSION = 1
ALIGN = 64


@record
class Kernel:
    name: str
    code: bytes
    simd: int = 16
    payload: dict = field(default_factory=dict)


def is_container(data: bytes) -> bool:
    return data[:8] == MAGIC


def pack_container(kernels: list[Kernel]) -> bytes:
    """The container file holding `kernels` in order."""
    names = [k.name for k in kernels]
    if len(set(names)) != len(names):
        raise IsaError("container: two kernels have the same name")
    index: list[dict] = [{"name": k.name, "simd": k.simd, "offset": 0, "size": len(k.code), "payload": k.payload}
                         for k in kernels]
    while True:                                   # offsets depend on the index's own length: settle them
        head = json.dumps({"kernels": index}, sort_keys=True).encode()
        pos = _aligned(16 + len(head))
        changed = False
        for entry, k in zip(index, kernels):
            if entry["offset"] != pos:
                entry["offset"], changed = pos, True
            pos = _aligned(pos + len(k.code))
        if not changed:
            break
    out = bytearray(MAGIC + struct.pack("<II", VERSION, len(head)) + head)
    for entry, k in zip(index, kernels):
        out += bytes(entry["offset"] - len(out))
        out += k.code
    return bytes(out)


def unpack_container(data: bytes) -> list[Kernel]:
    """The kernels of a container, or of a bare binary (one kernel named "kernel", SIMD unknown: 0)."""
    if not is_container(data):
        return [Kernel("kernel", bytes(data), 0)]
    if len(data) < 16:
        raise IsaError("container: truncated header")
    version, size = struct.unpack_from("<II", data, 8)
    if version != VERSION:
        raise IsaError(f"container: format version {version}, this reader knows {VERSION}")
    try:
        index = json.loads(data[16:16 + size].decode("utf-8"))["kernels"]
    except (UnicodeDecodeError, ValueError, KeyError, TypeError):
        raise IsaError("container: the index is not the JSON this format defines") from None
    kernels = []
    for entry in index:
        try:
            offset, length = int(entry["offset"]), int(entry["size"])
            name, simd, payload = str(entry["name"]), int(entry["simd"]), dict(entry.get("payload", {}))
        except (KeyError, TypeError, ValueError):
            raise IsaError("container: a kernel entry lacks name, simd, offset or size") from None
        if offset < 16 + size or offset + length > len(data):
            raise IsaError(f"container: kernel {name!r} lies outside the file")
        kernels.append(Kernel(name, bytes(data[offset:offset + length]), simd, payload))
    return kernels


def _aligned(n: int) -> int:
    return -(-n // ALIGN) * ALIGN
