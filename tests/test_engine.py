"""The analysis engine's questions on small snippets, below any rule: types, call resolution, taint,
state writes and I/O, asked of `FunctionContext` directly after the fixpoint from a named entry."""
from __future__ import annotations

import ast
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from leapp_codemod.analysis.flow.access_order import access_order
from leapp_codemod.analysis.flow.dataflow import Analysis
from leapp_codemod.analysis.infer.context import FunctionContext
from leapp_codemod.analysis.model.leapp_support import load_snapshot
from leapp_codemod.scan.load import load_project


@dataclass
class Engine:
    analysis: Analysis

    def ctx(self, fid: str) -> FunctionContext:
        fn = self.analysis.reachable.get(fid)
        assert fn is not None, f"{fid} not reachable; reachable: {sorted(self.analysis.reachable)}"
        return self.analysis.context_with_env(fn)

    def node(self, fid: str, text: str, kind: type = ast.expr) -> tuple[FunctionContext, ast.AST]:
        """The first node of `kind` in the function whose source is exactly `text`."""
        ctx = self.ctx(fid)
        for node in ast.walk(ctx.fn.node):
            if isinstance(node, kind) and ast.unparse(node) == text:
                return ctx, node
        raise AssertionError(f"no {kind.__name__} `{text}` in {fid}")


def analyze(tmp_path: Path, files: dict[str, str], entry: str, data: set[str]) -> Engine:
    """Load the snippet files as a project and run the fixpoint from `entry` with `data` as pipeline inputs."""
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    project = load_project([str(tmp_path)]).project
    module, _, qualname = entry.partition(":")
    fn = project.modules[module].functions[qualname]
    analysis = Analysis(project, load_snapshot("engine unit test"))
    analysis.run([fn], {fn.id: data})
    analysis.facts.access = access_order(fn, analysis.context_with_env)
    return Engine(analysis)


# --------------------------------------------------------------------------- types
TYPED = """
    import torch

    class Net(torch.nn.Module):
        def forward(self, x):
            return x * 2

    class Policy:
        def __init__(self, net: Net):
            self.net = net
            self.backup = Net().eval()

        def act(self, obs):
            a = self.net(obs)
            b = self.backup.forward(obs)
            return a + b

    def build():
        return Policy(Net())
"""


def test_types_of_attributes_come_from_annotations_and_constructor_calls(tmp_path):
    engine = analyze(tmp_path, {"m.py": TYPED}, "m:Policy.act", {"obs"})
    ctx, net = engine.node("m:Policy.act", "self.net")
    assert ctx.types_of(net) == {"m:Net"}
    ctx, backup = engine.node("m:Policy.act", "self.backup")
    assert ctx.types_of(backup) == {"m:Net"}  # `.eval()` returns the module itself


def test_calls_resolve_through_typed_attributes_and_module_call(tmp_path):
    engine = analyze(tmp_path, {"m.py": TYPED}, "m:Policy.act", {"obs"})
    ctx, call = engine.node("m:Policy.act", "self.net(obs)", ast.Call)
    assert [f.id for f in ctx.resolve_call(call)] == ["m:Net.forward"]
    ctx, call = engine.node("m:Policy.act", "self.backup.forward(obs)", ast.Call)
    assert [f.id for f in ctx.resolve_call(call)] == ["m:Net.forward"]
    assert "m:Net.forward" in engine.analysis.reachable
    assert "m:build" not in engine.analysis.reachable


DISPATCH = """
    class Base:
        def step(self, x):
            return self.filter(x)

        def filter(self, x):
            raise NotImplementedError

    class Smooth(Base):
        def filter(self, x):
            return x * 0.5

    class Clip(Base):
        def filter(self, x):
            return super().filter(x)
"""


def test_an_abstract_method_dispatches_to_every_override_and_super_to_the_base(tmp_path):
    engine = analyze(tmp_path, {"m.py": DISPATCH}, "m:Base.step", {"x"})
    ctx, call = engine.node("m:Base.step", "self.filter(x)", ast.Call)
    assert {f.id for f in ctx.resolve_call(call)} == {"m:Base.filter", "m:Smooth.filter", "m:Clip.filter"}
    ctx, call = engine.node("m:Clip.filter", "super().filter(x)", ast.Call)
    assert [f.id for f in ctx.resolve_call(call)] == ["m:Base.filter"]


def test_imported_aliases_resolve_to_the_defining_module(tmp_path):
    files = {
        "app/__init__.py": "",
        "app/util.py": "def clamp(v):\n    return v.clamp(-1, 1)\n",
        "app/main.py": "from app.util import clamp as limit\n\ndef step(obs):\n    return limit(obs)\n",
    }
    engine = analyze(tmp_path, files, "app.main:step", {"obs"})
    ctx, call = engine.node("app.main:step", "limit(obs)", ast.Call)
    assert [f.id for f in ctx.resolve_call(call)] == ["app.util:clamp"]
    assert ctx.call_name(call) == "app.util.clamp"


