"""The policy step ranks above what only drives it (a rollout that steps the environment, times and records
around the call) and above a model helper it calls (an encoder also run by a caching script); of two copies
of one script holding the same inline range, the one the project runs wins the tie, and a tie nothing
settles is said. Each on a fixture app of its own shape."""
from __future__ import annotations

import shutil

import pytest
from click.testing import CliRunner
from test_entry_ranking import app, by_id, expected, private_cache, ranked  # noqa: F401  (fixture)

from leapp_codemod.analysis.entry.lookup import TIED, choose_entry
from leapp_codemod.analysis.entry.steps import (
    below_driven_steps,
    below_their_steps,
    parts_of,
)
from leapp_codemod.cli import main
from leapp_codemod.model import Entrypoint


# --------------------------------------------------------------------------- a rollout below its policy
def test_the_policy_an_episode_collector_drives_outranks_the_collector(tmp_path, monkeypatch):
    want = expected("entry_driver_of_policy")
    candidates = ranked(app(tmp_path, "entry_driver_of_policy"), monkeypatch)
    assert candidates[0]["entry"] == want["entry"]
    driver = by_id(candidates)[want["driver"]]
    assert driver["score"] < candidates[0]["score"]
    assert any("runs the model and steps the environment in one loop of its own" in r for r in driver["reasons"])
    # the interface's abstract method runs nothing: no candidate, and no "bound at run time" range for it
    assert want["abstract"] not in by_id(candidates)
    assert not any(c["kind"] == "inline" and c["score"] >= candidates[0]["score"] for c in candidates)


def _entry(name: str, score: int, reasons: tuple[str, ...] = ("policy-step name",)) -> Entrypoint:
    module, _, qualname = name.partition(":")
    return Entrypoint(module, qualname, f"{module}.py", 1, score, reasons)


def test_a_rollout_goes_below_only_a_step_it_drives_and_only_when_scored_at_or_above_it():
    ranked_ = [_entry("a:run", 9), _entry("b:Pol.act", 6), _entry("c:other", 12)]
    out = by_id_entries(below_driven_steps(ranked_, {"a:run": {"b:Pol.act"}, "c:other": {"missing:step"}}))
    assert out["a:run"].score == 5 and "the policy step its loop drives" in out["a:run"].reasons[-1]
    assert out["c:other"].score == 12          # drives nothing that is a candidate
    lower = by_id_entries(below_driven_steps([_entry("a:run", 3), _entry("b:Pol.act", 6)], {"a:run": {"b:Pol.act"}}))
    assert lower["a:run"].score == 3           # already below: untouched


def by_id_entries(entries: list[Entrypoint]) -> dict[str, Entrypoint]:
    return {e.id: e for e in entries}


# --------------------------------------------------------------------------- a part below its step
def test_the_step_outranks_the_encoder_helper_it_calls_that_a_caching_loop_also_runs(tmp_path, monkeypatch):
    want = expected("entry_helper_in_step")
    candidates = ranked(app(tmp_path, "entry_helper_in_step"), monkeypatch)
    assert candidates[0]["entry"] == want["entry"]
    found = by_id(candidates)
    for part in want["parts"]:
        assert found[part]["score"] < candidates[0]["score"]
        assert any(r.startswith("a part of Navigator.compute_action") for r in found[part]["reasons"])


def test_parts_stop_at_other_steps_and_at_cycles():
    callees = {"s:act": {"h:encode", "p:Inner.act"}, "h:encode": {"h:net"}, "p:Inner.act": {"p:deep"},
               "h:net": {"s:act"}}
    is_step = {"s:act", "p:Inner.act"}.__contains__
    assert parts_of("s:act", callees, is_step) == {"h:encode", "h:net"}
    ranked_ = [_entry("h:encode", 12, ("calls a model",)), _entry("s:act", 9), _entry("p:deep", 11)]
    out = by_id_entries(below_their_steps(ranked_, {"s:act"}, callees, is_step))
    assert out["h:encode"].score == 8
    assert out["p:deep"].score == 11           # behind another step: not a part of this one
    # a step without a model sign leads nothing
    bare = [_entry("h:encode", 12), _entry("s:act", 9, ("no sign of a model (...)",))]
    assert by_id_entries(below_their_steps(bare, {"s:act"}, callees, is_step))["h:encode"].score == 12


