"""The LEAPP fact behind not flagging a TorchScript policy (installed leapp 0.7.2, torch 2.13, CPU): a policy
saved with `torch.jit.trace` or `torch.jit.script` and loaded with `torch.jit.load`, called on a traced tensor,
is recorded like the eager network: `compile_graph` validates and the exported model matches the eager network
on a fresh input. (LEAPP disables TorchScript while a session runs, so the loaded module runs as Python.) A
scripted *function* in scope is another matter: LEAPP warns about it (LCM111)."""
from __future__ import annotations

import itertools

import pytest
import torch

leapp = pytest.importorskip("leapp")
pytestmark = pytest.mark.e2e

_GRAPHS = itertools.count()


class _Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = torch.nn.Linear(4, 8)
        self.head = torch.nn.Linear(8, 2)

    def forward(self, x):
        return torch.tanh(self.head(torch.relu(self.hidden(x))))


@pytest.mark.parametrize("how", ["trace", "script"])
def test_a_loaded_torchscript_policy_exports_and_matches_the_eager_network(tmp_path, how):
    torch.manual_seed(0)
    net = _Net().eval()
    saved = torch.jit.trace(net, torch.randn(1, 4)) if how == "trace" else torch.jit.script(net)
    torch.jit.save(saved, str(tmp_path / "policy.pt"))
    policy = torch.jit.load(str(tmp_path / "policy.pt"))
    graph = f"ts{next(_GRAPHS)}"
    leapp.start(graph, save_path=str(tmp_path))
    try:
        for sample in (torch.randn(1, 4), torch.randn(1, 4) * 3.0, torch.randn(1, 4) - 1.0):
            obs = leapp.annotate.input_tensors(graph, {"obs": sample})
            leapp.annotate.output_tensors(graph, {"action": policy(obs * 2.0)}, export_with="onnx")
    finally:
        leapp.stop()
    outcome = leapp.compile_graph(validate=True, strict=False, visualize=False)
    assert outcome == {graph: True}
    fresh = torch.randn(1, 4)
    exported = leapp.InferenceManager(str(tmp_path / graph / f"{graph}.yaml")).run_policy({f"{graph}/obs": fresh})
    with torch.no_grad():
        expected = net(fresh * 2.0)
    assert torch.allclose(next(iter(exported.values())), expected, atol=1e-5)
