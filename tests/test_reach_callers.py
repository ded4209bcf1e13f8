"""Values and callables the callers and configs hand over, and sizes fixed for a pipeline
(fixtures/scan_reach_callers): a flag is a constant only if every call, including the ones that leave it at
its default, gives the same value; callables handed to setters and constructors are followed; Hydra
`defaults:` lists compose group files; key-value store clients are I/O; ranks and sizes fitted at
construction are no run-time shapes."""
from __future__ import annotations

import pytest
from scanfixture import found, scan_copy

from leapp_codemod.scan import scan_project


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def scan(tmp_path, app: str, entry: str, monkeypatch):
    return scan_copy("scan_reach_callers", tmp_path, app, entry, monkeypatch)


def test_a_call_leaving_a_flag_at_its_default_keeps_the_block_it_guards(tmp_path, monkeypatch):
    assert ("pilot.py", 7, "LCM801") in found(scan(tmp_path, "default_flag_app", "pilot:Pilot.command", monkeypatch))


def test_a_flag_every_call_passes_as_the_same_constant_rules_the_block_out(tmp_path, monkeypatch):
    result = scan(tmp_path, "default_flag_app", "pilot:Pilot.command", monkeypatch)
    assert result.findings
    (tmp_path / "default_flag_app" / "field.py").unlink()
    monkeypatch.chdir(tmp_path / "default_flag_app")
    assert ("pilot.py", 7, "LCM801") not in found(scan_project(["."], entry="pilot:Pilot.command"))


def test_callables_handed_over_by_setters_and_constructors_are_followed(tmp_path, monkeypatch):
    result = scan(tmp_path, "handed_callables_app", "tracker:Tracker.step", monkeypatch)
    hits = found(result)
    assert ("parts.py", 5, "LCM801") in hits     # a lambda a helper returns, handed to a setter
    assert ("parts.py", 14, "LCM201") in hits    # a bound method of an object the wiring code builds
    assert ("parts.py", 20, "LCM102") in hits    # functools.partial handed to the constructor
    assert not result.not_followed


def test_hydra_targets_composed_through_defaults_lists(tmp_path, monkeypatch):
    result = scan(tmp_path, "hydra_defaults_app", "rover.runner:Runner.act", monkeypatch)
    hits = found(result)
    assert ("costs.py", 9, "LCM801") in hits          # cost: jittered, selected by mpc.yaml's defaults
    assert ("costs.py", 14, "LCM201") not in hits     # cost/plain.yaml: an option nobody selects
    assert not any(path == "planners.py" for path, _, _ in hits)   # greedy.yaml: not selected either
    bound = {b.line: (b.targets, b.how) for b in result.bound_calls}
    assert bound[6][0] == ("rover.planners:MpcPlanner",) and "conf/planner/mpc.yaml" in bound[6][1]
    assert bound[7][0] == ("rover.costs:JitteredCost",)
    assert not result.not_followed


def test_defaults_lists_mount_group_files_under_their_keys(tmp_path):
    from leapp_codemod.analysis.model.hydra_configs import defaults_list, read_targets
    assert defaults_list("defaults:\n  - _self_\n  - /enc@obs.enc: cnn  # x\n  - override head: gmm\n"
                         "  - extra: null\nkey: 1\n") == [("/enc", "obs.enc", "cnn"), ("head", None, "gmm")]
    conf = tmp_path / "conf"
    (conf / "arm" / "head").mkdir(parents=True)
    (conf / "top.yaml").write_text("defaults:\n  - arm: fast\n")
    (conf / "arm" / "fast.yaml").write_text("defaults:\n  - head: gmm\n_target_: a.Fast\n")
    (conf / "arm" / "head" / "gmm.yaml").write_text("_target_: a.Gmm\n")
    keys = {(t.target, t.keys) for t in read_targets([tmp_path])}
    assert {("a.Fast", ("arm",)), ("a.Gmm", ("arm", "head"))} <= keys


def test_key_value_store_reads_and_publishes_are_io(tmp_path, monkeypatch):
    result = scan(tmp_path, "kv_bridge_app", "arm:ArmBridge.step", monkeypatch)
    hits = found(result)
    assert ("arm.py", 14, "LCM901") in hits     # `self.kv.hget(...)`: the goal read from the store
    assert ("arm.py", 16, "LCM901") in hits     # `self.kv.publish(...)`
    assert not result.not_followed


def test_ranks_and_sizes_fitted_at_construction_are_no_run_time_shapes(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "fixed_sizes_app", "filters:Whitener.__call__", monkeypatch))
    assert not {(line, code) for _, line, code in hits if line in (6, 7, 11, 12, 22, 23)}   # rank, fitted size
    assert ("filters.py", 26, "LCM201") in hits     # a list the step grows: its length varies
    assert ("filters.py", 28, "LCM002") in hits     # torch.arange(x.shape[1]): a sequence length
