"""One-line descriptions of send messages, as iga64 -p=9 -d prints them after `//`.

Only the messages reconverge emits are described (data-port untyped surface, scattered byte/dword,
oword block, scratch, gateway barrier, thread-spawner EOT); others print "?" (iga64 knows more).
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
    if mt in (0, 1, 8):
        kind = {0: "oword block read", 1: "oword aligned block read", 8: "oword block write"}[mt]
        return f"{kind} {_OWORDS.get(desc >> 8 & 7, 'x0')}"
    if mt in (3, 11):
        kind = "dword gathering read" if mt == 3 else "dword scattering write"
        return kind + ("", " x2", " x4", " x8")[blocks]
    if mt in (4, 12):
        kind = "byte gathering read" if mt == 4 else "byte scattering write"
        return kind + (" 8b", " 16b", " 32b", "")[blocks]
    if mt in (2, 10):
        return "oword dual block " + ("read" if mt == 2 else "write")
    return "?"


def _dc1(desc: int) -> str:
    mt = desc >> 14 & 0xF
    if mt in (1, 9):
        mask = desc >> 8 & 0xF
        chans = "".join(c for k, c in enumerate(_CH) if not mask >> k & 1)
        return f"untyped surface {'read' if mt == 1 else 'write'} with {chans}"
    return "?"


def describe(sfid: int, desc: int, ex_mlen: int = 0) -> str:
    mlen, rlen, header = desc >> 25 & 0xF, desc >> 20 & 0x1F, desc >> 19 & 1
    what = "?"
    if sfid == 0xA:
        what = _dc0(desc)
    elif sfid == 0xC:
        what = _dc1(desc)
    elif sfid == 0x3 and desc & 7 == 4:
        what = "signal barrier"
    elif sfid == 0x7 and desc >> 4 & 1:
        what = "end of thread"
    return f"wr:{mlen}{'h' if header else ''}+{ex_mlen}, rd:{rlen}; {SFID_NAMES.get(sfid, '?')}; {what}"
