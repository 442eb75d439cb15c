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
    # The index is json.dumps({"kernels": [KERNEL, ...]}, sort_keys=True). Each KERNEL's text is made once,
    # in two parts around its offset ("name" < "offset" < "payload" < "simd" < "size": sort_keys' order), so
    # settling the offsets (which depend on the index's own length) is arithmetic on the offsets' digits, not
    # a dumps of the whole index per round (three rounds were 0.7% of a 400-kernel compile)
    befores = [json.dumps({"name": k.name})[:-1] + ', "offset": ' for k in kernels]
    afters = [", " + json.dumps({"payload": k.payload, "simd": k.simd, "size": len(k.code)}, sort_keys=True)[1:]
              for k in kernels]
    fixed = len('{"kernels": [') + len("]}") + 2 * max(len(kernels) - 1, 0) + \
        sum(map(len, befores)) + sum(map(len, afters))
    offsets = [0] * len(kernels)
    while True:                                   # offsets depend on the index's own length: settle them
        size = fixed + sum(len(str(o)) for o in offsets)
        pos = _aligned(16 + size)
        changed = False
        for i, k in enumerate(kernels):
            if offsets[i] != pos:
                offsets[i], changed = pos, True
            pos = _aligned(pos + len(k.code))
        if not changed:
            break
    head = ('{"kernels": [' + ", ".join(f"{b}{o}{a}" for b, o, a in zip(befores, offsets, afters)) + "]}").encode()
    out = bytearray(MAGIC + struct.pack("<II", VERSION, len(head)) + head)
    for offset, k in zip(offsets, kernels):
        out += bytes(offset - len(out))
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
