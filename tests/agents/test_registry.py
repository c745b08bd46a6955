"""Agent specs: built-in names, module:Class, file.py:Class, plugins; and what a bad spec says."""

from __future__ import annotations

import textwrap

import pytest
from helpers import ROOT

from treasure_cli.agents import registry
from treasure_cli.agents.registry import agent_names, resolve
from treasure_cli.errors import AgentLoadError

AGENT_SOURCE = textwrap.dedent("""
    from treasure_cli import LargeScan

    class Scanner:
        def act(self, obs):
            return LargeScan()

    def make():
        return Scanner()

    NOT_CALLABLE = 3

    class NoAct:
        pass
""")


@pytest.fixture(autouse=True)
def fresh_cache():
    resolve.cache_clear()
    yield
    resolve.cache_clear()


def test_builtin_names_resolve_to_agents():
    for name in ("logic", "greedy", "random", "oracle", "logic-no-race"):
        agent = resolve(name).build()
        assert callable(agent.act)
    assert resolve("oracle").sees_hint_truths and not resolve("logic").sees_hint_truths
    assert resolve("logic-no-race").build().features.race is False


def test_the_agents_before_planning_keep_names_of_their_own():
    """Issue 44: `logic` plans; the rules it replaced stay playable to compare with."""
    assert type(resolve("logic").build()).__name__ == "PlanningAgent"
    assert type(resolve("oracle").build()).__name__ == "PlanningAgent"
    assert type(resolve("logic-greedy").build()).__name__ == "LogicAgent"
    assert type(resolve("oracle-greedy").build()).__name__ == "LogicAgent"
    assert resolve("oracle-greedy").sees_hint_truths and not resolve("logic-greedy").sees_hint_truths


def test_a_file_spec_loads_the_class_or_a_factory(tmp_path):
    path = tmp_path / "my agents" / "scan.py"
    path.parent.mkdir()
    path.write_text(AGENT_SOURCE)
    for attr in ("Scanner", "make"):
        spec = resolve(f"{path}:{attr}")
        assert spec.spec == f"{path}:{attr}"
        assert type(spec.build()).__name__ == "Scanner"


def test_a_module_spec_imports_from_the_path(tmp_path, monkeypatch):
    (tmp_path / "student_pkg").mkdir()
    (tmp_path / "student_pkg" / "__init__.py").write_text("")
    (tmp_path / "student_pkg" / "agents.py").write_text(AGENT_SOURCE)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert type(resolve("student_pkg.agents:Scanner").build()).__name__ == "Scanner"


def test_an_installed_plugin_is_found_by_its_entry_point(tmp_path, monkeypatch):
    (tmp_path / "plugin_agents.py").write_text(AGENT_SOURCE)
    info = tmp_path / "plugin_agents-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: plugin-agents\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[treasure_cli.agents]\nscanner = plugin_agents:Scanner\n"
                                           "logic = plugin_agents:Scanner\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert "scanner" in agent_names()
    assert type(resolve("scanner").build()).__name__ == "Scanner"
    assert type(resolve("logic").build()).__name__ == "PlanningAgent"  # a built-in name wins


@pytest.mark.parametrize(("spec", "message"), [
    ("nope", "unknown agent 'nope'; give a built-in name"),
    ("{dir}/missing.py:Scanner", "no such file"),
    ("{dir}/agent.py:Missing", "has no 'Missing'"),
    ("{dir}/agent.py:NOT_CALLABLE", "is not a class or a function"),
    ("{dir}/agent.py:not a name", "is not a Python name"),
    ("{dir}/broken.py:Scanner", "loading '{dir}/broken.py' raised ZeroDivisionError"),
    ("no_such_module_here:Agent", "cannot import 'no_such_module_here'"),
    ("", "empty"),
])
def test_a_bad_spec_says_what_is_wrong(tmp_path, spec, message):
    (tmp_path / "agent.py").write_text(AGENT_SOURCE)
    (tmp_path / "broken.py").write_text("1 / 0\n")
    with pytest.raises(AgentLoadError) as info:
        resolve(spec.format(dir=tmp_path))
    assert message.format(dir=tmp_path) in str(info.value)


