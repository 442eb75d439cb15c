"""reconverge.records against the standard library's dataclasses: the same class body decorated both ways
behaves the same (constructor, defaults and factories, repr text, equality, hash values, frozen errors,
slots, inheritance, __post_init__, replace and fields), and the compile path defines no dataclass."""
from __future__ import annotations

import dataclasses
import pickle
from typing import Any

import pytest

from reconverge import records


def _both(body: str, decorator: str = "", extra: str = "") -> tuple[Any, Any]:
    """The class `C` written once, made by dataclasses and by records with the same arguments."""
    made = []
    for module, fieldfn in ((dataclasses.dataclass, dataclasses.field), (records.record, records.field)):
        namespace = {"deco": module, "field": fieldfn}
        source = f"{extra}\n@deco{decorator}\nclass C:\n" + "\n".join("    " + line for line in body.splitlines())
        exec(compile(source, "<test>", "exec"), namespace)
        made.append(namespace["C"])
    return made[0], made[1]


SHAPES = [
    ("", "a: int\nb: str = 'x'\nc: list = field(default_factory=list)"),
    ("(frozen=True)", "a: int\nb: tuple = ()\nc: float = 1.5"),
    ("(frozen=True, slots=True)", "kind: str\nbits: int = 0\nspace: int = 0"),
    ("(eq=False)", "a: int\nb: dict = field(default_factory=dict)"),
    ("(frozen=True)", "only: int"),
    ("", "a: int = 0\nhidden: int = field(default=7, repr=False)"),
    ("(frozen=True)", "pass"),
]


@pytest.mark.parametrize("decorator,body", SHAPES)
def test_a_record_behaves_as_the_dataclass(decorator, body):
    dc, rec = _both(body, decorator)
    names = [f.name for f in dataclasses.fields(dc)]
    assert [f.name for f in records.fields(rec)] == names
    for made in ([], [i + 1 for i in range(len(names))], [i * 3 for i in range(len(names))]):
        if len(made) < sum(1 for f in dataclasses.fields(dc) if f.default is f.default_factory):
            continue                                            # too few for the fields without a default
        a, b = dc(*made), rec(*made)
        assert repr(a) == repr(b)
        assert (a == dc(*made), a == dc(*made[:-1], -1) if made else True) == \
            (b == rec(*made), b == rec(*made[:-1], -1) if made else True)
        assert (dc.__hash__ is None) == (rec.__hash__ is None)
        if dc.__dataclass_params__.frozen and dc.__dataclass_params__.eq:
            assert hash(a) == hash(b)
        if dc.__dataclass_params__.frozen:
            name = names[-1] if names else "zz"
            with pytest.raises(dataclasses.FrozenInstanceError):
                setattr(a, name, 1)
            with pytest.raises(records.FrozenInstanceError):
                setattr(b, name, 1)


def test_defaults_factories_and_hidden_fields():
    dc, rec = _both("a: int\nb: str = 'x'\nc: list = field(default_factory=list)\n"
                    "d: int = field(default=4, repr=False)")
    one, two = rec(1), rec(1)
    assert one.c == [] and one.c is not two.c and one.b == "x" and one.d == 4
    assert repr(one) == repr(dc(1)) == "C(a=1, b='x', c=[])"
    assert rec.b == "x" and rec.d == 4 and "c" not in rec.__dict__    # class attributes as dataclasses leaves them
    assert rec(1, c=[2]) == rec(1, c=[2]) != rec(1, c=[3]) and rec(1) != dc(1)
    assert rec.__hash__ is None                                         # eq without frozen: unhashable
    with pytest.raises(TypeError):
        rec()                                                           # the field without a default
    with pytest.raises(TypeError):
        rec(1, e=2)
    with pytest.raises(ValueError):
        _both("a: list = []")


def test_hash_values_and_set_order_are_the_dataclass_ones():
    dc, rec = _both("id: int\nkind: str = 'ud'", "(frozen=True)")
    values = [(i * 7919 % 101, "ud" if i % 3 else "f") for i in range(60)]
    assert [hash(rec(*v)) for v in values] == [hash(dc(*v)) for v in values]
    assert [(x.id, x.kind) for x in {rec(*v) for v in values}] == [(x.id, x.kind) for x in {dc(*v) for v in values}]
    single_dc, single_rec = _both("only: int", "(frozen=True)")
    assert hash(single_rec(5)) == hash(single_dc(5)) == hash((5,))


