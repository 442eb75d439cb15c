"""LLVM types and constants recovered from IR text, and their memory layout.

llvmlite hides alloca and GEP source types, constant-expression operands, switch case values and
global initializers; all of them are printed in the instruction text, so this module tokenizes that
text and parses types and typed constants. The layout engine reads the module's datalayout string so
that sizes, struct field offsets and initializer bytes are those LLVM itself would use.
"""
from __future__ import annotations

import re

from reconverge.lazy_regex import LazyModule
from reconverge.records import field, record

TYPE_CHECKING = False                   # not typing's: a compile's start-up does not import typing
if TYPE_CHECKING:
    import struct
    from typing import Any, Callable
else:
    struct = LazyModule("struct")           # float constants only: an extension module a compile rarely needs

# ----------------------------------------------------------------------------------------------
# types


@record(frozen=True)
class LType:
    """An LLVM type. kind: int, float, ptr, vec, arr, struct, void, label, token, other."""
    kind: str
    bits: int = 0                      # int/float width; ptr: address space
    count: int = 0                     # vec/arr element count
    elems: tuple = ()                  # vec/arr: (element,), struct: field types
    packed: bool = False
    name: str = ""                     # named structs, for messages

    @property
    def elem(self) -> "LType":
        return self.elems[0]

    @property
    def is_scalar(self) -> bool:
        return self.kind in ("int", "float", "ptr", "token")    # token: a convergence-control token

    def __str__(self) -> str:
        k = self.kind
        if k == "int":
            return f"i{self.bits}"
        if k == "float":
            return {16: "half", 32: "float", 64: "double"}.get(self.bits, f"f{self.bits}")
        if k == "ptr":
            return "ptr" if self.bits == 0 else f"ptr addrspace({self.bits})"
        if k == "vec":
            return f"<{self.count} x {self.elem}>"
        if k == "arr":
            return f"[{self.count} x {self.elem}]"
        if k == "struct":
            if self.name:
                return "%" + self.name
            body = "{ " + ", ".join(map(str, self.elems)) + " }"
            return f"<{body}>" if self.packed else body
        return k


def lint(bits: int) -> LType:
    return LType("int", bits)


VOID_T = LType("void")
I1_T, I8_T, I32_T, I64_T = lint(1), lint(8), lint(32), lint(64)


class TypeError_(ValueError):
    """Text that is not a type or constant this module understands."""


# ----------------------------------------------------------------------------------------------
# tokenizer

_TOKEN = re.compile(r"""
    (?P<ws>\s+|;[^\n]*)
  | (?P<str>c?"[^"]*")
  | (?P<local>%(?:"[^"]*"|[-\w.$]+))
  | (?P<glob>@(?:"[^"]*"|[-\w.$]+))
  | (?P<meta>![-\w.$]*)
  | (?P<hex>[su]?0x[KLMHR]?[0-9A-Fa-f]+)
  | (?P<num>[-+]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)
  | (?P<word>[A-Za-z_$.][-\w.$]*)
  | (?P<punct>[()\[\]{}<>,=*:])
""", re.VERBOSE)


def tokenize(text: str) -> list[str]:
    out = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise TypeError_(f"cannot tokenize {text[pos:pos + 20]!r}")
        pos = m.end()
        if m.lastgroup != "ws":
            out.append(m.group())
    return out


class Cursor:
    """A position in a token list, with the few look-ahead helpers the parsers need."""

    def __init__(self, text_or_tokens, resolve: Callable[[str], LType] | None = None):
        self.toks = tokenize(text_or_tokens) if isinstance(text_or_tokens, str) else text_or_tokens
        self.i = 0
        self.resolve = resolve   # named struct type -> LType

    def peek(self, k: int = 0) -> str:
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else ""

    def next(self) -> str:
        t = self.peek()
        if not t:
            raise TypeError_("unexpected end of text")
        self.i += 1
        return t

    def accept(self, tok: str) -> bool:
        if self.peek() == tok:
            self.i += 1
            return True
        return False

    def expect(self, tok: str) -> None:
        t = self.next()
        if t != tok:
            raise TypeError_(f"expected {tok!r}, found {t!r}")

    def at_end(self) -> bool:
        return self.i >= len(self.toks)


