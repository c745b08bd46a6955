"""`quick_init`: a frozen dataclass's __init__ that stores its fields in one go.

A frozen dataclass forbids `self.x = ...`, so the __init__ dataclasses writes
sets every field through `object.__setattr__`, about twice the cost of
building the object otherwise; the engine makes ~50 events, actions and
contexts per game. This __init__ takes the same parameters (names, order,
defaults) and writes the instance's `__dict__` directly: the same object,
still frozen (tests/rules/test_quick_init.py).
"""

from __future__ import annotations

import dataclasses
from typing import Any


def quick_init(cls: type) -> type:
    """Give `cls`, a frozen dataclass without __post_init__ or default factories, the fast __init__."""
    if not (dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen):  # type: ignore[attr-defined]
        raise TypeError(f"{cls.__name__} is not a frozen dataclass")
    if hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__} has a __post_init__: its __init__ must stay the dataclass's")
    params, stores, defaults = [], [], {}
    for f in dataclasses.fields(cls):
        if not f.init or f.default_factory is not dataclasses.MISSING:
            raise TypeError(f"{cls.__name__}.{f.name}: only plain fields and plain defaults")
        if f.default is dataclasses.MISSING:
            params.append(f.name)
        else:
            defaults[f"_default_{f.name}"] = f.default
            params.append(f"{f.name}=_default_{f.name}")
        stores.append(f"d[{f.name!r}] = {f.name}")
    source = (f"def __init__(self{''.join(', ' + p for p in params)}):\n"
              f"    d = self.__dict__\n" + "".join(f"    {s}\n" for s in stores))
    namespace: dict[str, Any] = {}
    exec(source, defaults, namespace)  # as dataclasses builds its own __init__
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    cls.__init__ = init  # type: ignore[method-assign]
    return cls
