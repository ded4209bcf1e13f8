"""A Python bool the host sets at episode starts and every call clears (`self.new_episode`): a graph
input the host feeds (in the kind its NumPy readers take), and the state it gates is probed with the
flag as each call found it."""
from __future__ import annotations

import pytest
from test_run import assert_validated, generate, project, run_json, tree_hash

pytestmark = pytest.mark.e2e


def test_a_python_bool_reset_every_call_is_a_host_input_and_validates(tmp_path):
    work = project(tmp_path, "run_host_bool")
    before = tree_hash(work / "boolapp")
    generate(work, "boolapp", "boolapp.filter:FilteredTargets.targets")
    proc, report = run_json(work)
    assert_validated(proc, report, work)
    assert report["host_set_inputs"] == {"new_episode": "self.new_episode"}
    assert report["state"] == {"filtered": "self.filtered"}
    yaml = (work / report["graph_yaml"]).read_text()
    assert "name: new_episode\n      dtype: int64\n      shape: [1]" in yaml
    assert report["validation"]["rollout_from_reset"]["ok"] is True
    assert tree_hash(work / "boolapp") == before


def test_as_host_feeds_flags_and_numbers_in_the_readers_kind():
    import numpy as np
    import torch

    from leapp_codemod.boundary import as_host

    assert as_host(True, "numpy").tolist() == [1] and as_host(True, "numpy").dtype == np.int64
    assert as_host(False).dtype == torch.int64 and as_host(False).shape == ()
    assert as_host(0.5, "numpy").dtype == np.float64 and as_host(np.float32(2.0), "torch").item() == 2.0
    probe = np.zeros(2)
    assert as_host(probe) is probe