_FLOAT_NAMES = {"half": 16, "bfloat": 16, "float": 32, "double": 64}


def parse_type(cur: Cursor) -> LType:
    t = cur.next()
    if re.fullmatch(r"i\d+", t):
        ty = lint(int(t[1:]))
    elif t in _FLOAT_NAMES:
        if t == "bfloat":
            raise TypeError_("bfloat is not supported")
        ty = LType("float", _FLOAT_NAMES[t])
    elif t == "ptr":
        space = 0
        if cur.accept("addrspace"):
            cur.expect("(")
            space = int(cur.next())
            cur.expect(")")
        ty = LType("ptr", space)
    elif t == "void":
        ty = VOID_T
    elif t == "label":
        ty = LType("label")
    elif t == "token":
        ty = LType("token")
    elif t == "<":
        if cur.peek() == "{":
            cur.next()
            ty = _struct_body(cur, packed=True)
            cur.expect(">")
        else:
            if cur.peek() == "vscale":
                raise TypeError_("scalable vectors are not supported")
            n = int(cur.next())
            cur.expect("x")
            ty = LType("vec", count=n, elems=(parse_type(cur),))
            cur.expect(">")
    elif t == "[":
        n = int(cur.next())
        cur.expect("x")
        ty = LType("arr", count=n, elems=(parse_type(cur),))
        cur.expect("]")
    elif t == "{":
        ty = _struct_body(cur, packed=False)
    elif t.startswith("%"):
        if cur.resolve is None:
            raise TypeError_(f"named type {t} without a module")
        ty = cur.resolve(t[1:].strip('"'))
    else:
        raise TypeError_(f"unsupported type {t!r}")
    if cur.peek() == "*":   # typed pointers do not occur in LLVM 22
        raise TypeError_(f"unsupported type {ty}{cur.peek()}")
    return ty


def _struct_body(cur: Cursor, packed: bool) -> LType:
    elems = []
    if not cur.accept("}"):
        while True:
            elems.append(parse_type(cur))
            if cur.accept("}"):
                break
            cur.expect(",")
    return LType("struct", elems=tuple(elems), packed=packed)


def type_from_text(text: str, resolve: Callable[[str], LType] | None = None) -> LType:
    cur = Cursor(text, resolve)
    ty = parse_type(cur)
    if not cur.at_end():
        raise TypeError_(f"trailing text after type {text!r}")
    return ty


# ----------------------------------------------------------------------------------------------
# constants


@record
class CV:
    """A parsed constant (or operand reference). kind: int, float, null, undef, poison, zero, global,
    local, agg (vector/array/struct elements in `args`), splat, expr (op in `value`, operands in `args`)."""
    kind: str
    type: LType
    value: Any = None           # int, float, bool, a name (str) or an expr's opcode (str), by kind
    args: list = field(default_factory=list)
    extra: list = field(default_factory=list)    # expr: GEP source type / cast flags


_CAST_OPS = ("trunc", "zext", "sext", "fptrunc", "fpext", "fptoui", "fptosi", "uitofp", "sitofp",
             "ptrtoint", "inttoptr", "bitcast", "addrspacecast")
_BINARY_OPS = ("add", "sub", "mul", "xor", "and", "or", "shl", "lshr", "ashr")
_FLAGS = {"inbounds", "nuw", "nsw", "nusw", "exact", "disjoint", "nneg"}


def parse_typed_value(cur: Cursor) -> CV:
    ty = parse_type(cur)
    return parse_value(cur, ty)


