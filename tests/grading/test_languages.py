"""Groups in other languages than Python and C++ (sandbox/languages.py's table): Node.js and Java,
found in a class's folder, built in the sandbox where they need a build, and played as the
tournament plays every group, at process and sandbox level."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import ROOT, verdicts, refuse_jail

from treasure_cli.cli import cli
from treasure_cli.sandbox import levels

SANDBOX = levels.bwrap_works()
NODE = shutil.which("node") is not None
JAVA = shutil.which("java") is not None and shutil.which("javac") is not None

# A Node.js agent that speaks the protocol (docs/agent-protocol.md) and scans every turn; it needs
# a module and a data file of its folder, as it would at home.
NODE_AGENT = """const readline = require("readline");
const { answer } = require("./reply");
const name = require("fs").readFileSync("name.txt", "utf8").trim();
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const reply = answer(JSON.parse(line), name);
  if (reply) process.stdout.write(JSON.stringify(reply) + "\\n");
});
"""
NODE_REPLY = """exports.answer = (m, name) => {
  if (m.type === "hello") return { type: "hello", protocol: 1, agent: name };
  if (m.type === "act") return { type: "action", action: "scan" };
  if (m.type === "end") return { type: "ready" };
  if (m.type === "bye") process.exit(0);
  return null;
};
"""
# A Java agent in two packages under src/: the class with main is found, and built with the other.
JAVA_MAIN = """package bot;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import util.Replies;

public class Main {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            String reply = Replies.answer(Replies.type(line));
            if (reply == null) continue;
            if (reply.equals("bye")) return;
            System.out.println(reply);
            System.out.flush();
        }
    }
}
"""
JAVA_REPLIES = """package util;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

public final class Replies {
    private static final Pattern TYPE = Pattern.compile("\\"type\\"\\\\s*:\\\\s*\\"(\\\\w+)\\"");

    public static String type(String line) {
        Matcher m = TYPE.matcher(line);
        return m.find() ? m.group(1) : "";
    }

