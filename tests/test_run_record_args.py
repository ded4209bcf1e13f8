"""`run` on an entry whose arguments are record objects (a plain class holding a nested dataclass,
a SimpleNamespace of gains): each tensor/array attribute is an input of its own, attributes the
pipeline never reads are trimmed, other attributes are constants that must stay equal between calls."""
from __future__ import annotations

import pytest
from test_run import assert_validated, generate, project, run_json, tree_hash

from leapp_codemod import boundary

pytestmark = pytest.mark.e2e


def test_record_objects_flatten_into_their_array_attributes_and_rebuild_as_copies():
    import types
    from dataclasses import dataclass

    import numpy as np

    @dataclass(frozen=True)
    class Inner:
        a: np.ndarray
        tag: str

    outer = types.SimpleNamespace(inner=Inner(np.ones(2), "x"), b=np.zeros(3), k=2)
    flat = boundary.flatten({"s": outer})
    assert list(flat) == ["s_inner_a", "s_b"]
    new = boundary.rebuild({"s": outer}, iter([v + 1 for v in flat.values()]))["s"]
    assert new is not outer and new.k == 2 and new.inner.tag == "x"
    assert new.inner.a.tolist() == [2.0, 2.0] and outer.inner.a.tolist() == [1.0, 1.0]


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    work = project(tmp_path_factory.mktemp("records"), "run_record_args")
    before = tree_hash(work / "recapp")
    generate(work, "recapp", "recapp.pipeline:infer")
    proc, report = run_json(work)
    return work, proc, report, before


def test_array_attributes_of_object_arguments_are_inputs_and_validate(records):
    work, proc, report, before = records
    assert_validated(proc, report, work)
    yaml = (work / report["graph_yaml"]).read_text()
    for port in ("frame_imu_gyro", "frame_imu_accel", "frame_joints", "gains_joint_scale", "gains_limits"):
        assert f"name: {port}\n" in yaml
    assert "frame_image" not in yaml           # never read: trimmed, and not a dropped input
    assert report["validation"]["across_run"]["ok"] is True
    assert tree_hash(work / "recapp") == before


def test_a_non_array_attribute_that_changes_between_calls_is_named(tmp_path):
    work = project(tmp_path, "run_record_args")
    generate(work, "recapp", "recapp.pipeline:infer", driver="main_modes.py")
    proc, report = run_json(work)
    assert proc.returncode == 1 and report["failed_stage"] == "inputs"
    assert "its part frame.mode" in report["error"]
