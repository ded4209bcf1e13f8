"""Rule reach on state and callables that real code hides behind objects (fixtures/scan_recall_objects): arrays
kept by objects self holds (in a dict, a list, a sub-object), state in a closure that outlives its maker,
callables handed to helpers (`map`, `functools.partial`, a parameter), and draws from scipy.stats frozen
distributions, `random.Random` and NumPy generators. Each app marks its lines (`# expect: CATEGORY`, `# clean`);
the scan must report exactly the marked findings."""
from __future__ import annotations

from pathlib import Path

import pytest
from scanfixture import FIXTURES, scan_copy

from tests.test_scan_fixtures import markers

GROUP = "scan_recall_objects"


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def findings(tmp_path, monkeypatch, app: str, entry: str) -> set[tuple[str, int, str]]:
    result = scan_copy(GROUP, tmp_path, app, entry, monkeypatch)
    return {(Path(f.path).as_posix().removeprefix("./"), f.line, f.category) for f in result.findings}


def expected(app: str, files: tuple[str, ...]) -> tuple[set, set]:
    marked, clean = markers(FIXTURES / GROUP / app)
    return {m for m in marked if m[0] in files}, {c for c in clean if c[0] in files}


def check(found: set, app: str, files: tuple[str, ...]) -> None:
    marked, clean = expected(app, files)
    assert marked, "the fixture marks no finding"
    assert found == marked
    assert not {(path, line) for path, line, _ in found} & clean


def test_arrays_kept_by_objects_self_holds_are_state(tmp_path, monkeypatch):
    # a dict comprehension of leg windows walked by enumerate(items()), an indexed list item, a sub-object's
    # tensor changed by an in-place method, an item's field its own method reads on the next call
    found = findings(tmp_path, monkeypatch, "hexapod_app", "hexapod.gait:GaitPolicy.act")
    check(found, "hexapod_app", ("hexapod/gait.py",))
    assert ("hexapod/gait.py", 38, "inplace-state") in found     # leg.last_cmd = ..., read by LegWindow.rate


def test_held_state_is_reported_not_declared(tmp_path, monkeypatch):
    result = scan_copy(GROUP, tmp_path, "hexapod_app", "hexapod.gait:GaitPolicy.act", monkeypatch)
    assert not result.state   # `self.legs[].window` cannot be a LEAPP state name: `generate` gets none
    messages = [f.message for f in result.findings]
    assert any("`self.legs[].window`" in m for m in messages) and any("`self.est.cov`" in m for m in messages)


def test_callables_handed_to_helpers_are_followed(tmp_path, monkeypatch):
    result = scan_copy(GROUP, tmp_path, "relay_app", "relay:Relay.step", monkeypatch)
    found = {(Path(f.path).name, f.line, f.category) for f in result.findings}
    check(found, "relay_app", ("relay.py",))
    assert not result.not_followed    # `fn(*args)` in Relay._timed runs Head.decode: followed, not listed


def test_draws_of_every_generator_kind(tmp_path, monkeypatch):
    found = {(Path(p).name, line, cat) for p, line, cat in
             findings(tmp_path, monkeypatch, "dice_app", "jitter:JitteredPolicy.act")}
    check(found, "dice_app", ("jitter.py",))


def test_state_of_a_closure_that_outlives_its_maker(tmp_path, monkeypatch):
    found = {(Path(p).name, line, cat) for p, line, cat in
             findings(tmp_path, monkeypatch, "smoother_app", "filters:make_smoother.<locals>.smooth")}
    marked, _ = expected("smoother_app", ("filters.py",))
    assert found == marked


def test_a_closure_made_on_every_call_keeps_nothing(tmp_path, monkeypatch):
    found = findings(tmp_path, monkeypatch, "smoother_app", "filters:per_call")
    _, clean = expected("smoother_app", ("filters.py",))
    assert clean and not found


def test_items_typed_by_the_attribute_annotation_are_followed(tmp_path, monkeypatch):
    # `self.rings: dict[str, dict[str, Ring]]` filled through a local dict: the item's `push` runs
    result = scan_copy(GROUP, tmp_path, "hexapod_app", "hexapod.history:History.update", monkeypatch)
    check({(Path(f.path).as_posix().removeprefix("./"), f.line, f.category) for f in result.findings},
          "hexapod_app", ("hexapod/history.py",))
    assert result.bound_calls == ()   # typed by the annotation, not guessed by duck typing


def test_a_bound_method_of_an_unknown_receiver_is_told_with_its_receiver(tmp_path, monkeypatch):
    result = scan_copy(GROUP, tmp_path, "relay_app", "forward:Forwarder.step", monkeypatch)
    assert [(Path(nf.path).name, nf.line, nf.receiver) for nf in result.not_followed] == \
        [("forward.py", 10, "self.pilot")]   # bind the receiver, not the parameter `fn`
    reason = result.not_followed[0].reason
    assert "passed `self.pilot.drive` (looked up on `self.pilot`)" in reason and "autopilot_sdk" in reason


def test_loop_items_and_fields_typed_by_annotations_are_followed_not_duck_typed(tmp_path, monkeypatch):
    found = findings(tmp_path, monkeypatch, "hexapod_app", "hexapod.observe:ObsGroup.compute")
    check(found, "hexapod_app", ("hexapod/observe.py",))