    public static String answer(String type) {
        switch (type) {
            case "hello": return "{\\"type\\":\\"hello\\",\\"protocol\\":1,\\"agent\\":\\"java-scanner\\"}";
            case "act": return "{\\"type\\":\\"action\\",\\"action\\":\\"scan\\"}";
            case "end": return "{\\"type\\":\\"ready\\"}";
            case "bye": return "bye";
            default: return null;
        }
    }
}
"""


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def node_group(folder: Path, entry: str = "agent.js") -> Path:
    write(folder / "src" / entry, NODE_AGENT)
    write(folder / "src" / "reply.js", NODE_REPLY)
    write(folder / "src" / "name.txt", "node-scanner\n")
    return folder


def java_group(folder: Path) -> Path:
    write(folder / "TP" / "src" / "bot" / "Main.java", JAVA_MAIN)
    write(folder / "TP" / "src" / "util" / "Replies.java", JAVA_REPLIES)  # another package: built from src/
    return folder


def play(klass: Path, tmp_path: Path, level: str, memory: str = "1G") -> dict[str, list[dict[str, object]]]:
    shutil.copy(ROOT / "input" / "MAP_01.txt", tmp_path / "MAP_01.txt")
    done = CliRunner().invoke(cli, ["tournament", str(klass), "--maps", str(tmp_path / "MAP_01.txt"), "--games", "2",
                                    "--db", str(tmp_path / f"{level}.sqlite"), "--agent-isolation", level,
                                    "--agent-memory", memory, "--json"])
    assert done.exit_code == 0, done.output
    games: dict[str, list[dict[str, object]]] = {}
    for game in json.loads(done.output[done.output.index("{"):])["games"]:
        games.setdefault(str(game["agent"]), []).append(game)
    return games


@pytest.mark.skipif(not NODE, reason="node is not here (make test installs it)")
@pytest.mark.parametrize(("level", "memory"), [("process", "1G"), *[pytest.param("sandbox", m, marks=pytest.mark.skipif(
    not SANDBOX, reason="bubblewrap cannot run here")) for m in ("1G", "512M")]])
def test_a_node_group_plays_as_a_tournament_group_with_its_folder_beside_it(tmp_path, level, memory):
    klass = tmp_path / "class"
    node_group(klass / "g-node")
    write(klass / "g-manifest" / "agent.toml", 'entry = "src/bot.js"\nlanguage = "node"\n')
    node_group(klass / "g-manifest", "bot.js")
    assert verdicts(klass) == {"g-node": "node src/agent.js", "g-manifest": "node src/bot.js"}
    games = play(klass, tmp_path, level, memory)  # (V8 does not start under 800 MiB with its JIT)
    assert set(games) == {"g-node", "g-manifest"}
    for played in games.values():  # every game played to its end: the module and the data file were there
        assert len(played) == 2
        assert all(g["error"] is None and g["outcome"] in ("WIN", "LOSE") and int(str(g["turns"])) > 0
                   for g in played), played


@pytest.mark.skipif(not (JAVA and SANDBOX), reason="java/javac or bubblewrap is not here (Java is built in the sandbox)")
@pytest.mark.parametrize(("level", "memory"), [("process", "1G"), ("sandbox", "1G"), ("sandbox", "512M")])
def test_a_java_group_is_built_in_the_sandbox_and_plays_under_the_memory_limit(tmp_path, level, memory):
    klass = tmp_path / "class"
    java_group(klass / "g-java")
    assert verdicts(klass) == {"g-java": "java bot.Main (in TP/src)"}
    # under the address-space limit (a default JVM starts under neither), in a jail with no /proc
    games = play(klass, tmp_path, level, memory)
    assert len(games["g-java"]) == 2
    assert all(g["error"] is None and g["outcome"] in ("WIN", "LOSE") and int(str(g["turns"])) > 0
               for g in games["g-java"]), games


@pytest.mark.skipif(not (JAVA and SANDBOX), reason="java/javac or bubblewrap is not here (Java is built in the sandbox)")
def test_a_java_group_that_does_not_build_or_has_two_mains_has_its_verdict(tmp_path):
    klass = tmp_path / "class"
    write(klass / "g-broken" / "Main.java", "public class Main { public static void main(String[] a) { x = 1; } }\n")
    java_group(klass / "g-two")
    write(klass / "g-two" / "TP" / "src" / "Other.java", "class Other { public static void main(String[] a) {} }\n")
    write(klass / "g-chosen" / "agent.toml", 'entry = "TP/src/bot/Main.java"\nlanguage = "java"\nclass = "bot.Main"\n')
    java_group(klass / "g-chosen")
    write(klass / "g-chosen" / "TP" / "src" / "Other.java", "class Other { public static void main(String[] a) {} }\n")
    said = verdicts(klass)
    assert said["g-broken"].startswith("the build failed: ./Main.java:1: error: cannot find symbol"), said
    assert said["g-two"] == ("2 classes with main (Other, bot.Main); name the class to start with agent.toml: "
                             "language = \"java\", entry = \"Main.java\", class = \"Main\"")
    assert said["g-chosen"] == "java bot.Main (in TP/src)"


@pytest.mark.skipif(not (JAVA and NODE and SANDBOX), reason="java/javac, node or bubblewrap is not here")
def test_node_and_java_groups_play_in_a_sandbox_per_game_with_their_pipes_counted(tmp_path, monkeypatch):
    """Where the warm host cannot jail, each game is a sandbox of its own, the program run under
    sandbox/counted.py: Node.js's pipes and the JVM's sockets are within their budget there too."""
    refuse_jail(monkeypatch)
    klass = tmp_path / "class"
    node_group(klass / "g-node")
    java_group(klass / "g-java")
    games = play(klass, tmp_path, "sandbox")
    assert {agent: len(played) for agent, played in games.items()} == {"g-node": 2, "g-java": 2}
    for played in games.values():
        assert all(g["error"] is None and g["outcome"] in ("WIN", "LOSE") and int(str(g["turns"])) > 0
                   for g in played), played
