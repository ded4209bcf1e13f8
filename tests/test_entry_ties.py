"""Entry ranking: a library function never stands for a project method of the same name; ties between
near-copies of one script are broken by a signal the reasons name."""
from __future__ import annotations

import sys

import pytest
from test_entry_ranking import app, by_id, ranked

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from pathlib import Path

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def expected(name: str) -> dict:
    return tomllib.loads((FIXTURES / name / "expected.toml").read_text(encoding="utf-8"))


def test_a_library_call_never_drives_a_project_method_of_the_same_name(tmp_path, monkeypatch):
    want = expected("entry_library_namesake")
    candidates = ranked(app(tmp_path, "entry_library_namesake"), monkeypatch)
    assert candidates[0]["entry"] == want["entry"]
    namesake = by_id(candidates).get(want["namesake"])
    if namesake is not None:     # it may be listed for its network call, never as driven by `shlex.split`
        assert not any("called in a loop" in r for r in namesake["reasons"])
        assert namesake["score"] < candidates[0]["score"]


def test_the_derived_script_of_a_near_copy_wins_the_tie(tmp_path, monkeypatch):
    want = expected("entry_derived_copy")
    candidates = ranked(app(tmp_path, "entry_derived_copy"), monkeypatch)
    first, base = candidates[0], by_id(candidates)[want["base"]]
    assert first["entry"] == want["entry"] and first["score"] == base["score"]    # a tie, broken
    assert any("near-copy" in r and "runner.py" in r for r in first["reasons"])
    assert not any("near-copy" in r for r in base["reasons"])


def test_a_derived_variant_without_a_network_of_its_own_settles_no_tie(tmp_path, monkeypatch):
    want = expected("entry_derived_copy")
    root = app(tmp_path, "entry_derived_copy")
    derived = root / "runner_smooth.py"
    derived.write_text(derived.read_text(encoding="utf-8").replace("(nn.Module)", "").replace(
        "super().__init__()", "pass"), encoding="utf-8")
    candidates = ranked(root, monkeypatch)
    assert candidates[0]["entry"] == want["base"]      # the path order, as without the rule
    assert not any("near-copy" in r for c in candidates for r in c["reasons"])


