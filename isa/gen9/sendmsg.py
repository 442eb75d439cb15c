"""One-line descriptions of send messages, as iga64 -p=9 -d prints them after `//`.

Only the messages reconverge is likely to emit are described (data-port untyped/typed surface, untyped
atomics, scattered byte/dword, oword block, scratch, fences, constant cache, gateway barrier,
thread-spawner EOT); others print "?" where iga64 knows more (sampler, render target, URB, media).
Rules were learnt by sweeping descriptor bits through iga64 1.1.0; field meanings follow the Gen9 PRM
data-port message descriptors (msg type 17:14, scratch bit 18, mlen 28:25, rlen 24:20, header 19).
"""
from __future__ import annotations

from .fields import SFID_NAMES

_CH = "xyzw"
_OWORDS = {0: "x1", 1: "x1H", 2: "x2", 3: "x4", 4: "x8", 5: "x16"}


def _dc0(desc: int) -> str:
    if desc >> 18 & 1:
        rw = "write" if desc >> 17 & 1 else "read"
        return f"hword scratch block {rw} x{1 << (desc >> 12 & 3)}"
    mt = desc >> 14 & 0xF
    blocks = desc >> 10 & 3
    if mt in (0, 1, 8, 9):
        kind = {0: "oword block read", 1: "oword aligned block read", 8: "oword block write",
                9: "hword aligned block write"}[mt]
        return f"{kind} {_OWORDS.get(desc >> 8 & 7, 'x0')}"
    if mt in (3, 11):
        kind = "dword gathering read" if mt == 3 else "dword scattering write"
        return kind + ("", " x2", " x4", " x8")[blocks]
    if mt in (4, 12):
        kind = "byte gathering read" if mt == 4 else "byte scattering write"
        return kind + (" 8b", " 16b", " 32b", "")[blocks]
    if mt in (2, 10):
        return "oword dual block " + ("read" if mt == 2 else "write")
    if mt == 7:
        return _fence(desc)
    if mt in (5, 13):
        return "qword gathering read"     # iga64 1.1.0 names msg type 13 this way too
    return "?"


_L3_FLUSH = ((12, "r/w data"), (11, "constant data"), (10, "texture data"), (9, "instruction data"))


def _fence(desc: int) -> str:
    """Memory fence: BTI 254 is SLM, 0 is global memory (with optional cache flushes); bit 13 commits."""
    bti = desc & 0xFF
    if bti == 0xFE:
        core = "SLM fence"
    elif bti == 0:
        core = "global fence flushing"
        if desc >> 8 & 1:
            core += " L1"
        l3 = [name for bit, name in _L3_FLUSH if desc >> bit & 1]
        if len(l3) == len(_L3_FLUSH):
            core += " all L3 data"
        elif l3:
            core += " L3 " + ", ".join(l3)
    else:
        core = ""
    if desc >> 13 & 1:
        return "synchronized " + core          # iga64 keeps the space when nothing follows
    return core or "?"


_ATOMIC = ("64b integer compare and swap", "logical AND", "logical OR", "logical XOR", "store",
           "integer increment", "integer decrement", "integer add", "integer subtract",
           "commuted integer subtract", "signed-integer max", "signed-integer min", "unsigned-integer max",
           "unsigned-integer min", "integer compare and swap",
           "integer pre-decrement (returns pre-decrement value)")


def _dcro(desc: int) -> str:
    mt = desc >> 14 & 0xF
    if mt in (0, 1):
        kind = "constant oword block read" if mt == 0 else "constant aligned oword block read"
        return f"{kind} {_OWORDS.get(desc >> 8 & 7, 'x0')}"
    if mt == 3:
        return "constant dword gathering read"
    return "?"


def _dc1(desc: int) -> str:
    mt = desc >> 14 & 0x1F
    if mt in (0x11, 0x19):
        mask = desc >> 8 & 0xF
        chans = "".join(c for k, c in enumerate(_CH) if not mask >> k & 1)
        return f"a64 untyped surface {'read' if mt == 0x11 else 'write'} with {chans}"
    if mt in (0x10, 0x1A):
        verb = "gathering read" if mt == 0x10 else "scattering write"
        subtype, size = desc >> 8 & 3, desc >> 10 & 3
        if subtype in (1, 2):
            return f"a64 {('dword', 'qword')[subtype - 1]} {verb}"
        return f"a64 byte {verb}" + (" 8b", " 16b", " 32b", "")[size]
    if mt in (1, 9):
        mask = desc >> 8 & 0xF
        chans = "".join(c for k, c in enumerate(_CH) if not mask >> k & 1)
        return f"untyped surface {'read' if mt == 1 else 'write'} with {chans}"
    if mt == 2:
        return "untyped atomic int32 " + _ATOMIC[desc >> 8 & 0xF]
    if mt in (5, 13):
        mask = desc >> 8 & 0xF
        chans = "".join(c for k, c in enumerate(_CH) if not mask >> k & 1)
        group = " (high slot group)" if desc >> 12 & 3 == 2 else ""
        coords = ("u", "v", "r", "lod")[:desc >> 25 & 0xF] if desc >> 25 & 0xF <= 4 else ()
        tail = "; " + ",".join(coords) if coords else ""
        return f"typed surface {'read' if mt == 5 else 'write'}{group} with {chans}{tail}"
    return "?"


def describe(sfid: int, desc: int, ex_mlen: int = 0) -> str:
    mlen, rlen, header = desc >> 25 & 0xF, desc >> 20 & 0x1F, desc >> 19 & 1
    what = "?"
    if sfid == 0xA:
        what = _dc0(desc)
    elif sfid == 0xC:
        what = _dc1(desc)
    elif sfid == 0x9:
        what = _dcro(desc)
    elif sfid == 0x3:
        what = {0: "end of thread", 1: "signal event", 4: "signal barrier"}.get(desc & 7, "?")
    elif sfid == 0x7:
        what = "end of thread"      # iga64 names every spawner message this way
    return f"wr:{mlen}{'h' if header else ''}+{ex_mlen}, rd:{rlen}; {SFID_NAMES.get(sfid, '?')}; {what}"
