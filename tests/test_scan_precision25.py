"""Round s25 precision fixtures (fixtures/scan_precision25)."""
from __future__ import annotations

import pytest
from scanfixture import check_marked, found, scan_copy

GROUP = "scan_precision25"


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def test_one_run_time_size_is_reported_where_the_function_first_computes_with_it(tmp_path, monkeypatch):
    marked = check_marked(GROUP, tmp_path, monkeypatch, "window_stats", "stats.py:WindowStats.normalize")
    assert [line for _, line, category in marked if category == "shape-specialization"] == [14]


def test_a_shape_read_on_a_later_line_is_still_reported(tmp_path, monkeypatch):
    from scanfixture import scan_variant
    result = scan_variant(GROUP, tmp_path, monkeypatch, "window_stats", "stats.py:WindowStats.normalize", "stats.py",
                          "delta * size / total", "delta * batch.shape[0] / total")
    assert {line for _, line, code in found(result) if code == "LCM002"} == {14, 16}


def test_a_log_the_step_fills_and_only_a_file_writer_or_a_size_test_reads_is_no_state(tmp_path, monkeypatch):
    # `write` dumps it to a file, `land` asks only `len(...)`, and the network's `.log()` is a tensor method,
    # not a read of the field: the appends into the log carry nothing to a later step
    marked = check_marked(GROUP, tmp_path, monkeypatch, "flight_log", "flight.py:Controller.step")
    assert marked == {("flight.py", 39, "scalar-extraction")}


def test_the_same_log_handed_to_the_model_outside_the_step_is_state(tmp_path, monkeypatch):
    from scanfixture import scan_variant
    result = scan_variant(GROUP, tmp_path, monkeypatch, "flight_log", "flight.py:Controller.step", "flight.py",
                          '        if len(self.flight.log["thrust"]) > 0:\n            self.flight.write(path)',
                          '        return self.pilot(torch.stack(self.flight.log["rates"][-1:]).mean(0))')
    assert {line for _, line, code in found(result) if code == "LCM701"} == {16, 17}
