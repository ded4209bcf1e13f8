"""Every rule's own `valid`/`invalid` examples, scanned end to end from their `step` entry."""
from __future__ import annotations

import ast

import pytest

from leapp_codemod.scan import scan_project
from leapp_codemod.model import Category, Severity
from leapp_codemod.rules import ALL_RULES

RULE_IDS = [rule.code for rule in ALL_RULES]
CATEGORIES = {c.value for c in Category}


def entry_for(snippet: str) -> str:
    """`snippet:step`, or `snippet:Cls.step` when `step` is a method of a class, or the statement range
    `snippet.py:START-END` a first line `# range: START-END` names (a pipeline inline in a loop)."""
    if snippet.startswith("# range: "):
        return "snippet.py:" + snippet.splitlines()[0].removeprefix("# range: ").strip()
    tree = ast.parse(snippet)
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and any(
                isinstance(item, ast.FunctionDef) and item.name == "step" for item in node.body):
            return f"snippet:{node.name}.step"
    assert any(isinstance(node, ast.FunctionDef) and node.name == "step" for node in tree.body), \
        "an example must define `step` (a function or a method)"
    return "snippet:step"


def entry_at(path, snippet: str) -> str:
    """`entry_for`, with an inline range's file given by its path."""
    entry = entry_for(snippet)
    return str(path.parent / entry) if entry.startswith("snippet.py:") else entry


def marked_lines(snippet: str) -> set[int]:
    return {number for number, line in enumerate(snippet.splitlines(), 1) if line.rstrip().endswith("# error")}


def scan_snippet(tmp_path, snippet: str):
    path = tmp_path / "snippet.py"
    path.write_text(snippet, encoding="utf-8")
    result = scan_project([str(path)], entry=entry_at(path, snippet))
    assert result.errors == [], result.errors
    assert result.files_analyzed == 1
    return result


def examples(kind: str):
    return [pytest.param(rule, i, snippet, id=f"{rule.code}-{kind}{i}")
            for rule in ALL_RULES for i, snippet in enumerate(getattr(rule, kind))]


@pytest.mark.parametrize("rule", ALL_RULES, ids=RULE_IDS)
def test_rule_has_examples_and_docs(rule):
    assert rule.valid, f"{rule.code} has no valid example"
    assert rule.invalid, f"{rule.code} has no invalid example"
    for snippet in rule.invalid:
        assert marked_lines(snippet), f"{rule.code}: an invalid example marks no line with `# error`"
    for snippet in rule.valid:
        assert not marked_lines(snippet), f"{rule.code}: a valid example marks a line with `# error`"
    for name in ("code", "name", "category", "severity", "summary", "what", "why", "fix", "example",
                 "fixed_example"):
        assert str(getattr(rule, name)).strip(), f"{rule.code}: `{name}` is empty"
    assert rule.category in CATEGORIES
    assert rule.severity in {s.value for s in Severity}
    assert rule.node_types and callable(rule.check)


def test_rule_codes_and_names_are_unique():
    assert len({r.code for r in ALL_RULES}) == len(ALL_RULES)
    assert len({r.name for r in ALL_RULES}) == len(ALL_RULES)


def test_every_category_has_a_rule():
    assert {r.category for r in ALL_RULES} == CATEGORIES


@pytest.mark.parametrize("rule, index, snippet", examples("valid"))
def test_valid_example_is_not_flagged(tmp_path, rule, index, snippet):
    result = scan_snippet(tmp_path, snippet)
    flagged = [(f.line, f.message) for f in result.findings if f.code == rule.code]
    assert flagged == [], f"{rule.code} flags its own valid example #{index}"


@pytest.mark.parametrize("rule, index, snippet", examples("invalid"))
def test_invalid_example_is_flagged_exactly_on_marked_lines(tmp_path, rule, index, snippet):
    result = scan_snippet(tmp_path, snippet)
    lines = {f.line for f in result.findings if f.code == rule.code}
    assert lines == marked_lines(snippet)
    for finding in result.findings:
        if finding.code == rule.code:
            assert finding.category == rule.category and finding.severity == rule.severity
            assert finding.path == (tmp_path / "snippet.py").as_posix()
            assert finding.message and finding.fix


@pytest.mark.parametrize("rule, index, snippet", examples("invalid"))
def test_invalid_example_is_silent_when_its_rule_is_ignored(tmp_path, rule, index, snippet):
    path = tmp_path / "snippet.py"
    path.write_text(snippet, encoding="utf-8")
    result = scan_project([str(path)], entry=entry_at(path, snippet), ignore=(rule.code,))
    assert rule.code not in {f.code for f in result.findings}


# --------------------------------------------------------------------------- beyond the rule examples
# Each snippet marks flagged lines with `# error: CATEGORY`; every other line must stay silent.
def expected_marks(snippet: str) -> set[tuple[int, str]]:
    out = set()
    for number, line in enumerate(snippet.splitlines(), 1):
        if "# error: " in line:
            out.add((number, line.rsplit("# error: ", 1)[1].strip()))
    return out


