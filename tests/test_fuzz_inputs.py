"""Property: hostile configs, recordings and meta.json give a one-line error or work, never a traceback.
A small count here; benchmarks/fuzz_inputs.py runs 10,000."""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from fuzz_inputs import check_config, check_recording, run  # noqa: E402


def test_a_few_hundred_inputs_give_no_traceback():
    figures = run(150)
    assert figures["inputs"] == 150 and figures["configs"] == figures["meta_json"] == 50
    assert figures["tracebacks"] == 0


def test_the_checks_count_a_traceback(tmp_path, monkeypatch):
    """The harness is not blind: an exception escaping the reader is counted."""
    import fuzz_inputs

    def boom(path):
        raise KeyError("x")

    monkeypatch.setattr(fuzz_inputs, "read_meta", boom)
    assert check_recording(b"PK", tmp_path, False)
    monkeypatch.setattr(fuzz_inputs, "load_config", lambda folder: 1 / 0)
    assert check_config("", tmp_path)
