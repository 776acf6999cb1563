"""Reading gpulane's own cache entries fast: every value type-checked, models made without
re-running the checks that already ran when the files were read.

A cache entry is JSON text that gpulane wrote from models it had validated (see
``gpulane.api``). Validating it again into pydantic models costs more than the rest of a warm
start: some 10^4 model instances, each built field by field. This module reads the same text
in two cheaper steps that are still safe against any text:

1. ``validator(annotation)`` is a pydantic-core validator of the *shape* the models have: each
   model becomes a typed dictionary with the same fields and field types (enums, literals,
   dates, numbers, nested models), unknown fields refused, required ones required; plain
   records (dataclasses, TypedDicts) likewise, and sets and tuples as such. A value of the
   wrong type is a ValidationError, which the cache reads as a miss. The validator is made
   from the models' field annotations directly (no schema generation in Python per process)
   and reads JSON with pydantic-core's own parser. ``CheckedOnUse`` applies one to each of a
   run of stored items when that item is first read, so a command reads only what it uses.
2. ``build(model, data)`` then makes the model instances from those checked dictionaries as
   ``BaseModel.model_construct`` does (fields, defaults, the set of given fields), minus its
   per-field Python work. What the models' validators would check was checked when the files
   were read (as the TRUSTED validation context already assumed); the validators that reshape
   input (``Selector``'s shorthands, the layer a ``when`` key names) have nothing to do on text
   written from validated models.

tests/test_cache_compiled.py checks that the models built this way equal, field for field
and in their sets of given fields, those a full pydantic validation of the same text gives.
Nothing here runs code named by the data: the data only ever becomes strings, numbers, lists,
tuples, sets, dictionaries, dates, and members of gpulane's own enums.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import types
import typing
from collections.abc import Sequence
from operator import le
from typing import Any, Callable, Literal, Union

from pydantic import BaseModel
from pydantic_core import SchemaValidator, core_schema as cs

from gpulane.made_on_use import MadeOnUse

__all__ = ["CheckedOnUse", "LazyModels", "build", "builder", "validator"]

_NONE = type(None)
_SCALARS = {str: cs.str_schema, int: cs.int_schema, float: cs.float_schema, bool: cs.bool_schema,
            dt.date: cs.date_schema}
_schemas: dict[Any, dict] = {}
_builders: dict[type, Callable[[dict], BaseModel]] = {}


def validator(annotation: Any) -> SchemaValidator:
    """A validator of JSON text of this type, in which every pydantic model is read as a typed
    dictionary of its fields (see the module's docstring)."""
    return SchemaValidator(_schema(annotation))


def _schema(tp: Any) -> dict:
    if tp is Any:
        return cs.any_schema()
    if tp in _SCALARS:
        return _SCALARS[tp]()
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return _model_schema(tp)
    if typing.is_typeddict(tp) or dataclasses.is_dataclass(tp):
        # Plain-data records (the compiled state, the name index): every field required, read
        # as a dictionary of exactly these fields.
        return cs.typed_dict_schema({name: cs.typed_dict_field(_schema(hint))
                                     for name, hint in typing.get_type_hints(tp).items()}, extra_behavior="forbid")
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        base = "str" if issubclass(tp, str) else None
        if base is None:
            raise TypeError(f"no stored form for enum {tp!r}")
        return cs.enum_schema(tp, list(tp.__members__.values()), sub_type=base)
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is Literal:
        return cs.literal_schema(list(args))
    if origin in (Union, types.UnionType):
        rest = [a for a in args if a is not _NONE]
        inner = _schema(rest[0]) if len(rest) == 1 else cs.union_schema([_schema(a) for a in rest])
        return cs.nullable_schema(inner) if len(rest) < len(args) else inner
    if origin is list:
        return cs.list_schema(_schema(args[0]))
    if origin is set:
        return cs.set_schema(_schema(args[0]))
    if origin is frozenset:
        return cs.frozenset_schema(_schema(args[0]))
    if origin is dict:
        return cs.dict_schema(_schema(args[0]), _schema(args[1]))
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return cs.tuple_schema([_schema(args[0])], variadic_item_index=0)
        return cs.tuple_schema([_schema(a) for a in args])
    raise TypeError(f"no stored form for {tp!r}")


def _model_schema(model: type[BaseModel]) -> dict:
    schema = _schemas.get(model)
    if schema is None:
        fields = {}
        for name, info in model.model_fields.items():
            if info.metadata or info.alias or info.validation_alias:
                # A constraint or alias the typed dictionary would not apply: refuse, loudly.
                raise TypeError(f"{model.__name__}.{name}: no stored form for constraints or aliases")
            fields[name] = cs.typed_dict_field(_schema(info.annotation), required=info.is_required())
        schema = _schemas[model] = cs.typed_dict_schema(fields, extra_behavior="forbid")
    return schema


def builder(model: type[BaseModel]) -> Callable[[dict], BaseModel]:
    """A function that makes a model instance from a dictionary ``validator`` checked."""
    made = _builders.get(model)
    if made is not None:
        return made
    template: dict[str, Any] = {}
    fresh: list[tuple[str, Callable[[], Any]]] = []
    nested: list[tuple[str, Callable[[Any], Any]]] = []
    for name, info in model.model_fields.items():
        if info.default_factory is not None:
            template[name] = None
            fresh.append((name, info.default_factory))
        elif info.is_required():
            template[name] = None
        elif isinstance(info.default, (list, dict, set)):
            template[name] = None
            fresh.append((name, type(info.default)))  # a fresh empty one, as pydantic copies it
            if info.default:
                raise TypeError(f"{model.__name__}.{name}: a non-empty mutable default")
        else:
            template[name] = info.default
        convert = _converter(info.annotation)
        if convert is not None:
            nested.append((name, convert))
    new = model.__new__
    setattr_ = object.__setattr__
    root = model.__pydantic_root_model__
    if root or model.__pydantic_post_init__ or model.model_config.get("extra") == "allow":
        raise TypeError(f"{model.__name__}: not a plain model")

    def make(data: dict) -> BaseModel:
        values = template.copy()
        for name, factory in fresh:
            if name not in data:
                values[name] = factory()
        values.update(data)
        for name, convert in nested:
            if name in data:
                values[name] = convert(values[name])
        m = new(model)
        setattr_(m, "__dict__", values)
        setattr_(m, "__pydantic_fields_set__", set(data))
        setattr_(m, "__pydantic_extra__", None)
        setattr_(m, "__pydantic_private__", None)
        return m

    _builders[model] = make
    return make


def _converter(tp: Any) -> Callable[[Any], Any] | None:
    """How a checked value of this type becomes the value a model holds (None: as it is)."""
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return builder(tp)
    if typing.is_typeddict(tp) or dataclasses.is_dataclass(tp):
        if any(_converter(hint) is not None for hint in typing.get_type_hints(tp).values()):
            raise TypeError(f"no stored form for {tp!r}: a model inside a plain record")
        return None
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (Union, types.UnionType):
        models = [a for a in args if isinstance(a, type) and issubclass(a, BaseModel)]
        if any(_converter(a) is not None for a in args if a not in models):
            raise TypeError(f"no stored form for {tp!r}")
        if not models:
            return None
        if len(models) > 1:
            raise TypeError(f"no stored form for {tp!r}: two models in one union")
        make = builder(models[0])
        # The only dictionaries in such a union are the model's (str, list and None stay).
        return lambda v: make(v) if type(v) is dict else v
    if origin is list:
        inner = _converter(args[0])
        return None if inner is None else (lambda v: [inner(x) for x in v])
    if origin is dict:
        if _converter(args[0]) is not None:
            raise TypeError(f"no stored form for {tp!r}")
        inner = _converter(args[1])
        return None if inner is None else (lambda v: {k: inner(x) for k, x in v.items()})
    if origin is tuple:
        if any(_converter(a) is not None for a in args if a is not Ellipsis):
            raise TypeError(f"no stored form for {tp!r}")
    return None


def build(model: type[BaseModel], items: list[dict]) -> list:
    """Model instances of checked dictionaries."""
    make = builder(model)
    return [make(x) for x in items]


class CheckedOnUse(MadeOnUse):
    """Items stored as JSON texts one after another (``ends[i]`` is where item i ends in
    ``blob``), each type-checked by ``check`` (a ``validator``) when first read.

    A warm start then reads only the items a command looks at. The text is a cache entry whose
    digest was checked when it was read, written by this same code from validated models, so an
    item that does not check is a bug of ours, not a planted value: it is reported by the error
    ``damaged(index, exc)`` gives, never read half-checked.
    """

    __slots__ = ("_check", "_blob", "_ends", "_damaged")

    def __init__(self, check: SchemaValidator, blob: bytes | memoryview, ends: list[int],
                 damaged: Callable[[int, Exception], Exception]):
        # Checked by C-level passes (10^5 items at the benchmark's largest size).
        if not set(map(type, ends)) <= {int} or not all(map(le, [0, *ends[:-1]], ends)) \
                or ends and ends[-1] > len(blob):
            raise ValueError("item offsets out of order or outside the text")
        super().__init__(len(ends))
        self._check, self._blob, self._ends, self._damaged = check, blob, ends, damaged

    def _make(self, index: int) -> dict:
        start = self._ends[index - 1] if index else 0
        try:
            return self._check.validate_json(bytes(self._blob[start:self._ends[index]]))
        except ValueError as exc:  # pydantic-core's ValidationError is a ValueError
            raise self._damaged(index, exc) from None


class LazyModels(MadeOnUse):
    """A list of models made on first use from dictionaries ``validator`` checked.

    A query looks at few facts as models: the compiled facts carry what the solver reads of
    every fact (relation, status, ...). ``raw`` may itself check each dictionary when first read
    (``CheckedOnUse``). Compares equal to a list of the same models.
    """

    __slots__ = ("_model", "_raw")

    def __init__(self, model: type[BaseModel], raw: Sequence[dict]):
        super().__init__(len(raw))
        self._model = model
        self._raw = raw

    def _make(self, index: int) -> BaseModel:
        return builder(self._model)(self._raw[index])

    def __iter__(self):
        make = builder(self._model)
        made, raw = self._made, self._raw
        for i in range(len(raw)):
            m = made[i]
            if m is None:
                m = made[i] = make(raw[i])
            yield m

    def __eq__(self, other) -> bool:
        if isinstance(other, (list, LazyModels)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"LazyModels({self._model.__name__}, {len(self._raw)} items)"
