"""What an inline range leaves in the value its function returns is no output when no caller uses that value:
timings returned by an evaluation function whose caller only prints and saves them, or by a method called as a
statement. A caller that hands the value on keeps it an output (the clock reads stay LCM901)."""
from __future__ import annotations

from pathlib import Path

from leapp_codemod.scan import scan_project
from test_entry_discovery import tree_hash

ROOT = Path(__file__).resolve().parent.parent / "fixtures" / "scan_unused_results"


def _clock_lines(entry: str, root: Path = ROOT) -> set[int]:
    result = scan_project([str(root)], entry=f"{root}/{entry}")
    assert result.errors == [], result.errors
    return {f.line for f in result.findings if f.code == "LCM901" and "clock" in f.message}


def _copy(tmp_path: Path, name: str, old: str, new: str) -> Path:
    root = tmp_path / "copy"
    (root / "bench").mkdir(parents=True)
    (root / "bench" / "__init__.py").write_text("")
    text = (ROOT / "bench" / name).read_text()
    assert old in text
    (root / "bench" / name).write_text(text.replace(old, new))
    return root


def test_timings_returned_to_a_caller_that_only_reports_them_are_host_side():
    before = tree_hash(ROOT)
    assert _clock_lines("bench/episode.py:25-28") == set()
    assert _clock_lines("bench/sweep.py:18-21") == set()
    assert tree_hash(ROOT) == before


def test_timings_a_caller_sends_on_are_host_telemetry(tmp_path):
    """The latencies feed neither the policy nor its action: off the model's path (scan/model_path.py), whoever
    sends them afterwards."""
    root = _copy(tmp_path, "episode.py", '        json.dump(summary, out)\n',
                 '        json.dump(summary, out)\n    env.unwrapped.set_budget(summary["latency"])\n')
    assert _clock_lines("bench/episode.py:25-28", root) == set()


def test_a_method_whose_result_the_driver_keeps_stays_an_output(tmp_path):
    root = _copy(tmp_path, "sweep.py", "    runner.sweep()\n", "    return runner.sweep()\n")
    assert _clock_lines("bench/sweep.py:18-21", root) == {19, 21}