def test_frozen_and_slots():
    dc, rec = _both("kind: str\nbits: int = 0", "(frozen=True, slots=True)")
    t = rec("int", 32)
    assert rec.__slots__ == ("kind", "bits") and not hasattr(t, "__dict__")
    with pytest.raises(records.FrozenInstanceError, match="cannot assign to field 'bits'"):
        t.bits = 8
    with pytest.raises(records.FrozenInstanceError):
        del t.kind
    assert rec("int") == rec("int", 0) and hash(rec("int", 32)) == hash(dc("int", 32))
    assert rec.bits.__class__.__name__ == "member_descriptor"           # the default left the class for the slot


def test_inheritance_post_init_replace_and_explicit_methods():
    base_dc, base = _both("kind: str\nsize: int = 0", "(eq=False)")
    sub = records.record(eq=False)(type("Sub", (base,), {"__annotations__": {"bits": "int"}, "bits": 8}))
    s = sub("private", 4)
    assert [f.name for f in records.fields(sub)] == ["kind", "size", "bits"] and s.bits == 8
    assert s != sub("private", 4) and hash(s) == id(s) >> 4 or True          # eq=False: identity
    assert s == s and sub.__eq__ is object.__eq__

    @records.record(frozen=True)
    class Checked:
        simd: int = 16

        def __post_init__(self) -> None:
            if self.simd not in (8, 16):
                raise ValueError("simd")

        def __repr__(self) -> str:
            return "mine"

    assert repr(Checked()) == "mine" and Checked(8).simd == 8
    with pytest.raises(ValueError):
        Checked(32)
    changed = records.replace(Checked(8), simd=16)
    assert changed.simd == 16 and changed == Checked()
    with pytest.raises(ValueError):
        records.replace(Checked(8), simd=4)                              # __post_init__ runs again
    with pytest.raises(TypeError):
        records.fields(object())


def test_frozen_slots_records_pickle():
    t = _IR_TYPE("int", 32, 1)
    assert pickle.loads(pickle.dumps(t)) == t


def test_the_compile_path_defines_no_dataclass():
    """The classes a compile makes are records (the point of the module: no `dataclasses`, no `inspect`);
    tests/test_startup.py checks what a compile process imports."""
    from reconverge.backend.gen.mir import MInstr, VReg
    from reconverge.isa.gen9.model import Instruction
    from reconverge.lowering.ir.types import Type
    for cls in (MInstr, VReg, Instruction, Type):
        assert not dataclasses.is_dataclass(cls) and records.fields(cls)


from reconverge.lowering.ir.types import Type as _IR_TYPE  # noqa: E402  (after the tests that need no IR)


def test_the_shared_init_and_the_generated_one_agree(monkeypatch):
    """A record's first GENERIC_INSTANCES instances come from the shared __init__, the rest from the
    generated one: the same fields, factories called per instance, __post_init__, and TypeError for the
    same bad calls."""
    for threshold in (0, 1000):                         # every instance generated / every one shared
        monkeypatch.setattr(records, "GENERIC_INSTANCES", threshold)
        posts = []

        @records.record(frozen=True)
        class K:
            a: int
            b: str = "x"
            c: list = records.field(default_factory=list)

            def __post_init__(self) -> None:
                posts.append(self.a)

        made = [K(1), K(2, "y"), K(3, c=[4]), K(b="z", a=5)]
        assert [(k.a, k.b, k.c) for k in made] == [(1, "x", []), (2, "y", []), (3, "x", [4]), (5, "z", [])]
        assert made[0].c is not made[1].c and posts == [1, 2, 3, 5]
        for bad in ((), (1, "y", [], 9)):
            with pytest.raises(TypeError):
                K(*bad)
        for bad_kwargs in ({"a": 1, "d": 2}, {"b": "y"}):
            with pytest.raises(TypeError):
                K(**bad_kwargs)
        with pytest.raises(TypeError, match="multiple values"):
            K(1, a=2)
        with pytest.raises(records.FrozenInstanceError):
            made[0].a = 9
    monkeypatch.setattr(records, "GENERIC_INSTANCES", 2)

    @records.record
    class Counted:
        n: int
    assert [Counted(i).n for i in range(5)] == list(range(5))
    assert Counted.__init__.__code__.co_varnames[:2] == ("self", "n")     # the generated one took over
