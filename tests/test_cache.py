"""The on-disk cache: warm results equal cold ones, and no entry is trusted blindly."""
from __future__ import annotations

import json
from pathlib import Path

from leapp_codemod.scan import ScanOptions, scan
from leapp_codemod.source.cache import Cache

HELPER = "def helper(x):\n    return x.item()\n"
POLICY = "from app.util import helper\n\n\ndef step(obs):\n    return helper(obs) + obs.tolist()[0]\n"


def make_app(root: Path) -> Path:
    (root / "app").mkdir()
    (root / "app" / "__init__.py").write_text("")
    (root / "app" / "util.py").write_text(HELPER)
    (root / "app" / "policy.py").write_text(POLICY)
    return root / "app"


def entries(cache_dir: Path) -> list[Path]:
    return sorted(cache_dir.rglob("*.json"))


def summary(result) -> list[tuple[str, int, str]]:
    return [(f.path, f.line, f.code) for f in result.findings]


def test_warm_scan_equals_cold_and_reads_only_the_cache(tmp_path, monkeypatch):
    app = make_app(tmp_path)
    cache = Cache(tmp_path / "cache")
    for options in (ScanOptions(entry="app.policy:step"), ScanOptions(all_functions=True)):
        cold = scan([str(app)], options, cache)
        assert entries(tmp_path / "cache")
        monkeypatch.setattr("leapp_codemod.scan.load.parse_file",
                            lambda src: (_ for _ in ()).throw(AssertionError("parsed on a warm run")))
        warm = scan([str(app)], options, cache)
        monkeypatch.undo()
        assert summary(warm) == summary(cold) and summary(cold)
        assert warm.files_analyzed == cold.files_analyzed


def test_changed_file_changes_the_result(tmp_path):
    app = make_app(tmp_path)
    cache = Cache(tmp_path / "cache")
    options = ScanOptions(entry="app.policy:step")
    before = summary(scan([str(app)], options, cache))
    (app / "util.py").write_text("def helper(x):\n    return x * 2\n")
    after = summary(scan([str(app)], options, cache))
    assert any(code == "LCM101" and path.endswith("util.py") for path, _, code in before)
    assert not any(path.endswith("util.py") for path, _, _ in after)


def test_options_are_part_of_the_key(tmp_path):
    app = make_app(tmp_path)
    cache = Cache(tmp_path / "cache")
    everything = scan([str(app)], ScanOptions(entry="app.policy:step"), cache)
    only_casts = scan([str(app)], ScanOptions(entry="app.policy:step", select=("LCM102",)), cache)
    assert summary(everything) and not summary(only_casts)


def test_corrupt_and_foreign_entries_are_ignored_and_rebuilt(tmp_path):
    app = make_app(tmp_path)
    cache = Cache(tmp_path / "cache")
    options = ScanOptions(entry="app.policy:step")
    cold = summary(scan([str(app)], options, cache))
    (entry,) = entries(tmp_path / "cache")
    entry.write_text("{not json")
    assert summary(scan([str(app)], options, cache)) == cold
    data = json.loads(entry.read_text())
    data["value"]["findings"] = []                 # a forged "clean" result under another key
    data["key"] = "0" * 64
    entry.write_text(json.dumps(data))
    assert summary(scan([str(app)], options, cache)) == cold
    data = json.loads(entry.read_text())
    data["value"]["findings"] = [{"unexpected": 1}]  # right key, wrong shape
    entry.write_text(json.dumps(data))
    assert summary(scan([str(app)], options, cache)) == cold


def test_cache_folder_ignores_itself_for_git(tmp_path):
    app = make_app(tmp_path)
    scan([str(app)], ScanOptions(all_functions=True), Cache(tmp_path / "c"))
    assert (tmp_path / "c" / ".gitignore").read_text().splitlines()[-1] == "*"


def test_parallel_cold_scan_equals_serial(tmp_path, monkeypatch):
    monkeypatch.setattr("leapp_codemod.scan.lint.PARALLEL_MIN_FILES", 2)
    app = make_app(tmp_path)
    serial = scan([str(app)], ScanOptions(all_functions=True), Cache(None), jobs=1)
    parallel = scan([str(app)], ScanOptions(all_functions=True), Cache(None), jobs=2)
    assert summary(parallel) == summary(serial) and summary(serial)
