"""Token fingerprints of submissions, compared pair by pair as MOSS does (winnowing). Flags, not verdicts.

A submission's source becomes a list of normalised tokens, each with the
line it is on:

* Python, by the standard `tokenize`: every name that is not a keyword is
  `V` (so renaming, even differently in each function, changes nothing),
  numbers `N`, strings `S`; comments, docstrings, blank lines and the
  layout of a line are left out, indentation kept as `{` and `}`;
* C and C++, by a small tokenizer of our own: comments and preprocessor
  lines left out, identifiers that are not keywords `V`, numbers `N`,
  strings and characters `S`, punctuation as it is.

Each run of K tokens (a k-gram) is hashed, and winnowing keeps the smallest
hash of every window of W consecutive k-grams (Schleimer, Wilkerson and
Aiken, 2003): any run of at least K + W - 1 tokens two files share gives
them a fingerprint in common, wherever it lies in each file, so reordered
functions still match. A pair's percentage is the share of the smaller
side's fingerprints found in the other (so dead code added to a copy does
not dilute it). The matched fingerprints give the lines to highlight.

Reading is hostile input: a file is read only up to MAX_SOURCE_BYTES (a
bigger one is left out, and said), and the parse runs in a child process
under a memory limit and a time limit (`fingerprint_all`), so a file built
to exhaust the tokenizer costs that child only.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import keyword
import re
import subprocess
import sys
import tokenize
from collections.abc import Iterable, Sequence
from itertools import combinations
from pathlib import Path

from treasure_cli.grading.normalise import CodePrint, code_print
from treasure_cli.sandbox.limited import run_limited

K = 12                 # tokens in a k-gram
WINDOW = 6             # k-grams in a winnowing window: a match of K + WINDOW - 1 = 17 tokens is always seen
THRESHOLD = 0.50       # a pair at or above this share of fingerprints is flagged
MIN_FINGERPRINTS = 12  # a side with fewer says too little (an empty or tiny agent)
MAX_SOURCE_BYTES = 256 * 1024  # read no more of a file; a bigger one is left out
MAX_FILES = 64         # Python/C/C++ files of one submission (a folder)
CHILD_MEMORY = 512 << 20  # address space of the child that parses
CHILD_SECONDS = 60.0

PYTHON = (".py",)
C_LIKE = (".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".hxx")


@dataclasses.dataclass(frozen=True)
class Token:
    text: str
    line: int   # 1-based, in its file
    file: int   # index in the submission's files


# -- tokenizers -------------------------------------------------------------------
def python_tokens(text: str, file: int = 0) -> list[Token]:
    """Python source as normalised tokens (see the module docstring); ValueError if it does not tokenize."""
    out: list[Token] = []
    start_of_line = True  # a string first on its logical line is a docstring (or dead text): left out
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            kind, value, line = tok.type, tok.string, tok.start[0]
            if kind in (tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER):
                continue
            if kind == tokenize.NEWLINE:
                start_of_line = True
                out.append(Token(";", line, file))
                continue
            if kind == tokenize.INDENT:
                out.append(Token("{", line, file))
                continue
            if kind == tokenize.DEDENT:
                out.append(Token("}", line, file))
                continue
            if kind == tokenize.STRING or kind in _FSTRING_KINDS:
                if start_of_line:
                    continue
                if out and out[-1].text == "S":  # adjacent strings are one
                    continue
                out.append(Token("S", line, file))
                continue
            start_of_line = False
            if kind == tokenize.NAME:
                out.append(Token(value if keyword.iskeyword(value) else "V", line, file))
            elif kind == tokenize.NUMBER:
                out.append(Token("N", line, file))
            else:
                out.append(Token(value, line, file))
    except (tokenize.TokenError, IndentationError, SyntaxError) as exc:
        raise ValueError(f"not Python that tokenizes: {exc}") from None
    # a docstring's NEWLINE is left alone: drop the ';' of lines that held only left-out text
    return [t for i, t in enumerate(out) if not (t.text == ";" and (i == 0 or out[i - 1].text in (";", "{", "}")))]


_FSTRING_KINDS = {getattr(tokenize, name) for name in ("FSTRING_START", "FSTRING_MIDDLE", "FSTRING_END")
                  if hasattr(tokenize, name)}

C_KEYWORDS = frozenset("""
alignas alignof and asm auto bool break case catch char class const constexpr const_cast continue decltype
default delete do double dynamic_cast else enum explicit extern false float for friend goto if inline int long
mutable namespace new noexcept not nullptr operator or private protected public register reinterpret_cast
return short signed sizeof static static_assert static_cast struct switch template this throw true try typedef
typeid typename union unsigned using virtual void volatile while
""".split())
_C_TOKEN = re.compile(r"""
    (?P<space>[ \t\r\f\v]+) | (?P<newline>\n)
  | (?P<comment>//[^\n]*|/\*.*?(?:\*/|\Z))
  | (?P<raw>(?:u8|[uUL])?R"(?P<delim>[^()\\ \n"]{0,16})\()
  | (?P<string>(?:u8|[uUL])?"(?:\\.|[^"\\\n])*"?|(?:u8|[uUL])?'(?:\\.|[^'\\\n])*'?)
  | (?P<number>\.?[0-9](?:[eEpP][+-]|[0-9A-Za-z_.'])*)
  | (?P<name>[A-Za-z_][A-Za-z_0-9]*)
  | (?P<punct>::|->\*?|\+\+|--|<<=?|>>=?|<=>|[<>!=+\-*/%&|^]=|&&|\|\||\.\.\.|\.\*|[{}()\[\];,.?:~!<>=+\-*/%&|^#@$\\`])
""", re.S | re.X)


def c_tokens(text: str, file: int = 0) -> list[Token]:
    """C or C++ source as normalised tokens: comments and preprocessor lines left out."""
    out: list[Token] = []
    line, pos, at_line_start = 1, 0, True
    n = len(text)
    while pos < n:
        m = _C_TOKEN.match(text, pos)
        if m is None:  # a character no token starts with: skip it
            pos += 1
            continue
        kind, value = m.lastgroup, m.group()
        if kind in ("raw", "delim"):  # a raw string runs to its )delim" (or the end): found once, not by backtracking
            close = text.find(")" + (m.group("delim") or "") + '"', m.end())
            end = n if close < 0 else close + len(m.group("delim") or "") + 2
            out.append(Token("S", line, file))
            line += text.count("\n", pos, end)
            pos = end
            at_line_start = False
            continue
        if kind == "punct" and value == "#" and at_line_start:  # a preprocessor line, with its continuations
            end = pos
            while True:
                end = text.find("\n", end)
                if end < 0 or text[end - 1] != "\\":
                    break
                end += 1
            end = n if end < 0 else end
            line += text.count("\n", pos, end)
            pos = end
            continue
        if kind == "newline":
            at_line_start = True
        elif kind != "space" and kind != "comment":
            at_line_start = False
            if kind == "name":
                out.append(Token(value if value in C_KEYWORDS else "V", line, file))
            elif kind == "number":
                out.append(Token("N", line, file))
            elif kind == "string":
                out.append(Token("S", line, file))
            else:
                out.append(Token(value, line, file))
        line += value.count("\n")
        pos = m.end()
    return out


# -- winnowing --------------------------------------------------------------------
def _hash(texts: Sequence[str]) -> int:
    return int.from_bytes(hashlib.blake2b("\x1f".join(texts).encode(), digest_size=8).digest(), "big")


def fingerprints(tokens: Sequence[Token], k: int = K, window: int = WINDOW) -> dict[int, list[int]]:
    """The winnowed fingerprints: hash -> the token positions of the k-grams that gave it."""
    texts = [t.text for t in tokens]
    hashes = [_hash(texts[i:i + k]) for i in range(len(texts) - k + 1)]
    chosen: dict[int, list[int]] = {}
    if not hashes:
        return chosen
    last = -1
    for start in range(max(1, len(hashes) - window + 1)):
        block = hashes[start:start + window]
        low = min(block)
        at = start + max(i for i, h in enumerate(block) if h == low)  # the rightmost smallest
        if at != last:
            chosen.setdefault(hashes[at], []).append(at)
            last = at
    return chosen


@dataclasses.dataclass(frozen=True)
class Prints:
    """One submission's files, tokens' lines and fingerprints (or why it has none)."""

    files: tuple[str, ...] = ()       # the files read, relative to the submission
    lines: tuple[tuple[int, int], ...] = ()  # per token: (file, line)
    prints: dict[int, list[int]] = dataclasses.field(default_factory=dict)
    note: str = ""                    # why it is not compared

    def to_json(self) -> dict:
        return {"files": list(self.files), "lines": [list(x) for x in self.lines],
                "prints": {str(h): at for h, at in self.prints.items()}, "note": self.note}

    @classmethod
    def from_json(cls, data: dict) -> Prints:
        return cls(tuple(data["files"]), tuple((int(f), int(n)) for f, n in data["lines"]),
                   {int(h): [int(a) for a in at] for h, at in data["prints"].items()}, str(data["note"]))


def source_files(path: Path) -> list[Path]:
    """The files of a submission that are compared: a file, or a folder's Python and C/C++ files."""
    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.is_file() and not p.is_symlink()
                       and p.suffix.lower() in PYTHON + C_LIKE)
        return files[:MAX_FILES]
    return [path]


def read_capped(path: Path) -> str | None:
    """A file's text, read no further than MAX_SOURCE_BYTES (None: it is bigger)."""
    with open(path, "rb") as f:
        data = f.read(MAX_SOURCE_BYTES + 1)
    if len(data) > MAX_SOURCE_BYTES:
        return None
    return data.decode("utf-8", errors="replace")


def submission_prints(path: str | Path) -> Prints:
    """A submission's fingerprints, parsed in this process (`fingerprint_all` runs this in a child)."""
    root = Path(path)
    tokens: list[Token] = []
    names: list[str] = []
    for path_ in source_files(root):
        suffix = path_.suffix.lower()
        if suffix not in PYTHON + C_LIKE:  # a program given as it is: a Python script, or not compared
            head = read_capped(path_) or ""
            if not (head.startswith("#!") and "python" in head.split("\n", 1)[0]):
                return Prints(note=f"{path_.name} is not a Python, C or C++ source")
            suffix = ".py"
        text = read_capped(path_)
        if text is None:
            return Prints(note=f"{path_.name} is over {MAX_SOURCE_BYTES >> 10} KiB: not compared")
        index = len(names)
        names.append(str(path_.relative_to(root)) if root.is_dir() else path_.name)
        try:
            tokens += python_tokens(text, index) if suffix in PYTHON else c_tokens(text, index)
        except ValueError as exc:
            return Prints(note=f"{path_.name}: {exc}")
    return Prints(tuple(names), tuple((t.file, t.line) for t in tokens), fingerprints(tokens))


# -- in a child process -------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Parsed:
    """What the child made of one submission: its token fingerprints and its normalised code's print."""

    prints: Prints
    code: CodePrint


def parse_all(paths: dict[str, Path]) -> dict[str, Parsed]:
    """Every submission parsed in one child process under CHILD_MEMORY of address space and
    CHILD_SECONDS: its token fingerprints, and its syntax tree's print (grading/normalise.py),
    each file read only up to MAX_SOURCE_BYTES. A submission the child could not do gets notes."""
    if not paths:
        return {}
    request = json.dumps({name: str(p) for name, p in paths.items()})

    def failed(why: str) -> dict[str, Parsed]:
        return {name: Parsed(Prints(note=why), CodePrint(_streamed_digest(p), why + ": exact bytes only"))
                for name, p in paths.items()}

    try:
        done = run_limited([sys.executable, "-m", "treasure_cli.grading.tokens"], request, CHILD_MEMORY, CHILD_SECONDS)
    except subprocess.TimeoutExpired:
        why = f"the parse took over {CHILD_SECONDS:g} s"
    else:
        if done.returncode == 0:
            data = json.loads(done.stdout)
            return {name: Parsed(Prints.from_json(data[name]["tokens"]), CodePrint(*data[name]["code"]))
                    for name in paths}
        why = ("the parse ran out of memory" if "MemoryError" in done.stderr
               else f"the parse failed (exit status {done.returncode})")
    if len(paths) > 1:  # one submission spoilt the lot: each in a child of its own, so only it is left out
        out: dict[str, Parsed] = {}
        for name, path in paths.items():
            out.update(parse_all({name: path}))
        return out
    return failed(why)


def fingerprint_all(paths: dict[str, Path]) -> dict[str, Prints]:
    """`parse_all`'s token fingerprints only."""
    return {name: parsed.prints for name, parsed in parse_all(paths).items()}


def _streamed_digest(path: Path) -> str:
    """A file's (or a folder's files') bytes digest, read in pieces: whatever their size."""
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    digests = []
    for f in files:
        if not f.is_file():  # a pipe or a device: opening it could wait forever
            continue
        h = hashlib.sha256()
        try:
            with open(f, "rb") as stream:
                for piece in iter(lambda: stream.read(1 << 20), b""):
                    h.update(piece)
        except OSError:
            continue
        digests.append(h.digest())
    return "bytes:" + hashlib.sha256(b"".join(sorted(digests))).hexdigest()[:16]


def _capped_code_print(path: Path) -> CodePrint:
    """`code_print`, on a submission none of whose files is over MAX_SOURCE_BYTES (else its bytes)."""
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    big = next((f for f in files if f.stat().st_size > MAX_SOURCE_BYTES), None)
    if big is not None:
        return CodePrint(_streamed_digest(path), f"{big.name} is over {MAX_SOURCE_BYTES >> 10} KiB: exact bytes only")
    return code_print(path)


def _child() -> None:  # pragma: no cover  (the child's main; its parse is tested through parse_all)
    names = json.loads(sys.stdin.read())
    out = {}
    for name, path in names.items():
        try:
            prints = submission_prints(path)
        except (OSError, RecursionError, MemoryError) as exc:
            prints = Prints(note=f"could not be read: {type(exc).__name__}")
        try:
            code = _capped_code_print(Path(path))
        except (OSError, MemoryError) as exc:
            code = CodePrint("bytes:unread", f"could not be read: {type(exc).__name__}")
        out[name] = {"tokens": prints.to_json(), "code": [code.digest, code.note]}
    sys.stdout.write(json.dumps(out))


# -- pairs ---------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Match:
    """Two submissions' shared fingerprints."""

    a: str
    b: str
    share: float                    # of the smaller side's fingerprints, found in the other
    a_lines: tuple[tuple[int, int], ...]  # (file, line) of a's tokens in shared k-grams
    b_lines: tuple[tuple[int, int], ...]

    @property
    def percent(self) -> float:
        return 100 * self.share


@dataclasses.dataclass(frozen=True)
class SimilarPair:
    """A flagged pair as its side-by-side page shows it: the two submissions and their matched lines."""

    a: str
    b: str
    percent: float
    a_root: str                      # the submission (a file or a folder)
    b_root: str
    a_files: tuple[str, ...]         # its files, relative to it (a file: its name)
    b_files: tuple[str, ...]
    a_lines: tuple[tuple[int, int], ...]  # (file index, line) matched
    b_lines: tuple[tuple[int, int], ...]


def compare(a: str, pa: Prints, b: str, pb: Prints, k: int = K) -> Match | None:
    """The pair's match (None when either side has too few fingerprints to say anything)."""
    if min(len(pa.prints), len(pb.prints)) < MIN_FINGERPRINTS:
        return None
    common = pa.prints.keys() & pb.prints.keys()
    share = len(common) / min(len(pa.prints), len(pb.prints))

    def lines(p: Prints) -> tuple[tuple[int, int], ...]:
        seen = {p.lines[i] for h in common for at in p.prints[h] for i in range(at, min(at + k, len(p.lines)))}
        return tuple(sorted(seen))

    return Match(a, b, share, lines(pa), lines(pb))


def matches(prints: dict[str, Prints], skip: Iterable[frozenset[str]] = ()) -> list[Match]:
    """Every pair of submissions compared, highest share first (pairs in `skip` left out)."""
    left_out = set(skip)
    found = []
    for a, b in combinations(sorted(prints), 2):
        if frozenset((a, b)) in left_out:
            continue
        m = compare(a, prints[a], b, prints[b])
        if m is not None:
            found.append(m)
    return sorted(found, key=lambda m: (-m.share, m.a, m.b))


if __name__ == "__main__":  # pragma: no cover
    _child()
