"""A call that resolves only to a declaration (an abstract method, a body of a docstring, `pass` or `...`) runs
code the scan never saw: it is listed as not followed, never counted as followed. A library base whose
implementation the followed library holds is followed as before."""
from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from leapp_codemod.cli import main
from leapp_codemod.scan import scan_project
from test_entry_discovery import tree_hash

ROOT = Path(__file__).resolve().parent.parent / "fixtures" / "scan_stub_receiver"


def _not_followed(entry: str) -> dict[int, str]:
    result = scan_project([str(ROOT)], entry=entry)
    assert result.errors == [], result.errors
    return {call.line: call.reason for call in result.not_followed}


def test_calls_on_bases_whose_methods_are_stubs_are_listed():
    reasons = _not_followed("arm.controller:GraspController.command")
    assert "only a stub" in reasons[20] and "ContactEstimator.estimate" in reasons[20]   # @abstractmethod
    assert "only a stub" in reasons[22] and "Protocolish.smooth" in reasons[22]          # a body of `...`


def test_a_library_base_with_its_implementation_followed_is_not_listed():
    assert _not_followed("pilot.fly:Pilot.act") == {}


def test_the_summary_counts_the_stub_calls():
    before = tree_hash(ROOT)
    result = CliRunner().invoke(main, ["scan", str(ROOT), "--entry", "arm.controller:GraspController.command",
                                       "--no-cache"])
    assert "3 calls not followed" in result.output and "No hazards found." not in result.output
    assert "--bind self.estimator=MODULE:CLASS" in result.output
    assert tree_hash(ROOT) == before