def _float_from_token(tok: str, ty: LType) -> float:
    if tok.startswith("0xH"):
        return struct.unpack("<e", int(tok[3:], 16).to_bytes(2, "little"))[0]
    if tok.startswith("0x") and tok[2] in "KLMR":
        raise TypeError_(f"unsupported float literal {tok}")
    if tok.startswith("0x"):
        return struct.unpack("<d", int(tok[2:], 16).to_bytes(8, "little"))[0]
    return float(tok)


def parse_value(cur: Cursor, ty: LType) -> CV:
    t = cur.next()
    if t in ("true", "false") and ty.kind == "int":
        return CV("int", ty, int(t == "true"))
    if ty.kind == "int" and (re.fullmatch(r"[-+]?\d+", t) or t.startswith(("s0x", "u0x"))):
        n = int(t[3:], 16) if t[0] in "su" else int(t)
        return CV("int", ty, n & ((1 << ty.bits) - 1))
    if ty.kind == "float" and (t[0].isdigit() or t[0] in "+-"):
        return CV("float", ty, _float_from_token(t, ty))
    if t == "null":
        return CV("null", ty)
    if t in ("undef", "poison"):
        return CV("undef", ty)
    if t == "zeroinitializer":
        return CV("zero", ty)
    if t.startswith("@"):
        return CV("global", ty, t[1:].strip('"'))
    if t.startswith("%"):
        return CV("local", ty, t[1:].strip('"'))
    if t.startswith('c"'):
        return CV("agg", ty, args=[CV("int", ty.elem, b) for b in _cstring(t[2:-1])])
    if t == "splat":
        cur.expect("(")
        v = parse_typed_value(cur)
        cur.expect(")")
        return CV("agg", ty, args=[v] * ty.count)
    if t in ("<", "[", "{"):
        packed = t == "<" and cur.accept("{")
        close = {"<": ">", "[": "]", "{": "}"}[t]
        if packed:
            close = "}"
        args = []
        if not cur.accept(close):
            while True:
                args.append(parse_typed_value(cur))
                if cur.accept(close):
                    break
                cur.expect(",")
        if packed:
            cur.expect(">")
        return CV("agg", ty, args=args)
    if t == "getelementptr":
        while cur.peek() in _FLAGS or cur.peek() == "inrange":
            if cur.next() == "inrange":
                while cur.next() != ")":
                    pass
        cur.expect("(")
        src = parse_type(cur)
        args = []
        while cur.accept(","):
            args.append(parse_typed_value(cur))
        cur.expect(")")
        return CV("expr", ty, "getelementptr", args, [src])
    if t in _CAST_OPS:
        while cur.peek() in _FLAGS:
            cur.next()
        cur.expect("(")
        v = parse_typed_value(cur)
        cur.expect("to")
        to = parse_type(cur)
        cur.expect(")")
        return CV("expr", ty, t, [v], [to])
    if t in _BINARY_OPS:
        while cur.peek() in _FLAGS:
            cur.next()
        cur.expect("(")
        a = parse_typed_value(cur)
        cur.expect(",")
        b = parse_typed_value(cur)
        cur.expect(")")
        return CV("expr", ty, t, [a, b])
    raise TypeError_(f"unsupported constant {t!r}")


def _cstring(body: str) -> bytes:
    out = bytearray()
    i = 0
    while i < len(body):
        if body[i] == "\\" and i + 2 < len(body) + 1 and re.fullmatch(r"[0-9A-Fa-f]{2}", body[i + 1:i + 3]):
            out.append(int(body[i + 1:i + 3], 16))
            i += 3
        elif body[i] == "\\" and body[i + 1:i + 2] == "\\":
            out.append(0x5C)
            i += 2
        else:
            out.append(ord(body[i]))
            i += 1
    return bytes(out)


def constant_from_text(text: str, resolve: Callable[[str], LType] | None = None) -> CV:
    """Parse `T value` as llvmlite prints a constant operand."""
    cur = Cursor(text, resolve)
    cv = parse_typed_value(cur)
    return cv


# ----------------------------------------------------------------------------------------------
# layout


