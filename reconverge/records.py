"""Records: classes whose __init__, __repr__, __eq__ and __hash__ come from their annotated fields, as the
standard library's `dataclasses` makes them (the same defaults, default_factory, frozen, eq and hash rules,
repr text and hash values), without its start-up cost. `import dataclasses` imports `inspect` (with `ast`,
`dis`, `tokenize`: about 20 ms), and each decorated class cost 0.3-0.7 ms more, compiling five or six
generated functions: a compile defines about 60 such classes, so together a tenth of a one-kernel compile
(issue 26). Here a class costs one pass over its annotations: __repr__, __eq__, __hash__ and the frozen
__setattr__ are closures shared by every record. __init__, the one method whose speed matters (records
are made by the million), is generated and compiled once the class has made GENERIC_INSTANCES
instances; the first ones go through one shared __init__, so classes a command instantiates a few times
(options, the program, a kernel's metadata) never compile anything.

This module imports nothing of ours (of the standard library only `operator`): every layer (isa
included, which imports nothing of ours) may use it, as it would the standard library. Tests and tools
may keep `dataclasses`; `replace` and `fields` here do for records what `dataclasses.replace` and
`dataclasses.fields` do.
"""
from __future__ import annotations

from operator import attrgetter

TYPE_CHECKING = False                   # not typing's: the command line's start-up does not import typing
if TYPE_CHECKING:
    from typing import Any, Callable, TypeVar, dataclass_transform

    T = TypeVar("T")
else:
    def dataclass_transform(**kwargs):
        """typing's marker for type checkers (mypy reads @record's classes as dataclasses); nothing at run time."""
        return lambda function: function

__all__ = ["FrozenInstanceError", "Field", "field", "fields", "record", "replace"]

_MISSING: Any = type("_Missing", (), {"__repr__": lambda self: "MISSING"})()


class FrozenInstanceError(AttributeError):
    """An assignment to a field of a frozen record (dataclasses' error of the same name)."""


class Field:
    """One field of a record: its name, default or default factory, and whether repr() shows it."""
    __slots__ = ("name", "default", "default_factory", "repr")

    def __init__(self, default: Any, default_factory: Any, repr: bool) -> None:
        self.name = ""
        self.default = default
        self.default_factory = default_factory
        self.repr = repr

    def __repr__(self) -> str:
        return f"Field(name={self.name!r}, default={self.default!r}, default_factory={self.default_factory!r})"


def field(*, default: Any = _MISSING, default_factory: Any = _MISSING, repr: bool = True) -> Any:
    """A field's default made by `default_factory()` for each instance, or one hidden from repr()."""
    if default is not _MISSING and default_factory is not _MISSING:
        raise ValueError("cannot specify both default and default_factory")
    return Field(default, default_factory, repr)


def fields(obj: Any) -> tuple[Field, ...]:
    """The fields of a record class or instance, in order (a base class's first)."""
    found: tuple[Field, ...] | None = getattr(obj, "__record_fields__", None)
    if found is None:
        raise TypeError(f"{obj!r} is not a record")
    return found


def replace(obj: T, /, **changes: Any) -> T:
    """A copy of the record `obj` with the named fields changed (its class's __init__ runs again)."""
    for f in fields(obj):
        if f.name not in changes:
            changes[f.name] = getattr(obj, f.name)
    return obj.__class__(**changes)


def _collect_fields(cls: type) -> tuple[Field, ...]:
    """The bases' fields, then this class's annotated names (a redefined name keeps its place)."""
    found: dict[str, Field] = {}
    for base in cls.__mro__[-1:0:-1]:
        for f in base.__dict__.get("__record_fields__", ()):
            found[f.name] = f
    for name, annotation in cls.__dict__.get("__annotations__", {}).items():
        if isinstance(annotation, str) and annotation.startswith(("ClassVar", "typing.ClassVar")):
            continue
        value = cls.__dict__.get(name, _MISSING)
        spec = value if isinstance(value, Field) else Field(value, _MISSING, True)
        spec.name = name
        if spec.default.__class__ in (list, dict, set):
            raise ValueError(f"mutable default {type(spec.default)} for field {name} is not allowed: "
                             "use default_factory")
        if isinstance(value, Field):          # the class attribute becomes the plain default, or goes
            if spec.default is _MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, spec.default)
        found[name] = spec
    return tuple(found.values())