def test_the_script_a_readme_runs_first_wins_the_tie(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from leapp_codemod.cli import main

    want = expected("entry_readme_order")
    root = app(tmp_path, "entry_readme_order")
    candidates = ranked(root, monkeypatch)
    assert [c["entry"] for c in candidates[:2]] == [want["entry"], want["other"]]
    assert candidates[0]["score"] == candidates[1]["score"]
    assert any("README.md names `hover.py` first" in r for r in candidates[0]["reasons"])
    # a plain `scan` takes the same entry
    out = CliRunner().invoke(main, ["scan", "."], catch_exceptions=False)
    assert out.stdout.startswith(f"entry: {want['entry']} ")
    # without the README the tie falls back to the path order
    (root / "README.md").unlink()
    assert ranked(root, monkeypatch)[0]["entry"] == want["other"]


def test_a_script_the_project_texts_run_wins_a_tie_with_one_they_never_name(tmp_path, monkeypatch):
    want = expected("entry_named_script")
    root = app(tmp_path, "entry_named_script")
    candidates = ranked(root, monkeypatch)
    first, other = candidates[0], by_id(candidates)[want["other"]]
    assert first["entry"] == want["entry"] and first["score"] == other["score"]    # a tie, broken
    assert any("run_wrist.sh" in r and "never the other" in r for r in first["reasons"])
    # the texts name neither script: the path order, and the tie is said
    (root / "run_wrist.sh").unlink()
    candidates = ranked(root, monkeypatch)
    assert candidates[0]["entry"] == want["other"]
    assert not any("never the other" in r for c in candidates for r in c["reasons"])
    # the texts name both: no script goes first for being named (they are no copies, so no order either)
    (root / "NOTES.md").write_text("Run `python arm_reacher.py` or `python wrist_tracker.py`.\n", encoding="utf-8")
    assert ranked(root, monkeypatch)[0]["entry"] == want["other"]


def test_a_thread_driven_step_ranks_above_a_simulation_rollout(tmp_path, monkeypatch):
    want = expected("entry_thread_vs_sim")
    candidates = ranked(app(tmp_path, "entry_thread_vs_sim"), monkeypatch)
    assert candidates[0]["entry"] == want["entry"]
    simulated = [c for c in candidates if c["path"] == want["simulation"]]
    assert simulated and all(c["score"] < candidates[0]["score"] for c in simulated)
    assert any("a simulation rollout" in r for c in simulated for r in c["reasons"])


def test_one_naming_scheme_when_the_scanned_folder_is_a_package(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from leapp_codemod.cli import main

    want = expected("entry_package_root_scheme")
    root = app(tmp_path, "entry_package_root_scheme")
    entries = {c["entry"] for c in ranked(root, monkeypatch)}
    assert {want["node"], want["pilot"]} <= entries
    assert not any(e.startswith("entry_package_root_scheme.") for e in entries)
    for spelling in (want["node"], f"entry_package_root_scheme.{want['node']}"):   # the package name stays an alias
        out = CliRunner().invoke(main, ["scan", ".", "--entry", spelling], catch_exceptions=False)
        assert out.exit_code in (0, 1) and out.stdout.startswith("entry: ")
        assert out.stdout.splitlines()[0].split(" (")[0].endswith(want["node"])


def test_a_dataset_loop_inside_another_loop_is_still_no_control_loop(tmp_path, monkeypatch):
    want = expected("entry_nested_offline_loop")
    candidates = ranked(app(tmp_path, "entry_nested_offline_loop"), monkeypatch)
    assert candidates[0]["entry"] == want["entry"]
    offline = by_id(candidates).get(want["offline"])
    assert offline is None or not any("called in a loop" in r for r in offline["reasons"])


def test_a_testing_flag_selects_the_evaluation_branch_of_training_code(tmp_path, monkeypatch):
    want = expected("entry_testing_flag")
    candidates = ranked(app(tmp_path, "entry_testing_flag"), monkeypatch)
    assert candidates[0]["entry"] == want["entry"]
    assert any("called in a loop by Learner.cycle" in r for r in candidates[0]["reasons"])


def test_the_robot_twin_of_a_simulated_range_wins_the_tie(tmp_path, monkeypatch):
    want = expected("entry_sim_twin")
    candidates = ranked(app(tmp_path, "entry_sim_twin"), monkeypatch)
    first = candidates[0]
    simulated = [c for c in candidates if c["path"] == want["simulated"] and c["kind"] == "inline"]
    assert first["entry"] == want["entry"]
    assert simulated and simulated[0]["score"] == first["score"]      # a tie, broken
    assert any("advances a physics simulator" in r and "pybullet.stepSimulation" in r for r in first["reasons"])


def test_a_simulator_step_is_a_call_into_a_simulator_library():
    import ast

    from leapp_codemod.analysis.entry.signs import simulator_step
    from leapp_codemod.scan import load_project

    root = FIXTURES / "entry_sim_twin"
    project = load_project([str(root)]).project
    module = next(m for m in project.modules.values() if m.path.endswith("board_bullet.py"))
    calls = {ast.unparse(n.func): simulator_step(n, module, project) for n in ast.walk(module.tree)
             if isinstance(n, ast.Call)}
    assert calls["pb.stepSimulation"] == "pybullet.stepSimulation"
    assert calls["pb.getBaseVelocity"] is None and calls["policy"] is None
    bench = next(m for m in project.modules.values() if m.path.endswith("board_bench.py"))
    assert not any(simulator_step(n, bench, project) for n in ast.walk(bench.tree) if isinstance(n, ast.Call))


def test_a_sibling_script_another_file_runs_by_name_wins_the_tie(tmp_path, monkeypatch):
    want = expected("entry_script_referenced")
    candidates = ranked(app(tmp_path, "entry_script_referenced"), monkeypatch)
    assert [c["path"] for c in candidates[:2]] == [want["referenced"], want["other"]]
    assert candidates[0]["score"] == candidates[1]["score"]
    assert any(want["launcher"] in r and "by name" in r for r in candidates[0]["reasons"])


def test_without_the_launcher_the_sibling_scripts_tie_and_say_so(tmp_path, monkeypatch):
    want = expected("entry_script_referenced")
    root = app(tmp_path, "entry_script_referenced")
    (root / want["launcher"]).unlink()
    candidates = ranked(root, monkeypatch)
    assert {c["path"] for c in candidates[:2]} == {want["referenced"], want["other"]}
    assert any("nothing in the project separates them" in r for r in candidates[0]["reasons"])