# --------------------------------------------------------------------------- sibling copies of one script
def _first_two(candidates):
    inline = [c for c in candidates if c["kind"] == "inline"]
    assert len(inline) == 2 and inline[0]["score"] == inline[1]["score"]
    return inline


def test_the_copy_a_shell_script_runs_wins_the_tie(tmp_path, monkeypatch):
    want = expected("entry_sibling_scripts")
    first, second = _first_two(ranked(app(tmp_path, "entry_sibling_scripts"), monkeypatch))
    assert first["path"].endswith(want["entry_file"]) and second["path"].endswith(want["copy_file"])
    assert any("start_walking.sh names `robot/hexapod_walk.py` first" in r for r in first["reasons"])


def test_without_a_text_naming_one_the_debugging_copy_goes_second(tmp_path, monkeypatch):
    want = expected("entry_sibling_scripts")
    root = app(tmp_path, "entry_sibling_scripts")
    (root / "start_walking.sh").unlink()
    first, second = _first_two(ranked(root, monkeypatch))
    assert first["path"].endswith(want["entry_file"]) and second["path"].endswith(want["copy_file"])
    assert any("in `debug`, named like a test or debugging copy" in r for r in first["reasons"])


def test_a_tie_nothing_settles_is_said_by_entrypoints_and_scan(tmp_path, monkeypatch):
    root = app(tmp_path, "entry_sibling_scripts")
    (root / "start_walking.sh").unlink()
    shutil.move(root / "debug", root / "left_leg_first")
    shutil.move(root / "robot", root / "right_leg_first")
    first, second = _first_two(ranked(root, monkeypatch))
    tie = [r for r in first["reasons"] if r.startswith(TIED)]
    assert len(tie) == 1 and second["entry"] in tie[0] and "nothing in the project separates them" in tie[0]
    result = CliRunner().invoke(main, ["scan", ".", "--format", "text"], catch_exceptions=False)
    assert "nothing in the project separates them" in result.stdout + result.stderr


def test_the_entry_line_says_the_tie_only_when_the_chosen_candidate_carries_it():
    tied = Entrypoint("m", "f", "m.py", 1, 9, ("called in a loop", f"{TIED} n:g at score 9: nothing in the project "
                                                                  f"separates them; pick one with --entry"))
    plain = Entrypoint("m", "f", "m.py", 1, 9, ("called in a loop", "policy-step name"))
    assert "nothing in the project separates them" in choose_entry([tied])[1]
    assert TIED not in choose_entry([plain])[1]


def test_of_two_tied_copies_the_one_the_other_imports_goes_first(tmp_path, monkeypatch):
    root = app(tmp_path, "entry_sibling_scripts")
    (root / "start_walking.sh").unlink()
    shutil.rmtree(root / "debug")
    original = (root / "robot" / "hexapod_walk.py").read_text(encoding="utf-8")
    (root / "robot" / "hexapod_walk.py").rename(root / "robot" / "walk_core.py")
    # a copy for benchmarking that reuses the original's module (its link settings) and repeats its loop
    (root / "robot" / "walk.py").write_text(original.replace(
        "from hexapod_io import HexapodLink\n", "from hexapod_io import HexapodLink\n\nimport walk_core  # noqa: F401\n"),
        encoding="utf-8")
    first, second = _first_two(ranked(root, monkeypatch))
    assert first["path"].endswith("walk_core.py") and second["path"].endswith("walk.py")
    assert any("a near-copy that imports this module" in r for r in first["reasons"])


