"""Value equality for the dataclasses that hold numpy arrays.

A dataclass's generated `__eq__` compares fields with `==`; on an array that
is an array of booleans, whose truth is ambiguous. Up to Python 3.12 the
comparison went through tuples, which skip `==` for the very same object, so
it worked as long as both sides shared their arrays; from 3.13 on it compares
field by field and raises whenever an array is involved. `compares_arrays`
gives such a class one `__eq__` that behaves the same on every version: equal
when every field is equal, arrays by value (`np.array_equal`: same shape, same
elements). Such values are not hashable, like the arrays they hold.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

import numpy as np

C = TypeVar("C", bound=type)


def same_value(a: Any, b: Any) -> bool:
    """`a == b` as one bool, arrays compared by value."""
    if a is b:
        return True
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and np.array_equal(a, b)
    return bool(a == b)


def compares_arrays(cls: C) -> C:
    """Give dataclass `cls`, declared with eq=False, an `__eq__` over its compared fields
    (arrays by value) and no hash."""
    if not dataclasses.is_dataclass(cls) or cls.__dataclass_params__.eq:  # type: ignore[attr-defined]
        raise TypeError(f"{cls.__name__} must be a dataclass declared with eq=False")
    names = tuple(f.name for f in dataclasses.fields(cls) if f.compare)

    def __eq__(self: Any, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return all(same_value(getattr(self, n), getattr(other, n)) for n in names)

    __eq__.__qualname__ = f"{cls.__qualname__}.__eq__"
    cls.__eq__ = __eq__  # type: ignore[method-assign]
    cls.__hash__ = None  # type: ignore[assignment]  # arrays are not hashable: neither is what holds them
    return cls
