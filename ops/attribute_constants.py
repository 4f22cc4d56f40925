"""Operator attributes as VM constants: how ``op_attrs`` reach a packed function.

A ``relax.call_packed`` with ``op_attrs`` (the safety net's ``relax.op.<name>`` calls)
passes them as its trailing argument: a constant of the executable's pool (nested
tuples of strings, integers, floats and booleans), never text the VM would parse.
Each attribute is a tuple led by its kind::

    {axis = array<i64: 1>, mode = "linear", dtype = f32}
    ("dict", (("axis", ("array", "i64", (1,))), ("mode", ("str", "linear")),
              ("dtype", ("dtype", "f32"))))

A run-time value is never a tuple holding a string, so the trailing ``("dict", ...)``
cannot be taken for an operand (:func:`is_dict_constant`).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
    FloatAttr,
    IntegerAttr,
    StringAttr,
)
from xdsl.ir import Attribute

from xrelax.dialects import dtypes


def to_constant(attr: Attribute) -> tuple:
    """``attr`` as a constant; a ``ValueError`` for a kind of attribute no operator has."""
    if isinstance(attr, DictionaryAttr):
        return ("dict", tuple((name, to_constant(value)) for name, value in attr.data.items()))
    if isinstance(attr, ArrayAttr):
        return ("list", tuple(to_constant(value) for value in attr.data))
    if isinstance(attr, StringAttr):
        return ("str", attr.data)
    if isinstance(attr, IntegerAttr) and attr.type in dtypes.NAME_OF:
        return ("int", dtypes.NAME_OF[attr.type], attr.value.data)
    if isinstance(attr, FloatAttr) and attr.type in dtypes.NAME_OF:
        return ("float", dtypes.NAME_OF[attr.type], attr.value.data)
    if isinstance(attr, DenseArrayBase) and attr.elt_type in dtypes.NAME_OF:
        return ("array", dtypes.NAME_OF[attr.elt_type], tuple(attr.get_values()))
    if dtypes.is_dtype(attr):
        return ("dtype", dtypes.NAME_OF[attr])
    raise ValueError(f"cannot pass the attribute {attr} to run time")


@lru_cache(maxsize=1024)
def from_constant(value: tuple) -> Attribute:
    """The attribute :func:`to_constant` made ``value`` from."""
    kind, *fields = value
    if kind == "dict":
        return DictionaryAttr({name: from_constant(item) for name, item in fields[0]})
    if kind == "list":
        return ArrayAttr(from_constant(item) for item in fields[0])
    if kind == "str":
        return StringAttr(fields[0])
    if kind == "int":
        return IntegerAttr(fields[1], dtypes.BY_NAME[fields[0]])
    if kind == "float":
        return FloatAttr(fields[1], dtypes.BY_NAME[fields[0]])
    if kind == "array":
        return DenseArrayBase.from_list(dtypes.BY_NAME[fields[0]], fields[1])
    if kind == "dtype":
        return dtypes.BY_NAME[fields[0]]
    raise ValueError(f"unknown attribute constant kind '{kind}'")


def is_dict_constant(value: Any) -> bool:
    """Whether ``value`` is an attribute dictionary made by :func:`to_constant`."""
    return type(value) is tuple and len(value) == 2 and type(value[0]) is str and value[0] == "dict"
