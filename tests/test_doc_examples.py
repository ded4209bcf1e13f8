"""Every command example in README.md and docs/ is run, and every quoted output is compared, so a stale
example fails the suite.

A command block is a fenced block (no language, or console/sh/bash) whose lines are `cd DIR` or
`leapp-codemod ...` commands (an `ENV=value` prefix allowed, `\\` continuations joined). Synopsis blocks
(`[--option]`) and `pip`/`make` lines are documentation, not run here (`make demo` is checked against the
README's quick start below). A block that starts with `cd` starts a session in a fresh copy of the
repository's examples and fixtures; a block that does not continues the previous session. `/tmp/` paths
are rewritten into the session's scratch folder. `scan`, `lint`, `entrypoints` and `generate` run in this
process (tests/inprocess.py: what they print and return, without an interpreter's start-up); `run` and
`record` run in their own process, as users start them. A line whose comment says "needs CUDA" is run only where
torch sees a GPU. A fenced block right after `<!-- output -->` is the quoted output of the command before
it: each of its lines must appear, in order, in what the command printed, with every number masked
(a line ending in `...` or `…` matches any line that starts the same way). Sessions that run `run` or
`record` are marked e2e (they export real models).

A session that exports runs once per worker (`doc_session` in tests/conftest.py): the test of the same
behaviour elsewhere (the LSTM run of `fixtures/run_sb3`, ...) asserts on the same run's report instead of
exporting again, and `xdist_group(doc_group(...))` keeps both on one worker.
"""
from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import inprocess
import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
COPIED = ("examples", "fixtures", "pyproject.toml")
FENCE = re.compile(r"^(<!-- output -->\n)?```(\w*)\n(.*?)^```", re.S | re.M)
COMMAND = re.compile(r"^(?:[A-Z_][A-Z0-9_]*=\S+\s+)*(?:cd\s|leapp-codemod\s)")
NUMBER = re.compile(r"\d+(?:\.\d+)?(?:e[-+]?\d+)?")


@dataclass
class Step:
    line: int                      # in the document
    command: str
    expected: list[str] | None = None


@dataclass
class Session:
    doc: str
    line: int
    steps: list[Step] = field(default_factory=list)

    @property
    def expensive(self) -> bool:
        return any(re.search(r"leapp-codemod (run|record)\b", s.command) and "needs CUDA" not in s.command
                   for s in self.steps)

    @property
    def id(self) -> str:
        return f"{self.doc}:{self.line}"


def _commands(body: str) -> list[str] | None:
    """The commands of a block, or None when it is not a command block."""
    joined = re.sub(r"\\\n\s*", " ", body)
    lines = [line.strip() for line in joined.splitlines() if line.strip()]
    if not lines or any("[--" in line for line in lines):
        return None
    runnable = [line for line in lines if COMMAND.match(line)]
    rest = [line for line in lines if not COMMAND.match(line)]
    if not runnable or any(not re.match(r"(pip|make)\s", line) for line in rest):
        return None
    return runnable


def sessions(path: Path) -> list[Session]:
    text = path.read_text(encoding="utf-8")
    doc = path.relative_to(ROOT).as_posix()
    out: list[Session] = []
    for match in FENCE.finditer(text):
        line = text.count("\n", 0, match.start(2)) + 1
        quoted, lang, body = match.group(1), match.group(2), match.group(3)
        if quoted:
            if not out or not out[-1].steps:
                raise AssertionError(f"{doc}:{line}: quoted output with no command before it")
            out[-1].steps[-1].expected = body.splitlines()
            continue
        if lang not in ("", "console", "sh", "shell", "bash"):
            continue
        commands = _commands(body)
        if commands is None:
            continue
        if commands[0].startswith("cd ") or not out:
            out.append(Session(doc, line))
        out[-1].steps += [Step(line, command) for command in commands]
    return out


ALL = [s for doc in DOCS for s in sessions(doc)]


def masked(line: str) -> str:
    return NUMBER.sub("N", " ".join(line.split()))


def missing_lines(expected: list[str], actual: str) -> list[str]:
    """The quoted lines not found, in order, in `actual` (numbers masked; a trailing `...` is a prefix)."""
    lines = [masked(line) for line in actual.splitlines()]
    at, missing = 0, []
    for raw in expected:
        want = masked(raw)
        if not want:
            continue
        prefix = want[:-3].rstrip() if want.endswith("...") else want[:-1].rstrip() if want.endswith("…") else None
        found = next((i for i in range(at, len(lines))
                      if (lines[i].startswith(prefix) if prefix is not None else lines[i] == want)), None)
        if found is None:
            missing.append(raw)
        else:
            at = found + 1
    return missing


def _has_cuda() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()