def _make_init(cls: type, specs: tuple[Field, ...], frozen: bool) -> Callable[..., None]:
    """dataclasses' __init__: one parameter per field in order, a default factory called per instance,
    fields set through object.__setattr__ in a frozen record, then __post_init__ where the class has one."""
    namespace: dict[str, Any] = {"_MISSING": _MISSING, "_setattr": object.__setattr__}
    params, body = ["self"], []
    for i, f in enumerate(specs):
        value = f.name
        if f.default_factory is not _MISSING:
            namespace[f"_factory{i}"] = f.default_factory
            params.append(f"{f.name}=_MISSING")
            value = f"_factory{i}() if {f.name} is _MISSING else {f.name}"
        elif f.default is not _MISSING:
            namespace[f"_default{i}"] = f.default
            params.append(f"{f.name}=_default{i}")
        else:
            params.append(f.name)
        setter = _slot_setter(cls, f.name) if frozen else None
        if not frozen:
            body.append(f"self.{f.name} = {value}")
        elif setter is not None:                        # a slot's own setter: what object.__setattr__ finds
            namespace[f"_set{i}"] = setter
            body.append(f"_set{i}(self, {value})")
        else:
            body.append(f"_setattr(self, {f.name!r}, {value})")
    if hasattr(cls, "__post_init__"):
        body.append("self.__post_init__()")
    source = f"def __init__({', '.join(params)}):\n    " + ("\n    ".join(body) or "pass") + "\n"
    # exec of the text itself, then the code's file name set: the builtin compile() readies the `ast`
    # module's 119 node classes on its first call in a process (PyAST_Check), 9M instructions, 4% of a
    # one-kernel compile's own process, for a function of a few lines
    exec(source, namespace)
    init: Callable[..., None] = namespace["__init__"]
    init.__code__ = init.__code__.replace(co_filename=f"<record {cls.__qualname__}.__init__>")
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    return init


def _slot_setter(cls: type, name: str) -> Callable[[Any, Any], None] | None:
    """The __set__ of the slot `name` of a slotted class (the member descriptor object.__setattr__ looks up
    along the MRO and calls): a frozen record's generated __init__ calls it directly, which skips that
    lookup (a third of the cost of each field of a frozen Operand or VReg, which selection makes by the
    ten thousand). None where the attribute is not a slot."""
    for klass in cls.__mro__:
        found = klass.__dict__.get(name)
        if found is not None:
            return found.__set__ if type(found) is _MEMBER_DESCRIPTOR else None
    return None


class _SlotProbe:
    __slots__ = ("slot",)


_MEMBER_DESCRIPTOR = type(_SlotProbe.__dict__["slot"])


# A record's first instances are made by one shared, slower __init__ (a few microseconds more each); the
# generated one is compiled once a class has made this many. Compiling costs about 0.1-0.4 ms a class, and
# of the 20 classes a one-kernel SPIR-V compile instantiates, 15 make fewer than 10 instances.
GENERIC_INSTANCES = 32


def _init_generic(cls: type, specs: tuple[Field, ...], frozen: bool, self: Any, args: tuple[Any, ...],
                  kwargs: dict[str, Any]) -> None:
    """What the generated __init__ does, for any record: bind the arguments to the fields (TypeError for
    too many, a missing one, an unknown or a repeated one), call each default factory, set the fields in
    order, then __post_init__."""
    if len(args) > len(specs):
        raise TypeError(f"{cls.__qualname__}.__init__() takes {len(specs) + 1} positional arguments but "
                        f"{len(args) + 1} were given")
    values = list(args)
    for f in specs[len(args):]:
        if f.name in kwargs:
            values.append(kwargs.pop(f.name))
        elif f.default_factory is not _MISSING:
            values.append(f.default_factory())
        elif f.default is not _MISSING:
            values.append(f.default)
        else:
            raise TypeError(f"{cls.__qualname__}.__init__() missing required argument: '{f.name}'")
    for name in kwargs:
        repeated = any(f.name == name for f in specs[:len(args)])
        raise TypeError(f"{cls.__qualname__}.__init__() got " + (f"multiple values for argument '{name}'"
                        if repeated else f"an unexpected keyword argument '{name}'"))
    put = object.__setattr__ if frozen else setattr
    for f, value in zip(specs, values):
        put(self, f.name, value)
    if hasattr(cls, "__post_init__"):
        self.__post_init__()


def _lazy_init(cls: type, specs: tuple[Field, ...], frozen: bool) -> Callable[..., None]:
    """The shared __init__ for the class's first GENERIC_INSTANCES instances; then the generated one,
    which it puts in its place."""
    made = 0

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        nonlocal made
        made += 1
        if made <= GENERIC_INSTANCES:
            _init_generic(cls, specs, frozen, self, args, kwargs)
            return
        if cls.__dict__.get("__init__") is __init__:
            cls.__init__ = _make_init(cls, specs, frozen)        # type: ignore[misc]
        cls.__dict__["__init__"](self, *args, **kwargs)
    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    return __init__


_repr_running: set[int] = set()


