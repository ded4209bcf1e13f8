"""A constructor setting (`Sorter(record=False)`) decides `if self.record:` unless something rebinds the
attribute on an object that may be one of the class's. A second version of the node, in another module, sets
`sorter.record = True` on its own `Sorter`: that is not the first sorter's setting
(fixtures/scan_settings_other_class)."""
from __future__ import annotations

import pytest
from scanfixture import check_marked, scan_variant

GROUP, APP, ENTRY = "scan_settings_other_class", "cell", "v1.sorter:Sorter.sort"


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def test_another_classs_object_switching_the_same_name_leaves_the_setting_decided(tmp_path, monkeypatch):
    found = check_marked(GROUP, tmp_path, monkeypatch, APP, ENTRY)
    assert found == {("v1/sorter.py", 18, "tensor-branch")}


def test_the_same_classs_object_switched_on_elsewhere_keeps_the_recording_block(tmp_path, monkeypatch):
    result = scan_variant(GROUP, tmp_path, monkeypatch, APP, ENTRY, "v2/sorter.py",
                          "    sorter = Sorter()\n", "    from v1.sorter import Sorter as First\n    sorter = First()\n")
    lines = {(f.line, f.category) for f in result.findings}
    assert (17, "io-in-pipeline") in lines and (18, "tensor-branch") in lines