def test_inline_ranges_of_near_copy_scripts_tie_whatever_their_lengths(tmp_path, monkeypatch):
    want = expected("entry_sibling_inline_variants")
    candidates = ranked(app(tmp_path, "entry_sibling_inline_variants"), monkeypatch)
    first = candidates[0]
    assert first["kind"] == "inline" and first["path"] in want["scripts"]
    tie = [r for r in first["reasons"] if r.startswith(TIED)]
    others = [path for path in want["scripts"] if path != first["path"]]
    assert len(tie) == 1 and all(path in tie[0] for path in others)   # the shorter ranges are named too


def test_a_readme_naming_one_variant_settles_the_tie(tmp_path, monkeypatch):
    want = expected("entry_sibling_inline_variants")
    root = app(tmp_path, "entry_sibling_inline_variants")
    plain = want["scripts"][0]
    (root / "README.md").write_text(f"Evaluate the policy:\n\n    python {plain}\n", encoding="utf-8")
    first = ranked(root, monkeypatch)[0]
    assert first["path"] == plain
    assert not any(r.startswith(TIED) for r in first["reasons"])
    assert any("README.md names" in r for r in first["reasons"])


def test_an_if_an_evaluation_flag_alone_opens_inside_a_training_loop_offers_its_episode_loop(tmp_path, monkeypatch):
    want = expected("entry_eval_only_flag_in_training")
    candidates = ranked(app(tmp_path, "entry_eval_only_flag_in_training"), monkeypatch)
    first = candidates[0]
    assert first["kind"] == "inline" and first["path"] == want["range_file"]
    assert (first["start"], first["end"]) == (want["range_start"], want["range_end"])


def test_a_periodic_evaluation_inside_a_training_loop_is_still_training(tmp_path, monkeypatch):
    root = app(tmp_path, "entry_eval_only_flag_in_training")
    learn = root / "sweeper" / "learn.py"
    learn.write_text(learn.read_text(encoding="utf-8").replace(" or opts.evaluate_only:", ":"), encoding="utf-8")
    assert not [c for c in ranked(root, monkeypatch) if c["kind"] == "inline"]


def test_a_function_setup_py_installs_as_a_command_is_a_driver_root(tmp_path, monkeypatch):
    want = expected("entry_installed_command")
    candidates = ranked(app(tmp_path, "entry_installed_command"), monkeypatch)
    inline = [c for c in candidates if c["kind"] == "inline"]
    assert [c["path"] for c in inline] == [want["range_file"]]    # the uninstalled helper's loop is no driver
    assert candidates[0] == inline[0] and any("the loop is in a driver (run)" in r for r in inline[0]["reasons"])


def test_without_the_console_script_nothing_starts_the_package_so_unnamed_loop_functions_are_roots(tmp_path,
                                                                                                   monkeypatch):
    """No command, no `__main__` block, no top-level loop: a launcher outside the scan (or the user) calls the
    package's functions, so each module-level function with a loop that no code names is a root; the node's
    loop, which sends what it computes, ranks above the replay helper's (analysis/entry/callbacks.callers_of)."""
    want = expected("entry_installed_command")
    root = app(tmp_path, "entry_installed_command")
    setup = root / "ws" / "src" / "hover_ctl" / "setup.py"
    setup.write_text(setup.read_text(encoding="utf-8").replace('"hover = hover_ctl.hover_node:run",', ""),
                     encoding="utf-8")
    inline = [c["path"] for c in ranked(root, monkeypatch) if c["kind"] == "inline"]
    assert inline == [want["range_file"], want["unlisted_file"]]


def test_commands_a_pyproject_or_setup_cfg_declares_are_driver_roots(tmp_path, monkeypatch):
    want = expected("entry_declared_scripts")
    candidates = ranked(app(tmp_path, "entry_declared_scripts"), monkeypatch)
    inline = sorted(c["path"] for c in candidates if c["kind"] == "inline")
    assert inline == sorted(want["ranges"])      # the uninstalled offline loop is no driver
    assert want["unlisted_file"] not in {c["path"] for c in candidates}
    assert [c["kind"] for c in candidates[:2]] == ["inline", "inline"]


@pytest.mark.parametrize("packaging, line", [("sorter/pyproject.toml", 'sortbot-serve = "sortbot.service:serve_forever"'),
                                             ("gripper/setup.cfg", "gripd-run = gripd.loop:control")])
