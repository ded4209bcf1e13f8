"""The LEAPP fact behind LCM902 (installed leapp 0.7.2, MuJoCo, CPU): a simulator's control buffer
(`MjData.ctrl`) is a plain NumPy array; writing a traced array into it copies numbers, so the buffer stays
untraced and an export that reads the action back from it keeps a constant (validation fails on the next
sample), while the same action returned from the step validates."""
from __future__ import annotations

import numpy as np
import pytest
import torch

leapp = pytest.importorskip("leapp")
mujoco = pytest.importorskip("mujoco")
annotate = leapp.annotate
pytestmark = pytest.mark.e2e

XML = ("<mujoco><worldbody><body><joint name='j0' type='hinge'/><geom size='0.1'/></body></worldbody>"
       "<actuator><motor joint='j0'/></actuator></mujoco>")
DATA = mujoco.MjData(mujoco.MjModel.from_xml_string(XML))


def written_back(x):
    DATA.ctrl[:] = np.tanh(x.numpy()[:1])
    return torch.from_numpy(np.array(DATA.ctrl, dtype=np.float32)) + 0.0 * x[:1]


def returned(x):
    return torch.from_numpy(np.tanh(x.numpy()[:1]).astype(np.float32))


def trace(tmp_path, graph, step, samples, seen=None):
    leapp.start(graph, save_path=str(tmp_path), max_cached_io=4)
    try:
        for values in samples:
            x = annotate.input_tensors(graph, {"x": torch.tensor(values, dtype=torch.float32)})
            y = step(x)
            if seen is not None:
                seen.append(type(DATA.ctrl).__name__)
            annotate.output_tensors(graph, {"y": y}, export_with="onnx")
    finally:
        leapp.stop()
    return leapp.compile_graph(validate=True, strict=False, visualize=False)


SAMPLES = [[0.1, 0.9], [0.5, 0.4], [-0.9, 0.1]]


def test_a_simulator_buffer_stays_untraced_and_the_returned_action_does_not(tmp_path):
    seen: list[str] = []
    assert trace(tmp_path / "a", "written_back", written_back, SAMPLES, seen) == {"written_back": False}
    assert set(seen) == {"ndarray"}
    assert trace(tmp_path / "b", "returned", returned, SAMPLES) == {"returned": True}