def _make_repr(names: tuple[str, ...]) -> Callable[[Any], str]:
    """dataclasses' repr: `Qualname(a=1, b='x')`, and '...' for a record met again inside its own repr."""
    def __repr__(self: Any) -> str:
        key = id(self)
        if key in _repr_running:
            return "..."
        _repr_running.add(key)
        try:
            inner = ", ".join([f"{name}={getattr(self, name)!r}" for name in names])
        finally:
            _repr_running.discard(key)
        return f"{self.__class__.__qualname__}({inner})"
    return __repr__


def _fields_tuple(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """The record's fields as one tuple (operator.attrgetter does it in C for two or more)."""
    if len(names) >= 2:
        return attrgetter(*names)
    if names:
        name = names[0]
        return lambda self: (getattr(self, name),)
    return lambda self: ()


def _make_eq(names: tuple[str, ...]) -> Callable[[Any, Any], Any]:
    """dataclasses' __eq__: the same class, and equal tuples of the fields."""
    key = _fields_tuple(names)

    def __eq__(self: Any, other: Any) -> Any:
        if other.__class__ is self.__class__:
            return key(self) == key(other)
        return NotImplemented
    return __eq__


def _make_hash(names: tuple[str, ...]) -> Callable[[Any], int]:
    """dataclasses' __hash__: the hash of the tuple of the fields (the same values, so sets of records
    iterate in the same order as before)."""
    key = _fields_tuple(names)

    def __hash__(self: Any) -> int:
        return hash(key(self))
    return __hash__


def _make_frozen(cls: type[Any], names: frozenset[str]) -> tuple[Callable[..., None], Callable[..., None]]:
    """dataclasses' frozen __setattr__ and __delattr__ (a subclass may still set names that are no field)."""
    def __setattr__(self: Any, name: str, value: Any) -> None:
        if self.__class__ is cls or name in names:
            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def __delattr__(self: Any, name: str) -> None:
        if self.__class__ is cls or name in names:
            raise FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)
    return __setattr__, __delattr__


def _with_slots(cls: type, specs: tuple[Field, ...], frozen: bool) -> type:
    """The class made again with __slots__ for its fields (a class's slots are fixed when it is made),
    picklable when frozen, as dataclasses' slots=True."""
    body = {k: v for k, v in cls.__dict__.items() if k not in ("__dict__", "__weakref__")}
    names = tuple(f.name for f in specs)
    for name in names:
        body.pop(name, None)
    body["__slots__"] = names
    if frozen:
        body["__getstate__"] = lambda self: [getattr(self, n) for n in names]

        def __setstate__(self: Any, state: list[Any]) -> None:
            for n, v in zip(names, state):
                object.__setattr__(self, n, v)
        body["__setstate__"] = __setstate__
    new = type(cls)(cls.__name__, cls.__bases__, body)
    new.__qualname__ = cls.__qualname__
    return new


def _process(cls: type, frozen: bool, eq: bool, slots: bool) -> type:
    specs = _collect_fields(cls)
    class_hash = cls.__dict__.get("__hash__", _MISSING)     # Python sets None for a class with its own __eq__
    explicit_hash = not (class_hash is _MISSING or (class_hash is None and "__eq__" in cls.__dict__))
    if slots:
        cls = _with_slots(cls, specs, frozen)
    names = tuple(f.name for f in specs)
    own = dict(cls.__dict__)
    cls.__record_fields__ = specs                                  # type: ignore[attr-defined]
    cls.__match_args__ = names                                     # type: ignore[attr-defined,misc]
    if "__init__" not in own:
        cls.__init__ = _lazy_init(cls, specs, frozen)              # type: ignore[misc]
    if "__repr__" not in own:
        cls.__repr__ = _make_repr(tuple(f.name for f in specs if f.repr))    # type: ignore[assignment,method-assign]
    if eq:
        if "__eq__" not in own:
            cls.__eq__ = _make_eq(names)                           # type: ignore[method-assign,assignment]
        if not explicit_hash:           # dataclasses' rule: frozen records hash their fields, others none
            cls.__hash__ = _make_hash(names) if frozen else None   # type: ignore[assignment,method-assign]
    if frozen:
        if "__setattr__" in own or "__delattr__" in own:
            raise TypeError(f"cannot overwrite __setattr__ or __delattr__ in frozen record {cls.__name__}")
        cls.__setattr__, cls.__delattr__ = _make_frozen(cls, frozenset(names))   # type: ignore[method-assign]
    return cls


@dataclass_transform(field_specifiers=(field,))
def record(cls: type[T] | None = None, /, *, frozen: bool = False, eq: bool = True, slots: bool = False) -> Any:
    """@record or @record(frozen=True, eq=False, slots=True): dataclasses.dataclass's meaning of each."""
    if cls is None:
        return lambda c: _process(c, frozen, eq, slots)
    return _process(cls, frozen, eq, slots)
