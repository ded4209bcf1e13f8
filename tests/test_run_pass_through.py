"""Input fields a step only copies into the object it returns (a reply's sequence number and frame id) are
host-side pass-through: `generate` finds them by dataflow (PASS_THROUGH), `run` does not count their reads
there as reads of the computation, so they may change between calls; the export and validation cover the
computed fields only. A field that also enters the computation stays refused, naming that line. Before,
any changing field of a dict argument stopped the run at the inputs stage ("change between calls")."""
from __future__ import annotations

import ast
import inspect

import pytest
from test_run import cli, project, run_json, tree_hash

from leapp_codemod.generate.pass_through import pass_through_reads
from leapp_codemod.runner import unread_parts


def _generate(work, entry: str, *driver_args: str) -> str:
    extra = ["--driver-args", " ".join(driver_args)] if driver_args else []
    gen = cli(["generate", "sorter", "--entry", entry, "--driver", "main.py", "-o", "integration.py", *extra], work)
    assert gen.returncode == 0, gen.stderr
    return (work / "integration.py").read_text()


@pytest.mark.e2e
def test_a_sequence_number_and_frame_id_copied_into_the_returned_dict_are_pass_through(tmp_path):
    work = project(tmp_path, "run_pass_through")
    before = tree_hash(work / "sorter")
    module = _generate(work, "sorter.gate:DiverterGate.on_packet")
    assert "PASS_THROUGH = ((21, \"packet['frame_id']\"), (21, \"packet['seq']\"))" in module
    proc, report = run_json(work)
    assert proc.returncode == 0 and report["status"] == "validated", report.get("error")
    assert sorted(report["validation"]["outputs"]) == ["confidence", "reply_paddles"]
    assert report["validation"]["across_run"]["ok"]
    assert report["pass_through"] == {"packet['seq']": "sorter/gate.py:21", "packet['frame_id']": "sorter/gate.py:21"}
    assert {"reply_seq (int)", "reply_frame_id (str)"} <= set(report["outputs_left_out"])
    assert tree_hash(work / "sorter") == before


@pytest.mark.e2e
def test_a_copied_field_that_also_enters_the_computation_is_refused_naming_that_line(tmp_path):
    work = project(tmp_path, "run_pass_through")
    _generate(work, "sorter.gate:AlternatingGate.on_packet", "--alternating")
    proc, report = run_json(work)
    assert proc.returncode != 0 and report["status"] == "failed"
    assert "its part packet['seq']" in report["error"] and "read at sorter/gate.py:33" in report["error"], \
        report["error"]


def _step(body: str, params: str = "msg"):
    source = f"class Node:\n    def step(self, {params}):\n" + "".join(f"        {ln}\n" for ln in body.splitlines())
    return ast.parse(source).body[0].body[0]


@pytest.mark.parametrize("body, expected", [
    # a dataclass / namedtuple built in the return, by keyword and by position
    ("u = self.net(msg.obs)\nreturn Reply(stamp=msg.stamp, cmd=u)", ((4, "msg.stamp"),)),
    ("u = self.net(msg.obs)\nreturn Reply(msg.header, u), u.norm()", ((4, "msg.header"),)),
    # a plain object assigned field by field, then returned inside a tuple
    ("u = self.net(msg.obs)\nout = Command()\nout.frame = msg.frame_id\nout.u = u\nreturn out, u",
     ((5, "msg.frame_id"),)),
    # a local alias read only where it is copied
    ("seq = msg.meta['seq']\nu = self.net(msg.obs)\nreturn {'seq': seq, 'u': u}", ((3, "msg.meta['seq']"),)),
    # the alias also feeds the computation: not pass-through
    ("seq = msg.seq\nu = self.net(msg.obs) * seq\nreturn {'seq': seq, 'u': u}", ()),
    # a computed field of the same return reads the field too: not pass-through
    ("u = self.net(msg.obs)\nreturn Reply(stamp=msg.stamp, cmd=u * msg.stamp)", ()),
    # the whole message returned, a computed value only: nothing copied
    ("return self.net(msg.obs)", ()),
])
def test_pass_through_reads_by_dataflow(body, expected):
    assert pass_through_reads(_step(body), True) == expected


