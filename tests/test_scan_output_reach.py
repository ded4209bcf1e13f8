"""A finding must matter to what the step hands on (fixtures/scan_output_reach): a value that reaches only
a log, a report accumulator or nothing, and a branch whose block holds no output, are not reported; the
values that reach the returned or actuated result are. Each app marks its lines (`# expect: CATEGORY`,
`# clean`); the scan reports exactly the marked findings."""
from __future__ import annotations

import pytest
from scanfixture import check_marked

GROUP = "scan_output_reach"


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def check(tmp_path, monkeypatch, app: str, entry: str) -> set[tuple[str, int, str]]:
    return check_marked(GROUP, tmp_path, monkeypatch, app, entry)


def test_values_only_reported_in_a_method(tmp_path, monkeypatch):
    found = check(tmp_path, monkeypatch, "grader_app", "grader:Grader.grade")
    assert ("grader.py", 46, "tensor-branch") in found        # the branch that decides the grade stays
    assert ("grader.py", 44, "scalar-extraction") in found    # a value the step sends on is an output
    assert ("grader.py", 40, "io-in-pipeline") in found       # the log keeps its own finding


def test_report_rows_of_an_inline_range(tmp_path, monkeypatch):
    found = check(tmp_path, monkeypatch, "sorter_loop_app", "sorter.py:14-19")
    assert found == {("sorter.py", 18, "scalar-extraction")}   # the cast that scales the actuated command


def test_the_sink_of_another_object_is_one_finding_at_its_call(tmp_path, monkeypatch):
    found = check(tmp_path, monkeypatch, "mixer_app", "mixer:Mixer.dose")
    assert found == {("mixer.py", 34, "io-in-pipeline"),        # the step's own send stays
                     ("mixer.py", 38, "io-in-pipeline")}        # the wrapper's send: its call, not its body