# --------------------------------------------------------------------------- taint
TAINT = """
    import numpy as np

    def helper(v):
        return v + 1

    def config_value(c):
        return 3

    def step(obs, cfg):
        y = helper(obs)
        z = config_value(cfg)
        g = cfg.gain * 2
        n = obs.shape[0]
        arr = obs.numpy()
        s = obs.sum().item()
        return y, z, g, n, arr, s
"""


@pytest.mark.parametrize(("text", "data", "shape", "numpy"), [
    ("helper(obs)", True, False, False),          # a callee that returns its data argument
    ("config_value(cfg)", False, False, False),   # configuration in, constant out
    ("cfg.gain * 2", False, False, False),        # configuration is not pipeline data
    ("obs.shape[0]", False, True, False),         # a shape of pipeline data, not data
    ("obs.numpy()", True, False, True),
    ("obs.sum().item()", False, False, False),    # a Python scalar: the rule judges the call, not its result
])
def test_taint_questions(tmp_path, text, data, shape, numpy):
    engine = analyze(tmp_path, {"m.py": TAINT}, "m:step", {"obs"})
    ctx, expr = engine.node("m:step", text)
    assert (ctx.is_data(expr), ctx.is_shape(expr), ctx.is_numpy(expr)) == (data, shape, numpy)


def test_local_names_carry_what_they_were_bound_to(tmp_path):
    engine = analyze(tmp_path, {"m.py": TAINT}, "m:step", {"obs"})
    ctx = engine.ctx("m:step")
    assert {"obs", "y", "arr"} <= ctx.env.data
    assert not {"cfg", "z", "g", "s"} & ctx.env.data
    assert "n" in ctx.env.shape and "arr" in ctx.env.numpy
    assert "m:helper" in engine.analysis.facts.returns_data
    assert "m:config_value" not in engine.analysis.facts.returns_data


# --------------------------------------------------------------------------- state writes
STATE = """
    import torch

    class Filter:
        def __init__(self):
            self.h = torch.zeros(3)
            self.count = 0
            self.scratch = torch.zeros(3)
            self.gain = torch.ones(3)

        def step(self, obs):
            self.h.mul_(0.9)
            self.h += obs
            self.count += 1
            self.scratch = obs * 2
            out = self.scratch + self.h * self.gain
            return out
"""


@pytest.mark.parametrize(("text", "kind", "writes"), [
    ("self.h.mul_(0.9)", ast.Call, [("h", "inplace")]),      # in place, read again next call
    ("self.h += obs", ast.AugAssign, [("h", "inplace")]),
    ("self.count += 1", ast.AugAssign, []),                  # a counter nothing else reads
    ("self.scratch = obs * 2", ast.Assign, []),              # written before every read of the same call
])
def test_state_writes(tmp_path, text, kind, writes):
    engine = analyze(tmp_path, {"m.py": STATE}, "m:Filter.step", {"obs"})
    ctx, node = engine.node("m:Filter.step", text, kind)
    assert ctx.state_writes(node) == writes


def test_state_owner_and_tensor_holders(tmp_path):
    engine = analyze(tmp_path, {"m.py": STATE}, "m:Filter.step", {"obs"})
    ctx = engine.ctx("m:Filter.step")
    assert ctx.state_owner("h") == "m:Filter"
    assert ctx.holds_tensor("h") and not ctx.holds_tensor("count")
    assert ctx.self_attr_is_data("h")
    assert not ctx.self_attr_is_data("gain")  # set once at construction: a constant, not state


def test_a_reassigned_recurrent_state_is_reported_as_such(tmp_path):
    source = """
        import torch

        class Rnn:
            def __init__(self):
                self.hidden = torch.zeros(4)

            def step(self, obs):
                self.hidden = torch.tanh(self.hidden + obs)
                return self.hidden
    """
    engine = analyze(tmp_path, {"m.py": source}, "m:Rnn.step", {"obs"})
    ctx, node = engine.node("m:Rnn.step", "self.hidden = torch.tanh(self.hidden + obs)", ast.Assign)
    assert ctx.state_writes(node) == [("hidden", "reassigned")]


# --------------------------------------------------------------------------- I/O
IO = """
    import logging
    import time
    log = logging.getLogger(__name__)

    def step(obs):
        print(obs)
        log.info("step %s", obs)
        t = time.time()
        if obs.sum() > 0:
            print("positive")
        return obs * t
"""


def test_io_questions(tmp_path):
    engine = analyze(tmp_path, {"m.py": IO}, "m:step", {"obs"})
    ctx, call = engine.node("m:step", "print(obs)", ast.Call)
    assert ctx.io_kind(call) == "`print()`"
    ctx, call = engine.node("m:step", "log.info('step %s', obs)", ast.Call)
    assert ctx.io_kind(call) == "logging"
    ctx, call = engine.node("m:step", "time.time()", ast.Call)
    assert ctx.clock_kind(call) == "`time.time`" and ctx.io_kind(call) is None
    ctx, branch = engine.node("m:step", "if obs.sum() > 0:\n    print('positive')", ast.If)
    assert ctx.only_io(branch.body) and ctx.only_logged(branch.body[0].value.args[0])
    ctx, ret = engine.node("m:step", "return obs * t", ast.Return)
    assert not ctx.only_io([ret])