def test_the_instance_is_no_input_whose_fields_pass_through():
    fn = _step("return Reply(stamp=self.stamp, cmd=self.net(msg))")
    assert pass_through_reads(fn, True) == ()


def test_dict_keys_are_watched_through_every_way_a_value_is_read():
    """Unit level: two changed keys of one dict argument; a call that reads neither leaves no read, and each
    way of reading a value (item, get, items, a copy by unpacking) names the reading line; the driver's dict is
    not touched."""
    def blind(packet):
        return packet["features"] * 2

    def by_get(packet):
        return packet.get("seq")

    def by_items(packet):
        return dict(packet.items())

    def by_unpacking(packet):
        return {**packet}

    original = {"seq": 7, "frame_id": "cam", "features": 1.5}
    for fn in (blind, by_get, by_items, by_unpacking):
        args, kwargs, checks = unread_parts.watching(inspect.signature(fn), (original,), {},
                                                     {"packet": ["['seq']", "['frame_id']"]})
        assert args[0] is not original and args[0] == original and isinstance(args[0], dict)
        fn(*args, **kwargs)
        read = unread_parts.first_read(checks)
        if fn is blind:
            assert read is None
        else:
            assert read[:2] == ("packet", "['seq']")
            assert read[2].endswith(f"test_run_pass_through.py:{inspect.getsourcelines(fn)[1] + 1}")
    assert type(original) is dict


def test_reads_only_at_a_pass_through_line_are_host_side_and_reported(tmp_path):
    def step(packet):
        out = packet["features"] * 2
        return {"seq": packet["seq"], "out": out}

    line = inspect.getsourcelines(step)[1] + 2
    skip = unread_parts.host_read_sites(step, ((line, "packet['seq']"),))
    args, kwargs, checks = unread_parts.watching(inspect.signature(step), ({"seq": 1, "features": 1.0},), {},
                                                 {"packet": ["['seq']"]})
    step(*args, **kwargs)
    assert unread_parts.first_read(checks) is not None           # read, but...
    assert unread_parts.first_read(checks, skip) is None         # ...only where the step copies it
    site = unread_parts.host_only(checks, skip)["packet['seq']"]
    assert site.endswith(f"test_run_pass_through.py:{line}")


class _Detection:
    def __init__(self, stamp, track_id, size):
        self.stamp, self.track_id, self.size = stamp, track_id, size


def test_each_of_several_watched_attributes_names_the_application_line_that_read_it():
    """Three changed attributes of one record: each is watched by a class deriving from the one watching the
    one before, so a read of the first goes through the other two's noting methods. The read is still noted
    at the application's line (before, at the tool's own line, so a pass-through field read where the step
    copies it was refused, and a real read was named at a line of `unread_parts.py`)."""
    def step(det):
        copied = det.stamp
        return copied

    original = _Detection(0.1, 7, 30.0)
    args, kwargs, checks = unread_parts.watching(inspect.signature(step), (original,), {},
                                                 {"det": [".stamp", ".track_id", ".size"]})
    step(*args, **kwargs)
    read = unread_parts.first_read(checks)
    assert read[:2] == ("det", ".stamp")
    assert read[2].endswith(f"test_run_pass_through.py:{inspect.getsourcelines(step)[1] + 1}"), read


def test_a_frozen_dataclass_message_is_watched_too():
    """A frozen dataclass refuses `obj.__class__ = ...` through its own `__setattr__`: before, such a message
    could not be watched at all, so a changing stamp was refused without asking whether the step reads it."""
    from dataclasses import dataclass

    @dataclass(frozen=True)
    class Ping:
        stamp: float
        seq: int
        depth: float

    def step(msg):
        return {"stamp": msg.stamp, "depth": msg.depth * 2}

    args, kwargs, checks = unread_parts.watching(inspect.signature(step), (Ping(0.5, 3, 1.0),), {},
                                                 {"msg": [".stamp", ".seq"]})
    step(*args, **kwargs)
    line = inspect.getsourcelines(step)[1] + 1
    assert unread_parts.first_read(checks)[:2] == ("msg", ".stamp")
    skip = unread_parts.host_read_sites(step, ((line, "msg.stamp"),))
    assert unread_parts.first_read(checks, skip) is None
