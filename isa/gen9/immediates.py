"""Immediate values as IGA writes and reads them.

Printing follows iga64's rules (facts from IGA's Frontend/Floats.cpp and checked with iga64 1.1.0):
signed integers in decimal, unsigned and packed vectors in 0x-hex; floats first as C++'s default
format ("%g"), then scientific ("%e"), each kept only if it reparses (as a double, narrowed to the type)
to the same bits, else raw hex; NaNs as [-]qnan(0xPAYLOAD)/snan(...); half floats go through float.
Parsing accepts the same spellings.
"""
from __future__ import annotations

import math
import re
import struct

from .model import DataType

_MANT = {"hf": 10, "f": 23, "df": 52}
_EXPB = {"hf": 5, "f": 8, "df": 11}
_INT_BITS = {"ud": 32, "d": 32, "uw": 16, "w": 16, "uq": 64, "q": 64, "v": 32, "uv": 32, "vf": 32,
             "ub": 8, "b": 8}


def _bits_to_float(raw: int, t: str) -> float:
    fmt = {"hf": "<e", "f": "<f", "df": "<d"}[t]
    return struct.unpack(fmt, raw.to_bytes(struct.calcsize(fmt), "little"))[0]


def _narrow(x: float, t: str) -> float | None:
    """(T)x for the float type t, as C would convert a double; inf on overflow."""
    if t == "df":
        return x
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        return math.inf if x > 0 else -math.inf


def _format_nan(raw: int, t: str) -> str:
    m, e = _MANT[t], _EXPB[t]
    sign = "-" if raw >> (m + e) & 1 else ""
    kind = "qnan" if raw >> (m - 1) & 1 else "snan"
    return f"{sign}{kind}(0x{raw & ((1 << (m - 1)) - 1):X})"


def _try_float_text(x: float, t: str) -> str | None:
    if math.isinf(x):
        return "-inf" if x < 0 else "inf"
    s = "%g" % x
    if _narrow(float(s), t) == x:
        if not any(c in s for c in ".eE"):
            s += ".0"
        return s
    s = "%e" % x
    if _narrow(float(s), t) == x:
        return s
    return None


def format_imm(raw: int, t: DataType) -> str:
    """Text of an immediate's value (without the :type suffix)."""
    tv = t.value
    if tv in ("f", "df", "hf"):
        raw &= (1 << {"hf": 16, "f": 32, "df": 64}[tv]) - 1
        x = _bits_to_float(raw, tv)
        if math.isnan(x):
            return _format_nan(raw, tv)
        text = _try_float_text(x, "f" if tv == "hf" else tv)
        return text if text is not None else f"0x{raw:X}"
    n = _INT_BITS[tv]
    raw &= (1 << n) - 1
    if tv in ("d", "w", "q", "b"):
        return str(raw - (1 << n) if raw >> (n - 1) else raw)
    return f"0x{raw:X}"


_NAN_RE = re.compile(r"^(-?)(qnan|snan)\((0x[0-9a-fA-F]+|\d+)\)$")


def parse_imm(text: str, t: DataType) -> int:
    """Raw bits of an immediate written `text` with type t; ValueError if malformed."""
    tv = t.value
    s = text.strip()
    if tv in ("f", "df", "hf"):
        m = _NAN_RE.match(s)
        if m:
            mb, eb = _MANT[tv], _EXPB[tv]
            payload = int(m.group(3), 0)
            if payload >> (mb - 1):
                raise ValueError("NaN payload too large")
            quiet = m.group(2) == "qnan"
            if not quiet and payload == 0:
                raise ValueError("snan needs a non-zero payload")
            raw = (((1 << eb) - 1) << mb) | (quiet << (mb - 1)) | payload
            return raw | (1 << (mb + eb)) if m.group(1) else raw
        if re.fullmatch(r"-?inf", s):
            x = -math.inf if s.startswith("-") else math.inf
        elif re.fullmatch(r"0[xX][0-9a-fA-F]+", s):
            return int(s, 16) & ((1 << {"hf": 16, "f": 32, "df": 64}[tv]) - 1)
        else:
            x = float(s)
        fmt = {"hf": "<e", "f": "<f", "df": "<d"}[tv]
        try:
            return int.from_bytes(struct.pack(fmt, x), "little")
        except OverflowError:
            return int.from_bytes(struct.pack(fmt, math.copysign(math.inf, x)), "little")
    n = _INT_BITS[tv]
    v = int(s, 0)
    if not -(1 << n) < v < (1 << n):
        raise ValueError(f"immediate {s} out of range for :{tv}")
    return v & ((1 << n) - 1)