@dataclass
class SessionRun:
    cwd: Path                                       # where the session's last `cd` left it
    scratch: Path                                   # what the commands' `/tmp/` paths became
    done: list[subprocess.CompletedProcess]         # each command run, in order
    commands: list[str] = field(default_factory=list)   # the command of each, as the document writes it

    def of(self, start: str) -> subprocess.CompletedProcess:
        """What the one command whose words start with those of `start` (as the document writes it) printed
        and returned."""
        words = start.split()
        (found,) = [done for command, done in zip(self.commands, self.done) if command.split()[:len(words)] == words]
        return found


def doc_group(session: Session) -> str:
    """The xdist group of an exporting session: the tests that share its run stay on one worker."""
    return f"doc session {session.doc}: {session.steps[0].command}"


def find_session(folder: str) -> Session:
    """The one README.md session that starts with `cd FOLDER`."""
    (found,) = [s for s in ALL if s.doc == "README.md" and s.steps[0].command == f"cd {folder}"]
    return found


def run_session(session: Session, tmp_path: Path) -> SessionRun:
    work = tmp_path / "repo"
    work.mkdir()
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, work / name, ignore=shutil.ignore_patterns("__pycache__", "leapp-out",
                                                                                "leapp_integration.py"))
        else:
            shutil.copy2(source, work / name)
    scratch = tmp_path / "abs"
    scratch.mkdir()
    cwd = work
    ran: list[subprocess.CompletedProcess] = []
    commands: list[str] = []
    tool = [sys.executable, "-m", "leapp_codemod"]
    for step in session.steps:
        command = step.command.replace("/tmp/", f"{scratch}/")
        comment = command.partition(" #")[2]
        if "needs CUDA" in comment and not _has_cuda():
            continue
        words = shlex.split(command, comments=True)
        env = {"NO_COLOR": "1"}
        while words and re.match(r"[A-Z_][A-Z0-9_]*=", words[0]):
            key, _, value = words.pop(0).partition("=")
            env[key] = value
        where = f"{session.doc}:{step.line}: `{step.command}`"
        if words[0] == "cd":
            cwd = (cwd / words[1]).resolve()
            assert cwd.is_dir(), f"{where}: no such folder"
            continue
        if words[1] in inprocess.IN_PROCESS:
            done = inprocess.cli(words[1:], cwd, env=env)
        else:
            done = subprocess.run(tool + words[1:], cwd=cwd, env=dict(os.environ, **env), capture_output=True,
                                  text=True, timeout=900)
        ran.append(done)
        commands.append(step.command)
        verdict_not_ok = (step.expected or [""])[0].startswith(("validated on a restricted domain", "failed", "partial"))
        allowed = (0, 1) if words[1] in ("scan", "lint") or verdict_not_ok else (0,)
        assert done.returncode in allowed, f"{where} exited {done.returncode}:\n{done.stderr[-3000:]}"
        if step.expected is not None:
            missing = missing_lines(step.expected, done.stdout + done.stderr)
            assert not missing, (f"{where}: the quoted output is stale; not printed (numbers masked):\n"
                                 + "\n".join(missing) + "\n--- printed:\n" + done.stdout + done.stderr)
    return SessionRun(cwd, scratch, ran, commands)


def test_the_docs_have_command_examples():
    assert len(ALL) >= 5
    assert any(step.expected for session in ALL for step in session.steps)


@pytest.mark.parametrize("session", [s for s in ALL if not s.expensive], ids=lambda s: s.id)
def test_command_example(session, tmp_path):
    run_session(session, tmp_path)


@pytest.mark.e2e
@pytest.mark.parametrize("session", [pytest.param(s, marks=pytest.mark.xdist_group(doc_group(s)))
                                     for s in ALL if s.expensive], ids=lambda s: s.id)
def test_command_example_that_exports(session, doc_session):
    assert doc_session(session).done


def test_a_changed_output_is_caught():
    printed = "validated: app exported with onnx; 3 fresh calls, max abs error 1.2e-07\nreport: out/report.json\n"
    assert missing_lines(["validated: app exported with onnx; 5 fresh calls, max abs error 9e-03"], printed) == []
    assert missing_lines(["validated: app exported with pt2; 3 fresh calls, max abs error 1.2e-07"], printed)
    assert missing_lines(["report: out/report.json", "validated: app ..."], printed)   # order matters
    assert missing_lines(["validated: app ..."], printed) == []


def test_make_demo_runs_exactly_the_quick_start():
    demo = (ROOT / "mk" / "demo.mk").read_text()
    variables = dict(re.findall(r"^(\w+) \?= (.+)$", demo, re.M))
    recipe = demo.split("\ndemo:\n", 1)[1].split("\n\n", 1)[0]
    commands: list[str] = []
    for line in recipe.splitlines():
        line = re.sub(r"\$\((\w+)\)", lambda m: variables.get(m.group(1), m.group(0)), line.strip())
        for part in line.split(" && "):
            part = part.replace(variables["LEAPP_CODEMOD"], "leapp-codemod")
            if part not in commands or not part.startswith("cd "):
                commands.append(part)
    quick = next(s for s in ALL if s.doc == "README.md" and s.steps[0].command == "cd examples/quickstart")
    assert commands == [step.command for step in quick.steps]
