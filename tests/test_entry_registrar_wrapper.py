"""A callback handed to the timer through the project's own helper: the node looks it up in a table of modes
and hands it to `Pacer.arm`, which stores it; `Pacer.start` gives the stored callback to `create_timer`
(fixtures/entry_registrar_wrapper). The package keeps its packaging beside it and a bench script inside its
folder that imports it back: that makes the package no copied library."""
from __future__ import annotations

from test_entry_ranking import app, by_id, expected, ranked

from leapp_codemod.analysis.entry.lookup import VENDORED


def test_the_callback_a_helper_hands_to_the_timer_is_offered_first(tmp_path, monkeypatch):
    want = expected("entry_registrar_wrapper")
    candidates = ranked(app(tmp_path, "entry_registrar_wrapper"), monkeypatch)
    assert candidates[0]["entry"] == want["callback"]
    reasons = by_id(candidates)[want["callback"]]["reasons"]
    assert reasons[0].startswith("registered in MisterNode.__init__")
    idle = want["callback"].replace("_on_mist", "_on_idle")
    assert idle not in by_id(candidates)     # registered too, but it runs no model: no candidate


def test_a_script_inside_a_packaged_folder_does_not_make_the_package_a_copy(tmp_path, monkeypatch):
    candidates = ranked(app(tmp_path, "entry_registrar_wrapper"), monkeypatch)
    own = [c for c in candidates if c["entry"].startswith("greenhouse.")]
    assert own
    assert not any(VENDORED in reason for c in own for reason in c["reasons"])