CASES = {
    "method-inherited-from-base": (
        "class Base:\n    def helper(self, x):\n        return x.item()  # error: scalar-extraction\n"
        "class P(Base):\n    def step(self, x):\n        return self.helper(x)\n"),
    "static-and-class-methods": (
        "class P:\n    @staticmethod\n    def a(x):\n        return x.item()  # error: scalar-extraction\n"
        "    @classmethod\n    def b(cls, x):\n        return x.tolist()  # error: scalar-extraction\n"
        "    def step(self, x):\n        return self.a(x) + self.b(x)\n"),
    "tuple-return-unpacked": (
        "def split(x):\n    return x[0], x[1]\n"
        "def step(x):\n    a, b = split(x)\n    return a.item() + b  # error: scalar-extraction\n"),
    "keyword-only-argument": (
        "def helper(a, *, b):\n    return b.item()  # error: scalar-extraction\n"
        "def step(obs):\n    return helper(1.0, b=obs)\n"),
    "eval-only-branch-is-analyzed": (
        "class P:\n    def step(self, x):\n        if not self.training:\n"
        "            v = x.item()  # error: scalar-extraction\n        else:\n            v = x.tolist()\n        return v\n"),
    "walrus-condition": (
        "def step(obs):\n    if (m := obs.max()) > 1:  # error: tensor-branch\n        return obs / m\n    return obs\n"),
    "numpy-import-variants": (
        "import numpy.linalg as la\nfrom numpy.linalg import norm\nfrom numpy import interp as lerp\n"
        "def step(x, xs, ys):\n    a = la.norm(x)  # error: unmapped-numpy\n    b = norm(x)  # error: unmapped-numpy\n"
        "    c = lerp(x, xs, ys)  # error: unmapped-numpy\n    return a + b + c\n"),
    "config-lookalikes": (
        "import numpy as np\ndef step(obs, cfg):\n    if cfg['use_filter']:\n        obs = obs * 2\n"
        "    g = float(cfg['gain']) + np.float64(cfg['bias']).item()\n    names = cfg['names'][::-1]\n"
        "    if len(names) > 2:\n        obs = obs * 3\n    return obs * g * max(cfg['a'], cfg['b'])\n"),
    'nested-function': (
        'def step(x):\n    def inner(t):\n        return t.item()  # error: scalar-extraction\n    return inner(x)\n'),
    'lambda': (
        'def step(x):\n    f = lambda t: t.item()  # error: scalar-extraction\n    return f(x)\n'),
    'super-forward': (
        'import torch.nn as nn\nclass Base(nn.Module):\n    def forward(self, x):\n        return x.item()  # error: scalar-extraction\nclass P(Base):\n    def step(self, x):\n        return super().forward(x) + 1\n'),
    'module-list-of-project-modules': (
        'import torch.nn as nn\nclass Block(nn.Module):\n    def forward(self, x):\n        return x.tolist()  # error: scalar-extraction\nclass P(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.blocks = nn.ModuleList([Block(), Block()])\n    def step(self, x):\n        for block in self.blocks:\n            x = block(x)\n        return x\n'),
    'module-level-tensor-state': (
        'import torch\nSTATE = torch.zeros(3)\ndef step(x):\n    STATE.copy_(x)  # error: inplace-state\n    return STATE * 2\n'),
    'property-on-state': (
        'import torch\nclass P:\n    def __init__(self):\n        self.buf = torch.zeros(3)\n    @property\n    def first(self):\n        return self.buf.tolist()  # error: scalar-extraction\n    def step(self, obs):\n        return obs * self.first[0]\n    def load(self, values):\n        self.buf = values\n'),
    'is-tensor-type-check': (
        'import torch\ndef step(x):\n    if torch.is_tensor(x):\n        x = x * 2\n    return x\n'),
    'dropout-in-eval': (
        'import torch.nn.functional as F\ndef step(x):\n    return F.dropout(x, 0.1, training=False)\n'),
    'scratch-attribute-in-one-call': (
        'class P:\n    def __init__(self):\n        self.scratch = None\n    def step(self, obs):\n        self.scratch = obs * 2\n        return self.scratch + 1\n'),
    "meta-attribute-checks": (
        "import torch\ndef step(x):\n    if x.dtype == torch.float64:\n        x = x.float()\n"
        "    if x.requires_grad:\n        x = x.detach()\n    if isinstance(x, torch.Tensor):\n        x = x * 1\n"
        "    if x is None:\n        return x\n    return x\n"),
}



def findings_of(tmp_path, snippet: str) -> set[tuple[int, str]]:
    return {(f.line, f.category) for f in scan_snippet(tmp_path, snippet).findings}


@pytest.mark.parametrize("name", sorted(CASES))
def test_reachability_and_precision_cases(tmp_path, name):
    snippet = CASES[name]
    assert findings_of(tmp_path, snippet) == expected_marks(snippet)

