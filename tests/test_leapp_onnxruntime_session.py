"""The LEAPP fact behind LCM401 on native model runtimes (installed leapp 0.7.2, onnxruntime, CPU): an ONNX Runtime
session given a traced array answers with a plain array, so the step's output is no traced value and LEAPP refuses
it; the same network run as a torch module traces and validates."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from leapp_trace import trace, trace_payload

leapp = pytest.importorskip("leapp")
ort = pytest.importorskip("onnxruntime")
pytestmark = pytest.mark.e2e

SAMPLES = [[0.1, 0.9, 0.2, 0.4], [0.5, 0.4, 0.3, 0.7], [0.9, 0.1, 0.8, 0.2]]


def _network() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 2)).eval()


def test_a_session_run_gives_an_untraced_answer_and_the_torch_module_does_not(tmp_path):
    net = _network()
    torch.onnx.export(net, torch.zeros(1, 4), str(tmp_path / "p.onnx"), input_names=["obs"], output_names=["act"],
                      dynamo=False)
    session = ort.InferenceSession(str(tmp_path / "p.onnx"))

    def through_session(x):
        return session.run(None, {"obs": (np.asarray(x) * 2.0).astype(np.float32)[None]})[0]

    refused = trace_payload(tmp_path / "a", "session", through_session, [np.array(s, np.float32) for s in SAMPLES])
    assert isinstance(refused, Exception) and "non-traced" in str(refused)
    with torch.no_grad():
        assert trace(tmp_path / "b", "module", lambda x: net(x * 2.0), SAMPLES) == {"module": True}
