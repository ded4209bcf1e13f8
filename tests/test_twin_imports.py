"""A twin reads the module-level names its helper reads: constants of other project modules however
they are imported, and constants its own module binds by unpacking or inside `try`/`if` blocks."""
from __future__ import annotations

import importlib
import sys
import textwrap

import numpy as np

from leapp_codemod.generate.derive import helper_sources, make_twin
from leapp_codemod.generate.twin import Blocked
from leapp_codemod.model import Finding

CTL = """\
import numpy as np
import cstpkg.frames
from .. import frames
from ..frames import GAIN as G
from cstpkg import frames as fr

try:
    LOW, HIGH = -1.0, 1.0
except ImportError:
    LOW, HIGH = -2.0, 2.0


def f(x):
    return x[::-1].clip(LOW, HIGH) * G + frames.GAIN + fr.OFFSET + cstpkg.frames.GAIN
"""


def test_twin_imports_constants_of_other_project_modules(tmp_path, monkeypatch):
    (tmp_path / "cstpkg" / "sub").mkdir(parents=True)
    (tmp_path / "cstpkg" / "__init__.py").write_text("")
    (tmp_path / "cstpkg" / "sub" / "__init__.py").write_text("")
    (tmp_path / "cstpkg" / "frames.py").write_text("import numpy as np\nGAIN = np.array([1.0, 2.0, 3.0])\n"
                                                   "OFFSET = 0.5\n")
    (tmp_path / "cstpkg" / "sub" / "ctl.py").write_text(CTL)
    line = CTL.splitlines().index("def f(x):") + 2
    finding = Finding("cstpkg/sub/ctl.py", line, 12, line, 19, "T000", "numpy-negative-stride", "error", "h", "fix",
                      "cstpkg.sub.ctl:f")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        result = make_twin(tmp_path, "cstpkg.sub.ctl:f", "f_twin", [finding], set())
        assert not isinstance(result, Blocked), result
        assert "from cstpkg.sub.ctl import LOW" in result.imports and "import cstpkg.frames" in result.imports
        namespace: dict = {}
        exec("\n".join([*result.imports, helper_sources(result.helpers), textwrap.dedent(result.source)]), namespace)
        original = importlib.import_module("cstpkg.sub.ctl").f
        x = np.random.default_rng(0).normal(size=(3,)) * 3
        np.testing.assert_array_equal(namespace["f_twin"](x), original(x))
    finally:
        for name in [m for m in sys.modules if m.split(".")[0] == "cstpkg"]:
            del sys.modules[name]


GRIP = """\
import numpy as np


def squash(v):
    return np.tanh(v)


def grip(x):
    return squash(x[::-1]) * 2.0
"""


def test_a_twin_calls_its_modules_helpers_through_the_module_where_patches_bind_them(tmp_path, monkeypatch):
    """`grip`'s twin calls `squash` as `grippkg.hand.squash`: when `squash` has a twin patched on its
    module, the twin of `grip` runs it, not the original the integration module imported by name."""
    (tmp_path / "grippkg").mkdir()
    (tmp_path / "grippkg" / "__init__.py").write_text("")
    (tmp_path / "grippkg" / "hand.py").write_text(GRIP)
    line = GRIP.splitlines().index("def grip(x):") + 2
    finding = Finding("grippkg/hand.py", line, 19, line, 26, "T000", "numpy-negative-stride", "error", "h", "fix",
                      "grippkg.hand:grip")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        result = make_twin(tmp_path, "grippkg.hand:grip", "grip_twin", [finding], set())
        assert not isinstance(result, Blocked), result
        assert "grippkg.hand.squash(" in result.source and "import grippkg.hand" in result.imports
        namespace: dict = {}
        exec("\n".join([*result.imports, helper_sources(result.helpers), textwrap.dedent(result.source)]), namespace)
        hand = importlib.import_module("grippkg.hand")
        x = np.random.default_rng(1).normal(size=(4,))
        np.testing.assert_array_equal(namespace["grip_twin"](x), hand.grip(x))
        monkeypatch.setattr(hand, "squash", lambda v: v * 0.0)     # what a FunctionPatch binds there
        np.testing.assert_array_equal(namespace["grip_twin"](x), np.zeros(4))
    finally:
        for name in [m for m in sys.modules if m.split(".")[0] == "grippkg"]:
            del sys.modules[name]
