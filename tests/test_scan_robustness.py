"""The dataflow reaches a true fixpoint at any call depth, survives huge expressions, and reads
files written in grammar newer than the running interpreter (through LibCST)."""
from __future__ import annotations

import ast
import json
import shutil
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_scan_fixtures import markers

from leapp_codemod.scan import scan_project
from leapp_codemod.cli import main
from leapp_codemod.source.newer_grammar import downlevel

pytestmark = pytest.mark.slow  # `make test-fast` leaves this module out

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def write_app(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def call_chain(depth: int) -> str:
    """A pipeline whose only hazard sits `depth` calls below the entry, in alternating shapes
    (functions and methods) so no single call form carries it."""
    lines = ["import torch", ""]
    for i in range(depth):
        if i % 2:
            lines += [f"def hop{i}(x, flag=False):", f"    return Hop{i + 1}().run(x * 2)", ""]
            lines += [f"class Hop{i + 1}:", "    def run(self, x):", f"        return hop{i + 1}(x)", ""]
        else:
            lines += [f"def hop{i}(x, flag=False):", f"    return hop{i + 1}(x + 1)", ""]
    lines += [f"def hop{depth}(x, flag=False):", "    return x.norm().item()  # the hazard", ""]
    lines += ["class Policy:", "    def act(self, obs):", "        return hop0(obs)", ""]
    return "\n".join(lines)


@pytest.mark.parametrize("depth", [3, 13, 40])
def test_hazards_are_found_at_any_call_depth(tmp_path, depth):
    write_app(tmp_path, {"chain.py": call_chain(depth)})
    result = scan_project([str(tmp_path)], entry="chain:Policy.act")
    source = (tmp_path / "chain.py").read_text().splitlines()
    line = next(n for n, text in enumerate(source, 1) if "the hazard" in text)
    assert [(f.line, f.code) for f in result.findings] == [(line, "LCM101")]
    assert f"chain:hop{depth}" in result.reachable


@pytest.mark.parametrize("shape", ["sum", "condition", "call-argument"])
def test_two_thousand_term_expression_in_entry_mode(tmp_path, shape):
    terms = " + ".join(["obs"] * 2000)
    body = {
        "sum": f"        y = {terms}\n        if y.max() > 0:\n            return y\n",
        "condition": f"        if ({terms}).max() > 0:\n            return obs\n",
        "call-argument": f"        y = torch.tanh({terms})\n        if y.max() > 0:\n            return y\n",
    }[shape]
    write_app(tmp_path, {"big.py": f"import torch\nclass P:\n    def act(self, obs):\n{body}        return obs\n"})
    result = CliRunner().invoke(main, ["scan", str(tmp_path), "--entry", "big:P.act", "--format", "json"],
                                catch_exceptions=False)
    document = json.loads(result.stdout)
    assert document["errors"] == []
    branch_line = 4 if shape == "condition" else 5
    assert {(f["line"], f["code"]) for f in document["findings"]} == {(branch_line, "LCM201")}


def test_long_method_chain_takes_linear_time(tmp_path):
    """A builder chain (`Config(...).add(a).add(b)...`, as in torch.ao's backend configs) asks about
    each inner call from several places; answers are kept per question, so 10 links take a fraction
    of a second (the work used to grow ~3.5x per link: 8 links 2 s, 10 links 24 s, 12 over a minute)."""
    chain = "".join(f"\n        .add(make({i}))" for i in range(10))
    source = ("import torch\n\nclass Config:\n    def __init__(self, name):\n        self.items = []\n\n"
              "    def add(self, item):\n        self.items.append(item)\n        return self\n\n"
              f"def make(i):\n    return [i]\n\ndef build():\n    return (\n        Config('x'){chain}\n    )\n\n"
              "class Policy:\n    def act(self, obs):\n        cfg = build()\n        if obs.max() > 0:  # the hazard\n"
              "            return obs\n        return cfg\n")
    write_app(tmp_path, {"chain.py": source})
    line = next(n for n, text in enumerate(source.splitlines(), 1) if "the hazard" in text)
    started = time.monotonic()
    result = CliRunner().invoke(main, ["scan", str(tmp_path), "--all", "--no-cache", "--format", "json"],
                                catch_exceptions=False)
    assert time.monotonic() - started < 10
    document = json.loads(result.stdout)
    assert document["errors"] == []
    assert (line, "LCM201") in {(f["line"], f["code"]) for f in document["findings"]}



def test_attribute_built_from_itself_is_followed_once(tmp_path):
    """`self._code = self._replace(...)` where `_replace` returns `self._code` (torch._inductor's
    PartialRender): the resolver follows the value once instead of recursing until the recursion
    limit (which lost the function, or crashed three rules as internal errors)."""
    source = ("import torch\n\nclass Render:\n    def __init__(self, code):\n        self._code = code\n\n"
              "    def finalize(self, key):\n        self._code = self._replace(key, 'x')\n\n"
              "    def _replace(self, key, result):\n        if key not in self._code:\n            return self._code\n"
              "        return self._code.replace(key, result)\n\n"
              "    def code(self):\n        return self._code.strip().upper()\n")
    write_app(tmp_path, {"render.py": source})
    result = CliRunner().invoke(main, ["scan", str(tmp_path), "--all", "--no-cache", "--format", "json"],
                                catch_exceptions=False)
    assert json.loads(result.stdout)["errors"] == []

# --------------------------------------------------------------------------- newer grammar
def test_downlevel_keeps_every_line_and_drops_only_pep695_syntax():
    text = ("def f[T: (int, str)](x: T) -> T:\n    return x\ntype Alias[K] = list[K]\n"
            "class Box[T](Base):\n    def get[U](self, u: U) -> U:\n        return u\n")
    rewritten = downlevel(text)
    assert rewritten is not None
    assert len(rewritten.splitlines()) == len(text.splitlines())
    tree = ast.parse(rewritten)
    assert [type(n).__name__ for n in tree.body] == ["FunctionDef", "Assign", "ClassDef"]
    assert ast.unparse(tree.body[1]) == "Alias = list[K]"
    assert [ast.unparse(b) for b in tree.body[2].bases] == ["Base"]


def test_downlevel_declines_text_without_newer_syntax_or_too_deeply_nested():
    assert downlevel("def f(x):\n    return x[\n") is None
    assert downlevel("type X = " + "(" * 300 + "1" + ")" * 300 + "\n") is None


def test_newer_grammar_app_is_analyzed(tmp_path, monkeypatch):
    app = tmp_path / "app_copy"
    shutil.copytree(FIXTURES / "newer_grammar", app)
    with pytest.raises(SyntaxError):  # the interpreter running the tests cannot read it
        compile((app / "app" / "filters.py").read_text(), "filters.py", "exec")
    expected, clean = markers(app)
    monkeypatch.chdir(app)
    result = CliRunner().invoke(main, ["scan", ".", "--entry", "app.policy:JointPolicy.act", "--format", "json"],
                                catch_exceptions=False)
    document = json.loads(result.stdout)
    assert document["errors"] == []
    assert document["files_analyzed"] == 4
    got = {(f["path"], f["line"], f["category"]) for f in document["findings"]}
    assert got == expected
    assert not {(p, n) for p, n, _ in got} & clean


def test_two_thousand_term_expressions_anywhere_with_a_discovered_entry(tmp_path):
    """Huge expressions outside the pipeline (a module constant, an offline helper, long boolean and
    comparison chains) neither stop the scan nor hide the pipeline's own finding."""
    terms = " + ".join(["x"] * 2000)
    source = (f"import torch\nTABLE = {terms.replace('x', '1')}\n\n"
              f"def offline(x):\n    return {terms}\n\n"
              f"def check(x):\n    return ({' and '.join(['x'] * 2000)}) or ({' < '.join(['x'] * 2000)})\n\n"
              "class P:\n    def act(self, obs):\n        y = offline(obs)\n        if y.max() > 0:  # the hazard\n"
              "            return obs\n        return obs\n\n"
              "def main(frames):\n    p = P()\n    for obs in frames:\n        p.act(obs)\n")
    write_app(tmp_path, {"mod.py": source})
    line = next(n for n, text in enumerate(source.splitlines(), 1) if "the hazard" in text)
    check_line = next(n for n, text in enumerate(source.splitlines(), 1) if text.startswith("def check")) + 1
    # `--all` scans `check` too, with its parameter as data: its `x and x ...` turns a tensor into a bool
    for args, expected in ((["scan", str(tmp_path)], [(line, "LCM201")]),
                           (["scan", str(tmp_path), "--all"], [(check_line, "LCM202"), (line, "LCM201")])):
        result = CliRunner().invoke(main, [*args, "--format", "json"], catch_exceptions=False)
        document = json.loads(result.stdout)
        assert document["errors"] == []
        assert [(f["line"], f["code"]) for f in document["findings"]] == expected
