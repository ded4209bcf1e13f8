"""Loop-carried names of an inline range (issue 20 item 5): a name every iteration writes before reading it is not
carried (the arms of a chain on a setting string, the first pass of an inner loop over a fixed range), while a
value reused on frames without a new reading is (fixtures/inline_steady)."""
from __future__ import annotations

from scanfixture import FIXTURES

from leapp_codemod.analysis.inline.range import read_range

SCRIPT = FIXTURES / "inline_steady" / "deploy" / "refine.py"


def _range(text: str, start: int = 30, end: int = 42):
    return read_range("refine.py", text, start, end)[1]


def test_only_the_feature_reused_between_frames_is_carried():
    rng = _range(SCRIPT.read_text())
    assert rng.state == ("feat",)
    assert "head" not in rng.inputs and "guess" not in rng.inputs


def test_a_mode_the_loop_reads_anew_keeps_the_head_carried():
    text = SCRIPT.read_text()
    line = '        q = joints()\n'
    assert text.count(line) == 1
    changed = text.replace(line, '        q = joints()\n        settings = {"mode": camera.image()[0]}\n')
    assert "head" in _range(changed, 31, 43).state       # `settings` changes every iteration: no steady arm


def test_an_inner_loop_that_may_not_run_keeps_its_value_carried():
    text = SCRIPT.read_text()
    assert "        passes = 5\n" in text
    changed = text.replace("        passes = 5\n", "        passes = len(q) - 4\n")
    assert "guess" in _range(changed).state              # zero passes leave last tick's guess in place


def test_a_first_pass_branch_on_another_value_is_not_the_first_pass():
    text = SCRIPT.read_text()
    assert "            if k == 0:\n" in text
    assert "guess" in _range(text.replace("            if k == 0:\n", "            if k == 1:\n")).state


def test_a_setting_chain_ending_in_raise_writes_its_name_on_every_iteration():
    text = SCRIPT.read_text()
    velocity = '            head = np.concatenate([feat, q * 2.0])\n'
    assert velocity in text
    changed = text.replace(velocity, velocity + '        else:\n            raise ValueError(settings["mode"])\n')
    assert _range(changed, 30, 44).state == ("feat",)
