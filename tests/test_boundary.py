"""The structured LEAPP boundary: port names, flattening and rebuilding (no LEAPP session needed)."""
from __future__ import annotations

import collections

import numpy as np
import torch

from leapp_codemod.boundary import (
    StateRef,
    flatten,
    input_tensors,
    left_out,
    port_name,
    rebuild,
)


def test_ports_are_identifiers_named_like_leapp_nested_outputs():
    value = {"policy": {"joint_pos": torch.zeros(1, 3), "joint-vel": np.zeros(4)}, "cmd": (torch.ones(2), None),
             "class": torch.ones(1), 3: torch.ones(1)}
    flat = flatten(value, "obs")
    assert list(flat) == ["obs_policy_joint_pos", "obs_policy_joint_vel", "obs_cmd_0", "obs_class", "obs_3"]
    assert all(name.isidentifier() for name in flatten({"0": torch.ones(1), "if": torch.ones(1)}))
    assert port_name("", "if") == "v_if" and port_name("", "0x") == "v_0x"


def test_colliding_names_stay_distinct():
    flat = flatten({"a_b": torch.zeros(1), "a": {"b": torch.ones(1)}})
    assert list(flat) == ["a_b", "a_b_"]


def test_rebuild_keeps_structure_types_and_non_tensor_leaves():
    value = {"h": (torch.zeros(1), torch.ones(1)), "buf": collections.deque([np.zeros(2)], maxlen=4),
             "name": "reach", "gain": 0.5, "none": None}
    flat = flatten(value)
    rebuilt = rebuild(value, iter([v + 1 for v in flat.values()]))
    assert isinstance(rebuilt["h"], tuple) and isinstance(rebuilt["buf"], collections.deque)
    assert rebuilt["buf"].maxlen == 4 and float(rebuilt["h"][1]) == 2.0
    assert rebuilt["name"] == "reach" and rebuilt["gain"] == 0.5 and rebuilt["none"] is None


def test_left_out_names_the_leaves_that_are_not_tensors():
    assert left_out({"action": torch.zeros(1), "extras": {"done": None, "env": "reach"}}) == [
        "extras_done (NoneType)", "extras_env (str)"]


def test_without_a_session_input_tensors_passes_values_through():
    obs = {"a": torch.ones(2)}
    got_obs, gain = input_tensors("node", {"obs": obs, "gain": 0.5})
    assert torch.equal(got_obs["a"], obs["a"]) and gain == 0.5


def test_state_ref_reads_and_writes_along_a_path():
    class Holder:
        def __init__(self):
            self.filters = [type("F", (), {})()]
            self.filters[0].x = np.zeros(2)

    holder = Holder()
    ref = StateRef("x", holder, (("attr", "filters"), ("key", 0), ("attr", "x")))
    ref.set(np.ones(2))
    assert np.array_equal(ref.get(), np.ones(2)) and np.array_equal(holder.filters[0].x, np.ones(2))
