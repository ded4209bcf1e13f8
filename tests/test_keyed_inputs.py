"""Dict inputs whose keys the reached calls decide (fixtures/scan_keyed_inputs and variants of its apps): a key
no reached call puts in a dict parameter or in `**kwargs` is absent, so `feed.get("hint")` is its default,
`"wind" in feed` is False and a parameter only a `**feed` spread could fill keeps its default; the blocks
those tests guard are not the pipeline. The keys travel through hops (a parameter handed on whole, spread
with `**`). A call that passes a dict of unknown keys, or a function that fills the dict itself, leaves every
key possible, and the tests on `**kwargs` keys such a spread leaves open are listed (`open_keys`, "keys not
known: ...")."""
from __future__ import annotations

import shutil

import pytest
from scanfixture import FIXTURES, check_marked, found, marked_lines, scan_variant

from leapp_codemod.report.json_format import to_document
from leapp_codemod.report.text import TextOptions, render_text
from leapp_codemod.scan import scan_project

GROUP = "scan_keyed_inputs"
NODE = "grasp.node:GraspNode.on_frame"
ACT = "cart.policy:CartPolicy.act"
LOOP = "main.py:8-9"


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


@pytest.mark.parametrize(("app", "entry"), [("grasp_node", NODE), ("cart_loop", LOOP), ("cart_loop", ACT),
                                            ("caption_player", "captions.player:Player.describe")])
def test_the_marked_lines_and_only_those(tmp_path, monkeypatch, app, entry):
    check_marked(GROUP, tmp_path, monkeypatch, app, entry)


def variant(tmp_path, monkeypatch, app: str, entry: str, module: str, old: str, new: str):
    """The findings of a copy of the app whose `module` has `old` replaced by `new`."""
    return found(scan_variant(GROUP, tmp_path, monkeypatch, app, entry, module, old, new))


def test_a_key_the_caller_adds_keeps_its_block(tmp_path, monkeypatch):
    hits = variant(tmp_path, monkeypatch, "grasp_node", NODE, "grasp/node.py",
                   'feed["depth"] = depth\n', 'feed["depth"] = depth\n        feed["tactile"] = depth[:4]\n')
    assert ("net.py", 18, "LCM201") in hits      # `tactile` is passed now: its block is the pipeline
    assert ("runner.py", 13, "LCM901") in hits
    assert ("net.py", 23, "LCM901") not in hits   # `demo_grip` still is not


def test_a_dict_of_unknown_keys_keeps_every_block(tmp_path, monkeypatch):
    hits = variant(tmp_path, monkeypatch, "grasp_node", NODE, "grasp/node.py",
                   'feed = {"rgb": rgb}', 'feed = dict(msg.extras, rgb=rgb)')
    assert {("net.py", 18, "LCM201"), ("net.py", 23, "LCM901"), ("runner.py", 13, "LCM901")} <= hits


def test_a_key_the_loop_passes_keeps_its_block(tmp_path, monkeypatch):
    hits = variant(tmp_path, monkeypatch, "cart_loop", LOOP, "main.py", "dict(pos=obs)", "dict(pos=obs, hint=obs * 0.1)")
    assert ("policy.py", 9, "LCM201") in hits
    assert ("policy.py", 12, "LCM101") not in hits   # `wind` still is not passed


def test_a_dict_the_hop_fills_itself_keeps_every_block(tmp_path, monkeypatch):
    hits = variant(tmp_path, monkeypatch, "cart_loop", LOOP, "cart/policy.py", "        return self.pi(features(obs_in))",
                   '        obs_in[self.extra_key()] = obs_in["pos"]\n        return self.pi(features(obs_in))')
    assert {("policy.py", 9, "LCM201"), ("policy.py", 12, "LCM101")} <= hits


def test_an_entry_called_once_with_unknown_keys_keeps_every_block(tmp_path, monkeypatch):
    hits = variant(tmp_path, monkeypatch, "cart_loop", ACT, "main.py", "    action = policy.act(inputs)\n",
                   "    action = policy.act(inputs)\n    policy.act(env.observe())\n")
    assert {("policy.py", 9, "LCM201"), ("policy.py", 12, "LCM101")} <= hits


def test_an_entry_whose_callers_name_a_key_keeps_that_block(tmp_path, monkeypatch):
    hits = variant(tmp_path, monkeypatch, "cart_loop", ACT, "main.py", "dict(pos=obs)", "dict(pos=obs, wind=obs[:1])")
    assert ("policy.py", 12, "LCM101") in hits
    assert ("policy.py", 9, "LCM201") not in hits


def test_tests_on_keys_a_spread_leaves_unknown_are_said(tmp_path, monkeypatch):
    root = tmp_path / "caption_player"
    shutil.copytree(FIXTURES / GROUP / "caption_player", root)
    monkeypatch.chdir(root)
    result = scan_project(["."], entry="captions.player:Player.describe")
    line = marked_lines(root, "keys")["open"][1]
    assert [note.split(": `")[0] for note in result.open_keys] == [f"captions/model.py:{line}"]
    document = to_document(result)
    assert document["open_keys"] == list(result.open_keys)
    assert f"keys not known: captions/model.py:{line}" in render_text(result, TextOptions(concise=True))


def test_keys_the_calls_name_leave_nothing_to_say(tmp_path, monkeypatch):
    root = tmp_path / "grasp_node"
    shutil.copytree(FIXTURES / GROUP / "grasp_node", root)
    monkeypatch.chdir(root)
    result = scan_project(["."], entry=NODE)
    assert result.open_keys == ()
    assert "open_keys" not in to_document(result)


def test_a_dict_handed_to_a_call_before_its_test_keeps_the_block(tmp_path, monkeypatch):
    # `self.prepare(feed)` may add keys to the same dict before `infer` tests them
    hits = variant(tmp_path, monkeypatch, "grasp_node", NODE, "grasp/runner.py",
                   '    def infer(self, feed):\n', '    def infer(self, feed):\n        self.net.prepare(feed)\n')
    assert ("runner.py", 14, "LCM901") in hits
