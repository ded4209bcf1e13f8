"""Non-tensor parts of an argument that change between calls (a message header's sequence number and
time stamp) are refused only when the entry reads them (runner.unread_parts); real LEAPP, torch and
onnxruntime. Before, any changing part stopped the run at the inputs stage, also when the entry never
reads it."""
from __future__ import annotations

import pytest
from test_run import cli, project, run_json, tree_hash

pytestmark = pytest.mark.e2e


def _generate(work, entry: str, *driver_args: str):
    extra = ["--driver-args", " ".join(driver_args)] if driver_args else []
    gen = cli(["generate", "ft", "--entry", entry, "--driver", "main.py", "-o", "integration.py", *extra], work)
    assert gen.returncode == 0, gen.stderr


def test_a_changing_header_the_entry_never_reads_does_not_stop_the_export(tmp_path):
    work = project(tmp_path, "run_unread_parts")
    before = tree_hash(work / "ft")
    _generate(work, "ft.ctl:ComplianceHead.command")
    proc, report = run_json(work)
    assert proc.returncode == 0 and report["status"] == "validated", report.get("error")
    assert report["validation"]["across_run"]["ok"]
    assert tree_hash(work / "ft") == before


def test_a_changing_stamp_the_entry_reads_is_refused_naming_the_line(tmp_path):
    work = project(tmp_path, "run_unread_parts")
    _generate(work, "ft.ctl:RateLimitedHead.command", "--rate-limited")
    proc, report = run_json(work)
    assert proc.returncode != 0 and report["status"] == "failed"
    assert "its part msg.header" in report["error"] and "read at ft/ctl.py:26" in report["error"], report["error"]


class _Msg:
    def __init__(self, seq, stamp, data):
        self.seq, self.stamp, self.data = seq, stamp, data


def test_reads_are_noted_per_part_on_a_copy(tmp_path):
    """Unit level: two changed parts watched on one argument; a call reading neither leaves no read
    (copying the argument to watch the second part is not a read), a call reading one names it and the
    reading line; the driver's own object is left as it was."""
    import inspect

    from leapp_codemod.runner import unread_parts

    def blind(msg):
        return msg.data * 2

    def timed(msg):
        return msg.data * msg.stamp

    original = _Msg(1, 0.1, 3.0)
    for fn, expected in ((blind, None), (timed, ("msg", ".stamp"))):
        args, kwargs, checks = unread_parts.watching(inspect.signature(fn), (original,), {},
                                                     {"msg": [".seq", ".stamp"]})
        assert args[0] is not original and args[0].data == 3.0
        fn(*args, **kwargs)
        read = unread_parts.first_read(checks)
        assert (read[:2] if read else None) == expected
        if read:
            assert read[2].endswith(f"test_run_unread_parts.py:{inspect.getsourcelines(timed)[1] + 1}")
    assert type(original) is _Msg and original.stamp == 0.1
