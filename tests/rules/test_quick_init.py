"""`quick_init` builds the very objects the dataclass __init__ would: same fields, defaults,
equality, hash and repr, still frozen; and it refuses classes it cannot serve."""

from __future__ import annotations

import dataclasses
import pickle
import typing

import pytest
from hypothesis import given
from hypothesis import strategies as st

from treasure_cli.rules import actions, events, hint_kinds
from treasure_cli.rules.quick_init import quick_init

CLASSES = [cls for module in (events, actions) for cls in vars(module).values()
           if isinstance(cls, type) and dataclasses.is_dataclass(cls) and cls.__module__ == module.__name__]
CLASSES.append(hint_kinds.HintContext)


def _twin(cls: type) -> type:
    """The same dataclass with the __init__ dataclasses writes."""
    fields = [(f.name, f.type, dataclasses.field(default=f.default)) if f.default is not dataclasses.MISSING
              else (f.name, f.type) for f in dataclasses.fields(cls)]
    return dataclasses.make_dataclass(cls.__name__, fields, frozen=True)


def test_every_event_and_action_class_has_it():
    assert len(CLASSES) >= 20
    for cls in CLASSES:
        code = cls.__init__.__code__  # the dataclass's own __init__ sets fields through object.__setattr__
        assert "__dict__" in code.co_names and "__setattr__" not in code.co_names, cls
        assert "__setattr__" in _twin(cls).__init__.__code__.co_names or not dataclasses.fields(cls)


@given(data=st.data())
def test_the_same_object_as_the_dataclass_init(data):
    cls = data.draw(st.sampled_from(CLASSES))
    twin = _twin(cls)
    fields = dataclasses.fields(cls)
    values = [data.draw(st.integers() | st.text(max_size=3) | st.tuples(st.integers(), st.integers())) for _ in fields]
    required = sum(f.default is dataclasses.MISSING for f in fields)
    n = data.draw(st.integers(required, len(fields)))  # the rest from their defaults
    by_keyword = data.draw(st.booleans())
    if by_keyword:
        kwargs = {f.name: v for f, v in zip(fields[:n], values[:n])}
        ours, theirs = cls(**kwargs), twin(**kwargs)
    else:
        ours, theirs = cls(*values[:n]), twin(*values[:n])
    assert vars(ours) == vars(theirs)
    assert dataclasses.astuple(ours) == dataclasses.astuple(theirs)
    assert repr(ours).split("(", 1)[1] == repr(theirs).split("(", 1)[1]
    assert ours == cls(*dataclasses.astuple(ours)) and hash(ours) == hash(cls(*dataclasses.astuple(ours)))
    assert pickle.loads(pickle.dumps(ours)) == ours
    if fields:
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(ours, fields[0].name, 1)
    with pytest.raises(TypeError):
        cls(*values, 0)  # one argument too many


def test_it_refuses_what_it_cannot_serve():
    @dataclasses.dataclass
    class Mutable:
        x: int

    @dataclasses.dataclass(frozen=True)
    class Checked:
        x: int

        def __post_init__(self):
            pass

    @dataclasses.dataclass(frozen=True)
    class Factory:
        x: list = dataclasses.field(default_factory=list)

    for cls in (Mutable, Checked, Factory, int):
        with pytest.raises(TypeError):
            quick_init(cls)


def test_public_view_s_shortcut_keeps_every_type_s_rule():
    """public_view returns most events unchanged by a set lookup on their exact type: the set
    must hold every event type but those it hides or changes."""
    every = set(typing.get_args(events.Event))
    hidden = {events.TreasureHidden, events.GameStarted, events.HintGiven, events.AgentNoted, events.AgentPrinted,
              events.GameFailed}  # the referee's record of a failure, written in the log only
    assert events._SHOWN_AS_IS == every - hidden
    assert events.public_view(events.AgentNoted(2, "mine")) is None  # an agent's note is nobody's news
    assert events.public_view(events.AgentPrinted(2, "debug")) is None  # nor what it printed
