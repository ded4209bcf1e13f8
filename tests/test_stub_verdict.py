"""A run stopped on an unwritten stub also names the module's other unresolved findings: the stub
may not be what decides the export (an `np.array([...])` of traced numbers downstream of it)."""
from __future__ import annotations

from types import SimpleNamespace

from leapp_codemod.runner.verdict import other_findings, stub_error


def _info():
    stub = SimpleNamespace(function="clamp_rate_traceable", line=120, patches=("nav.rate:clamp_rate",),
                           hazards=("nav/rate.py:11 tensor-branch: Python `max()` ...",), blocked="")
    unresolved = ("nav/rate.py:11 tensor-branch: Python `max()` in `max(a, b)` compares pipeline data",
                  "nav/loop.py:40 unmapped-numpy: `np.array([rate])` builds an array from a list of pipeline values",
                  "nav/clock.py:9 scalar-extraction: `math.cos(phase)` passes pipeline data to `math.cos`")
    return SimpleNamespace(stubs=[stub], unresolved=unresolved, path="integration.py")


def test_other_unresolved_findings_are_listed_without_the_stubs_own():
    info = _info()
    assert other_findings(info) == ["nav/loop.py:40 unmapped-numpy", "nav/clock.py:9 scalar-extraction"]
    text = stub_error(info)
    assert text.startswith("stub not written: nav/rate.py:11 (clamp_rate_traceable at integration.py:120")
    assert "nav/loop.py:40 unmapped-numpy; nav/clock.py:9 scalar-extraction" in text


def test_no_other_findings_keeps_the_plain_stub_message():
    info = _info()
    info.unresolved = info.unresolved[:1]
    assert other_findings(info) == [] and stub_error(info).endswith("nothing was traced)")


def test_every_stub_is_named_with_the_application_lines_it_replaces():
    info = _info()
    second = SimpleNamespace(function="lstsq_traceable", line=140, patches=("numpy.linalg:lstsq",),
                             hazards=("nav/fit.py:7 unmapped-numpy", "nav/fit.py:9 unmapped-numpy"), blocked="")
    info.stubs = [info.stubs[0], second]
    text = stub_error(info)
    assert "also lstsq_traceable at integration.py:140 for nav/fit.py:7, nav/fit.py:9" in text