def test_an_object_without_act_is_refused_when_built(tmp_path):
    (tmp_path / "agent.py").write_text(AGENT_SOURCE)
    with pytest.raises(AgentLoadError, match="NoAct has no act"):
        resolve(f"{tmp_path}/agent.py:NoAct").build()


def test_the_registry_imports_no_agent_until_asked():
    import subprocess
    import sys

    code = ("import sys; from treasure_cli.agents import registry; from treasure_cli.cli import cli; "
            "print('numpy' in sys.modules, 'treasure_cli.agents.logic' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]
    assert registry.PLUGIN_GROUP == "treasure_cli.agents"


# -- a misspelt class: found before any game, once, with a "did you mean" ---------------------
def test_a_misspelt_class_is_refused_with_did_you_mean(tmp_path):
    from treasure_cli.agents.registry import check_spec
    from treasure_cli.errors import AgentLoadError

    agent = tmp_path / "student_agent.py"
    agent.write_text("class StudentAgent:\n    def act(self, obs):\n        pass\n\n\ndef helper():\n    pass\n")
    with pytest.raises(AgentLoadError, match=r"has no 'StudentAgnt'; did you mean .*student_agent.py:StudentAgent\?"):
        check_spec(f"{agent}:StudentAgnt")
    with pytest.raises(AgentLoadError, match="has no 'Zebra'; it defines StudentAgent, helper"):
        check_spec(f"{agent}:Zebra")
    with pytest.raises(AgentLoadError, match=r"did you mean treasure_cli.agents.greedy:GreedyAgent\?"):
        check_spec("treasure_cli.agents.greedy:GredyAgent")
    assert check_spec(f"{agent}:StudentAgent") == f"{agent}:StudentAgent"


@pytest.mark.parametrize("source", [
    "from somewhere import Clever as Agent\n",
    "def make():\n    pass\n\nAgent = make\n",
    "from somewhere import *\n",
    "def __getattr__(name):\n    pass\n",
    "if True:\n    class Agent:\n        pass\n",
    "class broken(:\n",  # left to its loading, which says where
])
def test_names_bound_otherwise_are_not_refused(tmp_path, source):
    from treasure_cli.agents.registry import check_spec

    agent = tmp_path / "a.py"
    agent.write_text(source)
    assert check_spec(f"{agent}:Agent") == f"{agent}:Agent"


def test_run_refuses_a_misspelt_class_once_before_any_map(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from treasure_cli.cli import cli

    (tmp_path / "maps").mkdir()
    for name in ("MAP_01.txt", "MAP_02.txt"):
        (tmp_path / "maps" / name).write_text((ROOT / "input" / name).read_text())
    (tmp_path / "agent.py").write_text("class StudentAgent:\n    def act(self, obs):\n        pass\n")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["run", "maps/", "out/", "--agent", "agent.py:StudentAgnt"])
    assert result.exit_code == 2
    assert result.output.count("did you mean agent.py:StudentAgent?") == 1, result.output
    assert not (tmp_path / "out").exists()


def test_a_file_agent_given_by_a_relative_path_finds_its_data_file_beside_it(tmp_path, monkeypatch):
    """In this process (`--agent-isolation none`, a pool's worker) the agent's code runs in its own
    folder; its `__file__` must still lead to the files beside it, as at home."""
    from treasure_cli.agents.registry import load_source

    group = tmp_path / "class" / "g1" / "TP"
    group.mkdir(parents=True)
    (group / "weights.json").write_text('{"w": 3}')
    source = (b"import json, os\n"
              b"W = json.load(open(os.path.join(os.path.dirname(__file__), 'weights.json')))['w']\n\n\n"
              b"class Agent:\n    def act(self, obs):\n        return W\n")
    (group / "agent.py").write_bytes(source)
    monkeypatch.chdir(tmp_path)
    spec = load_source("class/g1/TP/agent.py:Agent", source)
    assert spec.factory().act(None) == 3
