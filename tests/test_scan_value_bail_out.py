"""Guards that report and give no result in a step that otherwise returns one (fixtures/scan_value_bail_out):
`return None` or a bare `return` after a report, under a test on a setting or a fixed size, is a bail-out
(`analysis/infer/bail_out.py`): its report is no I/O of the export. A guard on the data's values stays."""
from __future__ import annotations

import pytest
from scanfixture import check_marked, scan_variant

GROUP = "scan_value_bail_out"


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def test_guards_giving_no_result(tmp_path, monkeypatch):
    found = check_marked(GROUP, tmp_path, monkeypatch, "sorter_app", "sorter:ChutePolicy.act")
    assert found == {("sorter.py", 24, "tensor-branch")}


def test_a_fixed_text_warning_before_a_fallback_result_is_the_hosts(tmp_path, monkeypatch):
    """The fallback result is the step's output, but a fixed-text warning before it reads no pipeline value: it is
    off the model's path (scan/model_path.py), host-side, whichever path the trace takes."""
    result = scan_variant(GROUP, tmp_path, monkeypatch, "sorter_app", "sorter:ChutePolicy.act", "sorter.py",
                          "            return None\n        if feats", "            return feats[..., :1]\n        if feats")
    assert (18, "LCM901") not in {(f.line, f.code) for f in result.findings}