class DataLayout:
    """Sizes and alignments as LLVM computes them from a datalayout string (ABI alignments only)."""

    def __init__(self, spec: str):
        self.little = True
        self.ints = {1: 1, 8: 1, 16: 2, 32: 4, 64: 4}
        self.floats = {16: 2, 32: 4, 64: 8, 128: 16}
        self.vecs = {64: 8, 128: 16}
        self.ptrs = {0: (64, 8)}
        self.agg_align = 1
        for item in filter(None, spec.split("-")):
            head, _, rest = item.partition(":")
            nums = [int(x) for x in rest.split(":") if x.isdigit()] if rest else []
            if item == "E":
                self.little = False
            elif head[:1] in "ifv" and head[1:].isdigit() and nums:
                table = {"i": self.ints, "f": self.floats, "v": self.vecs}[head[0]]
                table[int(head[1:])] = max(1, nums[0] // 8)
            elif head[:1] == "p" and (head[1:].isdigit() or head == "p") and nums:
                space = int(head[1:] or 0)
                self.ptrs[space] = (nums[0], max(1, (nums[1] if len(nums) > 1 else nums[0]) // 8))
            elif head == "a" and nums:
                self.agg_align = max(1, nums[0] // 8)
        if not self.little:
            raise TypeError_("big-endian data layouts are not supported")
        self._cache: dict[LType, tuple[int, int]] = {}

    def ptr_bits(self, space: int) -> int:
        return self.ptrs.get(space, self.ptrs[0])[0]

    def align(self, ty: LType) -> int:
        return self._size_align(ty)[1]

    def store_size(self, ty: LType) -> int:
        if ty.kind == "int":
            return (ty.bits + 7) // 8
        if ty.kind == "float":
            return ty.bits // 8
        if ty.kind == "ptr":
            return self.ptr_bits(ty.bits) // 8
        if ty.kind == "vec":
            return (ty.count * self.bit_width(ty.elem) + 7) // 8
        return self.alloc_size(ty)

    def bit_width(self, ty: LType) -> int:
        if ty.kind in ("int", "float"):
            return ty.bits
        if ty.kind == "ptr":
            return self.ptr_bits(ty.bits)
        raise TypeError_(f"no bit width for {ty}")

    def alloc_size(self, ty: LType) -> int:
        return self._size_align(ty)[0]

    def _size_align(self, ty: LType) -> tuple[int, int]:
        hit = self._cache.get(ty)
        if hit is not None:
            return hit
        k = ty.kind
        if k == "int":
            wider = [b for b in self.ints if b >= ty.bits]
            a = self.ints[min(wider)] if wider else self.ints[max(self.ints)]
            res = (_round_up((ty.bits + 7) // 8, a), a)
        elif k == "float":
            a = self.floats.get(ty.bits, ty.bits // 8)
            res = (_round_up(ty.bits // 8, a), a)
        elif k == "ptr":
            bits, a = self.ptrs.get(ty.bits, self.ptrs[0])
            res = (_round_up(bits // 8, a), a)
        elif k == "vec":
            store = self.store_size(ty)
            bits = ty.count * self.bit_width(ty.elem)
            a = self.vecs.get(bits) or _pow2_ceil(store)
            res = (_round_up(store, a), a)
        elif k == "arr":
            s, a = self._size_align(ty.elem)
            res = (s * ty.count, a)
        elif k == "struct":
            offsets, size, a = self._struct(ty)
            res = (size, a)
        else:
            raise TypeError_(f"type {ty} has no size")
        self._cache[ty] = res
        return res

    def _struct(self, ty: LType) -> tuple[list[int], int, int]:
        offsets, off, struct_align = [], 0, 1
        for e in ty.elems:
            s, a = self._size_align(e)
            if ty.packed:
                a = 1
            off = _round_up(off, a)
            offsets.append(off)
            off += s
            struct_align = max(struct_align, a)
        if not ty.packed:
            struct_align = max(struct_align, self.agg_align)
        return offsets, _round_up(off, struct_align), struct_align

    def field_offset(self, ty: LType, index: int) -> int:
        return self._struct(ty)[0][index]

    def elem_offset(self, ty: LType, index: int) -> int:
        """Byte offset of element `index` of a vector (packed elements) or array."""
        if ty.kind == "vec":
            return index * self.store_size(ty.elem)
        return index * self.alloc_size(ty.elem)

    # ----- initializers -----
    def serialize(self, cv: CV) -> bytes:
        """Bytes of a constant as it sits in memory (alloc size, padding zeroed)."""
        buf = bytearray(self.alloc_size(cv.type))
        self._write(buf, 0, cv)
        return bytes(buf)

    def _write(self, buf: bytearray, off: int, cv: CV) -> None:
        ty = cv.type
        if cv.kind in ("zero", "undef", "null"):
            return
        if cv.kind == "int":
            n = self.store_size(ty)
            buf[off:off + n] = (cv.value & ((1 << (8 * n)) - 1)).to_bytes(n, "little")
        elif cv.kind == "float":
            fmt = {16: "<e", 32: "<f", 64: "<d"}[ty.bits]
            buf[off:off + ty.bits // 8] = struct.pack(fmt, cv.value)
        elif cv.kind == "agg":
            for i, a in enumerate(cv.args):
                if ty.kind == "struct":
                    self._write(buf, off + self.field_offset(ty, i), a)
                else:
                    if ty.kind == "vec" and self.bit_width(ty.elem) % 8:
                        raise TypeError_(f"vector of {ty.elem} in memory is not supported")
                    self._write(buf, off + self.elem_offset(ty, i), a)
        else:
            raise TypeError_(f"initializer needs relocation ({cv.kind} {cv.value})")


def _round_up(x: int, a: int) -> int:
    return (x + a - 1) // a * a


def _pow2_ceil(x: int) -> int:
    p = 1
    while p < x:
        p *= 2
    return p


def scalar_leaves(ty: LType) -> list[LType]:
    """The scalar types a first-class value of `ty` is split into (vectors and aggregates flattened)."""
    if ty.is_scalar:
        return [ty]
    if ty.kind in ("vec", "arr"):
        return scalar_leaves(ty.elem) * ty.count
    if ty.kind == "struct":
        return [leaf for e in ty.elems for leaf in scalar_leaves(e)]
    if ty.kind == "void":
        return []
    raise TypeError_(f"type {ty} is not supported")


def leaf_span(ty: LType, path: list[int]) -> tuple[int, LType]:
    """First leaf index and type of the member `path` (extractvalue/insertvalue indices) of `ty`."""
    start = 0
    for idx in path:
        if ty.kind == "struct":
            start += sum(len(scalar_leaves(e)) for e in ty.elems[:idx])
            ty = ty.elems[idx]
        elif ty.kind in ("arr", "vec"):
            start += idx * len(scalar_leaves(ty.elem))
            ty = ty.elem
        else:
            raise TypeError_(f"cannot index into {ty}")
    return start, ty


def memory_leaves(layout: DataLayout, ty: LType, base: int = 0) -> list[tuple[int, LType]]:
    """(byte offset, scalar type) of each leaf of `ty` in memory, in leaf order."""
    if ty.is_scalar:
        return [(base, ty)]
    if ty.kind in ("vec", "arr"):
        if ty.kind == "vec" and layout.bit_width(ty.elem) % 8:
            raise TypeError_(f"{ty} in memory is not supported")
        out = []
        for i in range(ty.count):
            out += memory_leaves(layout, ty.elem, base + layout.elem_offset(ty, i))
        return out
    if ty.kind == "struct":
        out = []
        for i, e in enumerate(ty.elems):
            out += memory_leaves(layout, e, base + layout.field_offset(ty, i))
        return out
    raise TypeError_(f"type {ty} is not supported in memory")
