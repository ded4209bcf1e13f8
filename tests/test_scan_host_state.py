"""State kept only for people is no output (fixtures/scan_host_state): an attribute whose every read, in any
later call, reaches nothing but logs, prints or other such attributes (`analysis/infer/state_liveness.py`).
A clock read, a conversion or a counter that only feeds one is no finding; state the next call computes with
(the previous action, a phase clock started in `reset`) stays one. Each app marks its lines (`# expect:
CATEGORY`, `# clean`); the scan reports exactly the marked findings."""
from __future__ import annotations

import shutil

import pytest
from scanfixture import FIXTURES, check_marked, scan_variant

from leapp_codemod.scan import scan_project

GROUP = "scan_host_state"


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def check(tmp_path, monkeypatch, app: str, entry: str) -> set[tuple[str, int, str]]:
    return check_marked(GROUP, tmp_path, monkeypatch, app, entry)


def test_tick_period_logged_by_another_timer(tmp_path, monkeypatch):
    found = check(tmp_path, monkeypatch, "rate_node_app", "rate_node:RateNode.tick")
    assert {code for _, _, code in found} == {"io-in-pipeline"}   # the publish, not the clock


def test_peak_kept_for_a_summary_but_previous_action_carried(tmp_path, monkeypatch):
    found = check(tmp_path, monkeypatch, "grasp_player_app", "player:GraspPlayer.act")
    assert found == {("player.py", 17, "inplace-state")}


def test_average_in_a_helper_one_call_away(tmp_path, monkeypatch):
    found = check(tmp_path, monkeypatch, "arm_estimator_app", "arm:ArmController.step")
    assert found == {("arm.py", 20, "io-in-pipeline")}   # the phase clock reaches the network


def test_status_line_printed_by_the_script(tmp_path, monkeypatch):
    found = check(tmp_path, monkeypatch, "fan_viewer_app", "fan:FanController.step")
    assert found == {("fan.py", 23, "tensor-branch")}   # the step's own branch on the duty


def test_a_read_that_feeds_the_network_keeps_the_state_live(tmp_path, monkeypatch):
    """The same player, with the peak read back into the observation: the conversion that fills it is kept."""
    result = scan_variant(GROUP, tmp_path, monkeypatch, "grasp_player_app", "player:GraspPlayer.act", "player.py",
                          "x = torch.cat([obs, self.prev_action], dim=-1)",
                          "x = torch.cat([obs * self.peak, self.prev_action], dim=-1)")
    assert {(f.line, f.code) for f in result.findings} >= {(15, "LCM102"), (17, "LCM702")}


def test_a_status_the_script_sends_is_still_host_telemetry(tmp_path, monkeypatch):
    """The script sends the status line instead of printing it: the status is still built from no value the model
    reads or computes, so the step's clock read is off the model's path (scan/model_path.py): host telemetry."""
    result = scan_variant(GROUP, tmp_path, monkeypatch, "fan_viewer_app", "fan:FanController.step", "fan.py",
                          "print(ctrl.status)", "ctrl.net.publish(ctrl.status)")
    assert (17, "LCM901") not in {(f.line, f.code) for f in result.findings}


@pytest.mark.parametrize("read", ["pass", "ctrl.status[0] = ctrl.calls"])
def test_a_status_no_code_reads_back_may_be_the_hosts(tmp_path, monkeypatch, read):
    """Nothing of the project reads the status (or only fills it again): the text feeds neither the model nor its
    output, so formatting data into it is host-side (scan/model_path.py)."""
    result = scan_variant(GROUP, tmp_path, monkeypatch, "fan_viewer_app", "fan:FanController.step", "fan.py",
                          "print(ctrl.status)", read)
    assert (22, "LCM102") not in {(f.line, f.code) for f in result.findings}


def test_a_status_the_step_only_trims_may_be_the_hosts(tmp_path, monkeypatch):
    """The status is read only to trim it (`if len(...) > n: self.status = self.status[-n:]`) and the script
    no longer prints it: the text feeds neither the model nor its output, so it is host-side (scan/model_path.py)."""
    root = tmp_path / "fan_viewer_app"
    shutil.copytree(FIXTURES / GROUP / "fan_viewer_app", root)
    path = root / "fan.py"
    text = path.read_text()
    assert "        print(ctrl.status)\n" in text and "        return duty\n" in text
    path.write_text(text.replace("        print(ctrl.status)\n", "").replace(
        "        return duty\n", "        if len(self.status) > 80:\n            self.status = self.status[-80:]\n"
        "        return duty\n"))
    monkeypatch.chdir(root)
    result = scan_project(["."], entry="fan:FanController.step")
    assert (22, "LCM102") not in {(f.line, f.code) for f in result.findings}
