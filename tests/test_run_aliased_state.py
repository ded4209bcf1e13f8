"""State leaves that are one object: a list history filled at the episode start with three
references to the first joint reading. Each state port must be its own traced value (the slots are
copied when the starting state is set), or the trace reads one port for all of them and LEAPP
reports the others unused."""
from __future__ import annotations

import collections

import numpy as np
import pytest
import torch

from tests.test_run import generate, project, run_json, tree_hash


class _Ref:
    def __init__(self, value, name="s"):
        self.value, self.name, self.host = value, name, False

    def get(self):
        return self.value

    def set(self, value):
        self.value = value


def test_unalias_copies_repeated_slots_across_refs_and_containers():
    from leapp_codemod.runner.stateplan import unalias

    frame = torch.ones(3)
    window = collections.deque([frame] * 4, maxlen=4)
    arr = np.zeros(2)
    refs = [_Ref(window), _Ref({"a": arr, "b": [arr, frame]}), _Ref(arr)]
    assert unalias(refs) == 3 + 2 + 1
    leaves = [*window, refs[1].value["a"], *refs[1].value["b"], refs[2].value]
    assert len({id(x) for x in leaves}) == len(leaves)
    assert window.maxlen == 4 and all(torch.equal(x, frame) for x in window)


@pytest.mark.e2e
def test_a_window_filled_with_one_reading_validates_with_distinct_ports(tmp_path):
    work = project(tmp_path, "run_aliased_history")
    generate(work, "armhist", "armhist.policy:ReachPolicy.act")
    before = tree_hash(work / "armhist")
    proc, report = run_json(work, "integration.py", "--require-format", "onnx")
    assert report["status"] == "restricted", report.get("error")      # the episode-start branch stays
    assert "armhist/policy.py:19" in report["error"]
    attempt = report["attempts"][-1]
    assert attempt["warm_up_call"] and attempt["outcome"] == "validated"
    assert set(report["state"]) == {"history_1", "history_2"}
    assert "starting window came from a warm-up call" in attempt["starting_state_note"]
    assert tree_hash(work / "armhist") == before


def test_the_summary_shows_the_starting_state_note_of_the_validated_attempt():
    from leapp_codemod.runner.summary import summary_lines

    report = {"status": "restricted", "entry": "a:b", "backend": "onnx", "validation": {}, "graph_yaml": "g",
              "restricted_domain": {"because": ["a.py:3 tensor-branch"], "domain_checked": "3 calls"}, "models": [],
              "attempts": [{"outcome": "validated", "backend": "onnx",
                            "starting_state_note": "the starting window came from a warm-up call: ports h_1, h_2"}]}
    assert "  starting state: the starting window came from a warm-up call: ports h_1, h_2" in summary_lines(report)
