"""A step that returns nothing and sends its data as one argument among several: a constant channel beside
it, passed by keyword, inside a message object built for the send (constructor arguments, an assigned field,
a dict key). `generate` finds the argument or field that carries the step's data by dataflow and records where
it is (SENT_VALUE); `run` takes it from the send call, and the constants stay host side."""
from __future__ import annotations

import ast
from dataclasses import dataclass

import pytest
from test_run import assert_validated, generate, project, run_json, tree_hash

import inprocess
from leapp_codemod.boundary import sent_part
from leapp_codemod.generate.sent import send_hint, sent_value
from leapp_codemod.runner.module_info import UsageError, read_module


def _method(body: str):
    source = "class Node:\n    def on_msg(self, msg):\n" + "".join(f"        {line}\n" for line in body.splitlines())
    return ast.parse(source).body[0].body[0]


@pytest.mark.e2e
def test_the_field_of_a_message_written_by_keyword_is_the_output_and_validates(tmp_path):
    work = project(tmp_path, "generate_sent_fields")
    before = tree_hash(work / "gripper")
    module = generate(work, "gripper", "gripper.loop:GripLoop.on_tactile").read_text()
    assert 'SENT = ("link", "write")' in module
    assert 'SENT_VALUE = ("payload", "data")' in module
    assert "keyword argument `payload` of the send call, then its field `data`" in module
    # the frame's stamp is the input's (it changes every call): read only by the host side of the send
    assert 'SENT_HOST_READS = ((23, "sample.stamp"),)' in module
    proc, report = run_json(work)
    assert_validated(proc, report, work)
    assert list(report["validation"]["outputs"]) == ["grip"]
    assert report["validation"]["across_run"]["ok"]
    assert tree_hash(work / "gripper") == before


def test_a_message_built_in_the_send_call_gives_the_constructor_argument_that_carries_data():
    fn = _method("out = self.policy(msg.obs) * 2.0\n"
                 "self.bus.publish('/cmd', Command(Stamp(msg.header.t), NAMES, out.numpy()))")
    sent = sent_value(fn, True)
    assert sent is not None and sent.sender == ("bus", "publish") and sent.selectors == (1, 2)
    assert ast.unparse(sent.value) == "out.numpy()"
    assert sent.host_reads == ((4, "msg.header"), (4, "msg.header.t"))


def test_an_input_field_the_data_sent_reads_too_is_no_host_side_read():
    fn = _method("out = self.policy(msg.obs)\n"
                 "self.bus.publish('/cmd', Command(Stamp(msg.header.t), out * msg.header.t))")
    sent = sent_value(fn, True)
    assert sent is not None and sent.selectors == (1, 1) and sent.host_reads == ()


def test_a_dict_payload_and_a_model_call_in_the_send_itself():
    fn = _method("self.sock.send({'topic': 'arm', 'seq': msg.seq, 'action': self.policy(msg.obs)})")
    sent = sent_value(fn, True)
    assert sent is not None and sent.selectors == (0, "action") and sent.keyword == "action"


def test_a_status_send_of_constants_beside_the_data_send_is_left_host_side():
    fn = _method("self.status.publish('running')\n"
                 "act = self.policy(msg)\n"
                 "self.cmd.publish(act)")
    sent = sent_value(fn, True)
    assert sent is not None and sent.sender == ("cmd", "publish") and sent.selectors == (0,)


def test_a_library_tensor_constructor_is_the_value_not_a_message_to_look_into():
    fn = _method("act = self.policy(msg)\nself.cmd.write(7, torch.Tensor(act))")
    sent = sent_value(fn, True)
    assert sent is not None and sent.selectors == (1,) and ast.unparse(sent.value) == "torch.Tensor(act)"


def test_two_computed_values_in_one_send_are_not_guessed_and_the_refusal_names_both():
    fn = _method("act = self.policy(msg)\nconf = act.abs().max()\nself.cmd.write('arm', Frame(act, conf))")
    assert sent_value(fn, True) is None
    hint = send_hint(fn)
    assert "(the value sent: `act`, `conf`)" in hint and "`'arm'`" not in hint


@dataclass
class _Command:
    names: list
    velocity: object = None


def test_the_sent_part_is_read_from_the_call_by_position_keyword_field_and_key():
    msg = _Command(["a"], [1.0, 2.0])
    assert sent_part(("/cmd", msg), {}, (1, 1)) == [1.0, 2.0]
    assert sent_part((3,), {"payload": msg}, ("payload", "velocity")) == [1.0, 2.0]
    assert sent_part(({"action": 5},), {}, (0, "action")) == 5
    assert sent_part((4,), {}, ()) == 4
    with pytest.raises(RuntimeError, match="no field 'speed'"):
        sent_part((msg,), {}, (0, "speed"))
    with pytest.raises(RuntimeError, match="had 1 positional arguments; SENT_VALUE names argument 2"):
        sent_part((msg,), {}, (2,))


def test_a_malformed_sent_value_is_one_line_naming_the_module(tmp_path):
    module = tmp_path / "integration.py"
    module.write_text('ENTRY = "app:Node.step"\nGRAPH = "g"\nEXPORT_WITH = "onnx"\nAPP_ROOT = "."\n'
                      'SENT = ("pub", "publish")\nSENT_VALUE = (1.5,)\n')
    with pytest.raises(UsageError, match=r"integration.py: SENT_VALUE must be a tuple"):
        read_module(module)


def test_a_message_built_positionally_in_the_send_call_records_its_position(tmp_path):
    """The same fixture with the message built in the call itself and passed by position: `(1, 3)`."""
    work = project(tmp_path, "generate_sent_fields")
    loop = work / "gripper" / "loop.py"
    loop.write_text(loop.read_text().replace(
        "        frame = Frame(self.channel_id, FINGERS, stamp=sample.stamp, meta={\"unit\": \"N\"})\n"
        "        frame.data = grip\n        self.link.write(self.channel_id, payload=frame, retain=True)\n",
        "        self.link.write(self.channel_id, Frame(self.channel_id, FINGERS, sample.stamp, grip))\n"))
    proc = inprocess.cli(["generate", "gripper", "--entry", "gripper.loop:GripLoop.on_tactile", "--driver",
                          "main.py", "-o", "integration.py"], work)
    assert proc.returncode == 0, proc.stderr
    module = (work / "integration.py").read_text()
    assert "SENT_VALUE = (1, 3)" in module and 'SENT_HOST_READS = ((23, "sample.stamp"),)' in module