def test_without_the_declared_script_its_loop_drives_nothing(packaging, line, tmp_path, monkeypatch):
    root = app(tmp_path, "entry_declared_scripts")
    path = root / packaging
    path.write_text(path.read_text(encoding="utf-8").replace(line, ""), encoding="utf-8")
    inline = {c["path"] for c in ranked(root, monkeypatch) if c["kind"] == "inline"}
    assert packaging.split("/")[0] not in {p.split("/")[0] for p in inline} and len(inline) == 1


def test_a_loop_nothing_names_in_a_package_nothing_starts_is_a_driver_and_outranks_its_bare_network(
        tmp_path, monkeypatch):
    """No `__main__`, no command: `serve`'s loop is a root; `Attitude.forward` is one statement, so the five
    statements of pipeline code around its call make the range the step (entry/callbacks, entry/collect)."""
    want = expected("entry_unstarted_loop")
    candidates = ranked(app(tmp_path, "entry_unstarted_loop"), monkeypatch)
    assert candidates[0]["kind"] == "inline" and candidates[0]["entry"] == want["range"]
    network = next(c for c in candidates if c["entry"] == "glider.net:Attitude.forward")
    assert any("the range around it is the policy step" in r for r in network["reasons"])


def test_a_method_a_usage_scripts_top_level_code_runs_once_is_offered(tmp_path, monkeypatch):
    """`planner = Planner(...); print(planner.plan(...))` at the top of `example.py` (no loop, no `__main__`):
    the method it runs, which reaches the network, is the step, not a callee (entry/entrypoints._score)."""
    want = expected("entry_script_usage")
    candidates = ranked(app(tmp_path, "entry_script_usage"), monkeypatch)
    assert candidates[0]["entry"] == want["entry"]
    assert any(r.startswith("run by the top-level code of example.py") for r in candidates[0]["reasons"])


def test_a_registered_callback_reading_its_inputs_from_its_fields_is_the_step_around_the_policy_it_calls(
        tmp_path, monkeypatch):
    want = expected("entry_callback_deep_policy")
    candidates = ranked(app(tmp_path, "entry_callback_deep_policy"), monkeypatch)
    assert [c["entry"] for c in candidates[:2]] == [want["step"], want["policy"]]
    step = by_id(candidates)[want["step"]]
    assert any(r.startswith("the policy step around Agent.act") for r in step["reasons"])


def test_a_registered_callback_named_like_no_step_is_offered_on_the_model_its_callees_run(tmp_path, monkeypatch):
    root = app(tmp_path, "entry_callback_deep_policy")
    node = root / "pilot_node.py"
    node.write_text(node.read_text().replace("control_step", "on_timer"))
    candidates = by_id(ranked(root, monkeypatch))
    assert "a registered callback that runs a model through Agent.act" in candidates["pilot_node:Pilot.on_timer"]["reasons"]


def test_a_driven_method_with_no_inputs_reads_its_object_and_is_the_step_around_the_planner(tmp_path, monkeypatch):
    # `rover.control()` in the main loop: its inputs are the readings a thread keeps on the object
    want = expected("entry_driven_no_input_step")
    candidates = ranked(app(tmp_path, "entry_driven_no_input_step"), monkeypatch)
    assert [c["entry"] for c in candidates[:2]] == [want["step"], want["policy"]]
    assert any(r.startswith("the policy step around Planner.plan") for r in by_id(candidates)[want["step"]]["reasons"])


def test_a_helper_forwarding_the_callable_it_is_handed_is_transparent(tmp_path, monkeypatch):
    # `timed(walker.act, obs)` in the loop: `timed` runs `call(*args, **kwargs)`, so the loop runs `Walker.act`
    want = expected("entry_forwarding_helper")
    candidates = ranked(app(tmp_path, "entry_forwarding_helper"), monkeypatch)
    assert candidates[0]["entry"] == want["step"]
    assert want["forwarder"] not in by_id(candidates)
    assert any(r.startswith("called in a loop by main") for r in candidates[0]["reasons"])
