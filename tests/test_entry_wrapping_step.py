"""The function that builds a model function's input from its own inputs and returns what comes back is the policy
step: it ranks above the network method and the sampler it wraps, even when the driver calls it once and the
network is known only from a parameter's annotation. Fixture `entry_wrapping_step` (a bin-picking grasp planner)."""
from __future__ import annotations

import ast
import textwrap

from test_entry_ranking import app, by_id, expected, private_cache, ranked  # noqa: F401  (fixture)

from leapp_codemod.analysis.entry.wrapping_steps import wraps
from leapp_codemod.analysis.model.index import FunctionInfo


def test_the_function_wrapping_a_model_function_ranks_first(tmp_path, monkeypatch):
    want = expected("entry_wrapping_step")
    candidates = ranked(app(tmp_path, "entry_wrapping_step"), monkeypatch)
    assert candidates[0]["entry"] == want["step"]
    assert any(r.startswith("the policy step around") for r in candidates[0]["reasons"])
    sampler = by_id(candidates)[want["sampler"]]
    assert sampler["score"] < candidates[0]["score"]
    assert any("a part of that policy step" in r for r in sampler["reasons"])


def test_a_step_that_feeds_the_model_something_else_wraps_nothing(tmp_path, monkeypatch):
    want = expected("entry_wrapping_step")
    root = app(tmp_path, "entry_wrapping_step")
    pick = root / "pick.py"
    pick.write_text(pick.read_text(encoding="utf-8").replace(
        "grasps = net.predict_grasps(batch, count=32)", "grasps = net.predict_grasps(torch.zeros(1, 1, 160, 160))"),
        encoding="utf-8")
    candidates = ranked(root, monkeypatch)
    assert candidates[0]["entry"] == want["sampler"]
    assert want["step"] not in by_id(candidates)


def _function(source: str) -> tuple[FunctionInfo, ast.Call]:
    node = ast.parse(textwrap.dedent(source)).body[0]
    call = next(n for n in ast.walk(node) if isinstance(n, ast.Call) and ast.unparse(n.func) == "model.run")
    return FunctionInfo("m:f", "m", node.name, node, None, "m.py"), call


def test_wraps_needs_inputs_work_around_the_call_and_its_result_returned():
    fn, call = _function("""
        def f(obs, model):
            x = obs / 255.0
            y = model.run(x)
            return y * 2.0
    """)
    assert wraps(fn, call)
    thin, call = _function("""
        def f(obs, model):
            return model.run(obs)
    """)
    assert not wraps(thin, call)          # a pass-through: no work of its own
    looped, call = _function("""
        def f(obs, model):
            for frame in obs:
                x = frame / 255.0
                y = model.run(x)
                print(y)
            return y
    """)
    assert not wraps(looped, call)        # a loop around the model call drives it
    dropped, call = _function("""
        def f(obs, model):
            x = obs / 255.0
            y = model.run(x)
            log = y.mean()
            return x
    """)
    assert not wraps(dropped, call)       # the result never reaches what it returns


def test_a_function_that_also_runs_the_model_in_a_loop_drives_it(tmp_path, monkeypatch):
    want = expected("entry_wrapping_step")
    root = app(tmp_path, "entry_wrapping_step")
    pick = root / "pick.py"
    pick.write_text(pick.read_text(encoding="utf-8").replace(
        "    best = grasps[grasps[:, 3].argmax()].numpy()\n",
        "    while grasps[:, 3].max() < 0.5:\n        grasps = net.predict_grasps(batch, count=64)\n"
        "    best = grasps[grasps[:, 3].argmax()].numpy()\n"), encoding="utf-8")
    candidates = ranked(root, monkeypatch)
    step = by_id(candidates).get(want["step"])
    assert step is None or not any(r.startswith("the policy step around") for r in step["reasons"])


class _Sites:
    """The facts `_parts` reads: who calls whom, which functions run a model, which a driver loop runs."""

    def __init__(self, callees, models, driven):
        self.callees, self.calls_module = callees, models
        self.drivers = {"m:main"}
        main = FunctionInfo("m:main", "m", "main", ast.parse("def main(): pass").body[0], None, "m.py")
        self.in_loops = {fid: [(main, 3)] for fid in driven}

    def model_via(self, fid):
        return None


def test_a_part_a_driver_also_runs_on_its_own_is_no_part_of_the_step():
    from leapp_codemod.analysis.entry.wrapping_steps import _parts
    sites = _Sites({"m:env_step": {"m:decoder", "m:agent_act"}}, {"m:env_step", "m:decoder", "m:agent_act"},
                   driven={"m:env_step", "m:agent_act"})
    assert _parts("m:env_step", sites) == {"m:env_step", "m:decoder"}   # the wrapped function itself stays
