"""State by observation: what a call changes among the values the entry can reach."""
from __future__ import annotations

import numpy as np
import torch

from leapp_codemod.runner import state_observe as observe


class Filter:
    def __init__(self):
        self.x = np.zeros(3)
        self.gain = np.full(3, 0.5)     # read, never written: a constant

    def update(self, z):
        self.x = self.x + self.gain * (z - self.x)


class Dist:
    def __init__(self, loc):
        self.loc = loc


class Agent(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)
        self.filters = [Filter(), Filter()]
        self._states = None
        self.register_buffer("h", torch.zeros(3))
        self.dist = Dist(torch.zeros(3))
        self.calls = 0

    def step(self, z):
        for f in self.filters:
            f.update(z)
        self._states = (torch.ones(1), torch.ones(1)) if self._states is None else tuple(s + 1 for s in self._states)
        self.h.add_(1.0)
        self.dist = Dist(self.lin(torch.as_tensor(z, dtype=torch.float32)))   # rebuilt on every call
        self.calls += 1


def _changed_by_one_call(agent: Agent) -> set[str]:
    roots = {"self": agent}
    before = observe.fingerprints(roots)
    agent.step(np.ones(3))
    return {observe.describe_path(p) for p in observe.changed(before, observe.fingerprints(roots))}


def test_a_call_changes_exactly_the_state_per_object():
    found = _changed_by_one_call(Agent())
    assert found == {"self.filters[0].x", "self.filters[1].x", "self._states", "self.h", "self.calls"}


def test_values_inside_an_object_the_call_rebuilds_are_not_state():
    agent = Agent()
    agent.step(np.ones(3))
    assert "self.dist.loc" not in _changed_by_one_call(agent)


def test_parameters_and_constants_are_never_candidates():
    paths = {observe.describe_path(p) for p in observe.reachable({"self": Agent()})}
    assert "self.filters[0].gain" in paths          # reachable, and it never changes
    assert not any(p.startswith(("self.lin.weight", "self.lin.bias")) for p in paths)


def test_state_names_follow_the_path_and_stay_unique():
    taken = {"filters_0_x"}
    path = ("self", ("attr", "filters"), ("key", 0), ("attr", "x"))
    assert observe.state_name(path, taken) == "filters_0_x_state"
    assert observe.exportable_state((torch.zeros(1), np.zeros(2))) and observe.exportable_state(3)
    assert not observe.exportable_state(True) and not observe.exportable_state("reach")
