"""Project I/O wrappers are the pipeline's boundary (fixtures/scan_io_boundary): a method of an I/O object
that sends what the step hands it (returning nothing or a status) or reads a message or a device and returns
it is not pipeline code. The step's call of a read or a send wrapper is its one I/O finding; a guard that only reports and returns on a setting or a fixed size is no data branch. Each app marks its
lines (`# expect: CATEGORY`, `# clean`); the scan reports exactly the marked findings."""
from __future__ import annotations

import pytest
from scanfixture import check_marked, scan_copy

GROUP = "scan_io_boundary"


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def test_wrappers_of_io_objects_are_the_boundary(tmp_path, monkeypatch):
    found = check_marked(GROUP, tmp_path, monkeypatch, "gimbal_app", "track:track")
    assert ("track.py", 12, "io-in-pipeline") in found        # the ROS topic read through `TargetFeed.target`
    assert ("track.py", 13, "io-in-pipeline") in found        # the serial read through `GimbalLink.read_angles`
    assert ("gimbal_io.py", 78, "io-in-pipeline") not in found   # its fixed-text log: the export loses nothing
    assert ("gimbal_io.py", 90, "scalar-extraction") in found  # a sender that scales what it is handed too
    assert ("track.py", 18, "io-in-pipeline") in found        # the send through `GimbalLink.send_angles`
    assert not any(path == "gimbal_io.py" and line == 26 for path, line, _ in found)   # its body is no pipeline


def test_the_read_finding_names_the_wrapper(tmp_path, monkeypatch):
    result = scan_copy(GROUP, tmp_path, "gimbal_app", "track:track", monkeypatch)
    messages = {f.line: f.message for f in result.findings if f.path.endswith("track.py")}
    assert "`TargetFeed.target`" in messages[12] and "value read while tracing" in messages[12]
    assert "`GimbalLink.read_angles`" in messages[13]


def test_the_run_counts_a_wrapper_read_as_a_read(tmp_path, monkeypatch):
    from leapp_codemod.runner.verdict import is_io_read

    result = scan_copy(GROUP, tmp_path, "gimbal_app", "track:track", monkeypatch)
    messages = {f.line: f.message for f in result.findings if f.path.endswith("track.py")}
    assert is_io_read(messages[12]) and is_io_read(messages[13])   # their values feed the step, as a file read's do
    assert not is_io_read(messages[18])                             # the send: nothing read feeds the step
