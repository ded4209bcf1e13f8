"""Random draws inside the step: each becomes an input of the exported node that the host feeds with
the application's own draws, validated with them; the setting that gates a draw is named."""
from __future__ import annotations

import textwrap

import pytest

from leapp_codemod.runner.draws import Draws, gate, port_name, ports
from tests.test_run import generate, project, run_json, tree_hash


def test_the_setting_that_removes_a_draw_is_read_from_the_if_around_it(tmp_path):
    src = tmp_path / "ctl.py"
    src.write_text(textwrap.dedent('''\
        def act(self, obs):
            if self.cfg.noise_std > 0:
                obs = obs + noise(obs)
            if not self.deterministic:
                obs = obs + noise(obs)
            if rng.random() < self.epsilon:
                return explore()
            if 0.0 < self.jitter:
                obs = obs + noise(obs)
            return obs + noise(obs)
        '''))
    assert gate(str(src), 3).startswith("`self.cfg.noise_std` = 0 removes the draw")
    assert gate(str(src), 5) == "`self.deterministic` = True removes the draw"
    assert gate(str(src), 7).startswith("`self.epsilon` = 0 removes the draw")
    assert gate(str(src), 9).startswith("`self.jitter` = 0.0 removes the draw")
    assert gate(str(src), 10) == ""                     # not gated
    assert gate(str(tmp_path / "missing.py"), 3) == ""


def test_draws_are_recorded_then_replayed_in_order_outside_recorded_calls_they_pass_through():
    import numpy as np

    d = Draws()
    calls = []

    def original(*args, **kwargs):
        calls.append(args)
        return np.full(2, float(len(calls)))

    wrapped = d._wrap(original, "normal")
    with d.recording() as got:
        first = wrapped(0.0, 1.0)
    assert len(got) == 1 and got[0][0] == "normal" and (got[0][2] == first).all()
    with d.replaying(got):                     # fed back: the original is not called again
        d.active = True
        again = wrapped(0.0, 1.0)
    assert (again == first).all() and len(calls) == 1
    assert float(wrapped()[0]) == 2.0          # outside: the original draws
    assert list(ports(got)) == [port_name(0, "normal")] == ["noise_0_normal"]


@pytest.mark.e2e
def test_gated_observation_noise_and_a_generator_draw_are_noise_inputs(tmp_path):
    work = project(tmp_path, "run_noise_obs")
    before = tree_hash(work / "walkapp")
    generate(work, "walkapp", "walkapp.controller:WalkController.step", driver="run_walk.py")
    proc, report = run_json(work, "integration.py", "--require-format", "onnx")
    assert proc.returncode == 0 and report["status"] == "validated", report.get("error")
    assert report["noise_inputs"] == {"noise_0_normal": "walkapp/controller.py:25 normal",
                                      "noise_1_randn": "walkapp/controller.py:32 randn"}
    assert report["noise_gates"]["walkapp/controller.py:25"].startswith("`self.cfg.obs_noise_std` = 0 removes")
    assert report["validation"]["across_run"]["ok"] is True
    yaml = (work / report["graph_yaml"]).read_text()
    assert "name: noise_0_normal" in yaml and "name: noise_1_randn" in yaml
    assert tree_hash(work / "walkapp") == before


@pytest.mark.e2e
def test_an_action_squeezed_without_an_axis_exports(tmp_path):
    """`policy(x).numpy().squeeze()`: LEAPP 0.7.2 records `torch.squeeze(x, dim=None)`, which every
    exporter rejects; while `run` traces, the method is recorded as `np.squeeze(x)`."""
    work = project(tmp_path, "run_squeeze")
    generate(work, "armapp", "armapp.reach:Reacher.act")
    proc, report = run_json(work, "integration.py", "--require-format", "onnx")
    assert proc.returncode == 0 and report["status"] == "validated", report.get("error")


@pytest.mark.slow
def test_the_trace_work_arounds_are_removed_when_the_trace_ends():
    import collections

    import numpy as np
    from leapp.leapp_graph.datatypes.numpy.traced_np_array import TracedNpArray

    from leapp_codemod.runner.trace_shims import during_trace

    squeeze, concatenate = TracedNpArray.squeeze, np.concatenate
    with during_trace():
        assert TracedNpArray.squeeze is not squeeze and np.concatenate is not concatenate
        history = collections.deque([np.ones(2), np.zeros(2)], maxlen=2)
        assert np.concatenate(history).tolist() == [1.0, 1.0, 0.0, 0.0]
    assert TracedNpArray.squeeze is squeeze and np.concatenate is concatenate
