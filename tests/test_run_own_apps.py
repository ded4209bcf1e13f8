"""Two controller applications written for this round (round s15, `fixtures/app_*`), run as a new user
would: `generate APP --entry ENTRY --driver main.py`, then `run` (real LEAPP, torch, onnxruntime on CPU). Each
must validate or name its real cause; the message fields each copies into its reply (a stamp, a track id, a
header) are pass-through and never the reason given."""
from __future__ import annotations

import pytest
from test_run import cli, project, run_json, tree_hash

pytestmark = pytest.mark.e2e


def _run(tmp_path, fixture: str, app: str, entry: str):
    work = project(tmp_path, fixture)
    before = tree_hash(work / app)
    gen = cli(["generate", app, "--entry", entry, "--driver", "main.py", "-o", "integration.py"], work)
    assert gen.returncode == 0, gen.stderr
    proc, report = run_json(work)
    assert tree_hash(work / app) == before
    return (work / "integration.py").read_text(), proc, report


def test_pick_tracker_names_the_float_field_that_enters_the_computation(tmp_path):
    """A plain-object detection in, a namedtuple command out: the stamp and track id are only copied into the
    command; the detection's size, a Python float that changes on every call, feeds the network (line 23): it
    cannot be a constant of the export, and that is the cause named, with its line."""
    module, proc, report = _run(tmp_path, "app_pick_track", "picker", "picker.tracker:BeltTracker.on_detection")
    assert 'PASS_THROUGH = ((26, "det.stamp"), (26, "det.track_id"))' in module
    assert proc.returncode != 0 and report["status"] == "failed"
    assert "its part det.size" in report["error"] and "read at picker/tracker.py:23" in report["error"], \
        report["error"]


def test_row_follower_gets_past_the_copied_header_to_the_line_that_leaves_the_trace(tmp_path):
    """A dict message with a nested header copied whole into the reply dict: the header's stamp changes on every
    call and is no cause; the run reaches the trace, which fails where the heading error is wrapped in a Python
    list (`np.array([heading])`, line 25), with the speed branch (line 29) among the findings named."""
    module, proc, report = _run(tmp_path, "app_row_follow", "rows", "rows.follower:RowFollower.step")
    assert "PASS_THROUGH = ((31, \"msg['header']\"),)" in module
    assert proc.returncode != 0 and report["status"] == "failed"
    assert "stamp" not in report["error"] and "rows/follower.py:25" in report["error"], report["error"]
    assert any(f.startswith("rows/follower.py:29 tensor-branch") for f in report["explained_by"])
