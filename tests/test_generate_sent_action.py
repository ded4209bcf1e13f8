"""A step that returns nothing and publishes its result (`self.cmd_pub.publish(cmd * 0.5)`): `generate`
takes the value sent as the output (SENT in the module) and `run` takes it from the send call, so the export
validates on real LEAPP, torch and onnxruntime on CPU; with several sends it names each value sent."""
from __future__ import annotations

import pytest
from test_run import assert_validated, generate, project, run_json, tree_hash

import inprocess


@pytest.mark.e2e
def test_the_value_a_step_publishes_is_its_output(tmp_path):
    work = project(tmp_path, "generate_sent_action")
    before = tree_hash(work / "armnode")
    module = generate(work, "armnode", "armnode.node:JointNode.on_sensors").read_text()
    assert 'SENT = ("cmd_pub", "publish")' in module and "SENT_VALUE = (0,)" in module
    assert "its output is the value it sends at line 25 (`cmd * 0.5`" in module
    proc, report = run_json(work)
    assert_validated(proc, report, work)
    assert report["validation"]["across_run"]["ok"]
    assert tree_hash(work / "armnode") == before


def test_two_sends_name_each_value_and_write_nothing(tmp_path):
    work = project(tmp_path, "generate_sent_action")
    node = work / "armnode" / "node.py"
    node.write_text(node.read_text().replace("        self.cmd_pub.publish(cmd * 0.5)\n",
                                             "        self.cmd_pub.publish(cmd * 0.5)\n"
                                             "        self.cmd_pub.publish(-cmd)\n"))
    proc = inprocess.cli(["generate", "armnode", "--entry", "armnode.node:JointNode.on_sensors", "--driver",
                          "main.py", "-o", "integration.py"], work)
    assert proc.returncode != 0 and not (work / "integration.py").exists()
    assert "at line 25: `self.cmd_pub.publish(cmd * 0.5)` (the value sent: `cmd * 0.5`)" in proc.stderr
    assert "at line 26: `self.cmd_pub.publish(-cmd)` (the value sent: `-cmd`)" in proc.stderr


def test_a_send_with_a_constant_channel_exports_the_data_beside_it(tmp_path):
    """`publish("thrust", cmd * 0.5)`: the constant channel stays host side; the output is argument 1."""
    work = project(tmp_path, "generate_sent_action")
    node = work / "armnode" / "node.py"
    node.write_text(node.read_text().replace("self.cmd_pub.publish(cmd * 0.5)",
                                             "self.cmd_pub.publish('thrust', cmd * 0.5)"))
    proc = inprocess.cli(["generate", "armnode", "--entry", "armnode.node:JointNode.on_sensors", "--driver",
                          "main.py", "-o", "integration.py"], work)
    assert proc.returncode == 0, proc.stderr
    module = (work / "integration.py").read_text()
    assert 'SENT = ("cmd_pub", "publish")' in module and "SENT_VALUE = (1,)" in module
