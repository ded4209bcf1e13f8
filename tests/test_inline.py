"""Inline entries (`FILE:START-END`): the range's names, `scan` of exactly the range, bad ranges,
and the in-memory instrumentation (original line numbers, the file never touched)."""
from __future__ import annotations

import json
import re
import shutil
import sys
import traceback
from pathlib import Path

import pytest
from click.testing import CliRunner

from leapp_codemod.analysis.inline.range import (
    RangeError,
    parse_inline_entry,
    read_range,
)
from leapp_codemod.cli import main

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
MARKER = re.compile(r"#\s*(?:expect:\s*(?P<cats>[a-z][a-z, -]*[a-z])|(?P<clean>clean))\s*$")

# fixture, driver (relative to the fixture), range, inputs, state, constants, outputs
CASES = [
    ("inline_mujoco", "deploy/sim2sim.py", (61, 66), ("qpos", "qvel"), (), ("command", "policy"),
     ("action", "target")),
    ("inline_state", "deploy/play.py", (32, 36), ("sensors",), ("last_action",), (), ("action",)),
    ("inline_patch", "deploy/evaluate.py", (22, 26), ("joints",), (), ("self",), ("command",)),
]


def line_of(path: Path, text: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def test_fixture_ranges_are_where_the_pipeline_is():
    """The ranges in CASES start at the observation and end at the action (guards against edits)."""
    starts = {"inline_mujoco": "obs = np.concatenate", "inline_state": "x = torch.as_tensor",
              "inline_patch": "mirrored = mirror("}
    ends = {"inline_mujoco": "target = action * ACTION_SCALE", "inline_state": "last_action = action",
            "inline_patch": "command = np.clip"}
    for fixture, driver, (start, end), *_ in CASES:
        path = FIXTURES / fixture / driver
        assert (line_of(path, starts[fixture]), line_of(path, ends[fixture])) == (start, end)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_range_names_are_classified(case):
    fixture, driver, (start, end), inputs, state, constants, outputs = case
    path = FIXTURES / fixture / driver
    _, rng = read_range(str(path), path.read_text(), start, end)
    assert (rng.inputs, rng.state, rng.constants, rng.outputs) == (inputs, state, constants, outputs)
    assert rng.loop is not None


def test_classification_without_a_loop_and_at_module_level():
    source = ("import numpy as np\nG = 2.0\n\ndef f(a, b):\n    c = a * G\n    d = c + b\n    e = d * 2\n"
              "    return e\n\nx = np.ones(2)\ny = x * G\nz = y + 1\nprint(z)\n")
    _, rng = read_range("m.py", source, 5, 6)
    assert (rng.inputs, rng.state, rng.constants, rng.outputs) == (("a", "b"), (), (), ("d",))
    _, rng = read_range("m.py", source, 11, 11)
    assert (rng.inputs, rng.state, rng.constants, rng.outputs) == (("x",), (), (), ("y",))


def test_in_place_writes_make_a_carried_buffer_state():
    source = ("import numpy as np\n\ndef run(policy, n):\n    hist = np.zeros(4)\n    for i in range(n):\n"
              "        obs = np.ones(4) * i\n        hist[:-1] = hist[1:]\n        hist[-1] = obs.sum()\n"
              "        act = policy(hist)\n        print(act)\n")
    _, rng = read_range("m.py", source, 7, 9)
    assert (rng.inputs, rng.state, rng.constants, rng.outputs) == (("obs",), ("hist",), ("policy",), ("act",))


def test_parse_inline_entry():
    e = parse_inline_entry("deploy/run.py:10-20")
    assert (e.file, e.start, e.end) == ("deploy/run.py", 10, 20)
    assert parse_inline_entry("app.policy:Policy.act") is None


# --------------------------------------------------------------------------- scan --entry FILE:START-END
@pytest.fixture(scope="module")
def copies(tmp_path_factory):
    root = tmp_path_factory.mktemp("inline")
    for fixture, *_ in CASES:
        shutil.copytree(FIXTURES / fixture, root / fixture)
    return root


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def markers(root: Path):
    expected, clean = set(), set()
    for path in sorted(root.rglob("*.py")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            m = MARKER.search(line)
            if m and m["clean"]:
                clean.add((path.relative_to(root).as_posix(), number))
            elif m:
                expected |= {(path.relative_to(root).as_posix(), number, c.strip()) for c in m["cats"].split(",")}
    return expected, clean


def scan_json(args, cwd: Path, monkeypatch) -> tuple[int, dict]:
    monkeypatch.chdir(cwd)
    result = CliRunner().invoke(main, ["scan", *args, "--format", "json"], catch_exceptions=False)
    return result.exit_code, json.loads(result.stdout)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_scan_of_the_range_reports_exactly_the_marked_findings(case, copies, monkeypatch):
    fixture, driver, (start, end), *_ = case
    root = copies / fixture
    expected, clean = markers(root)
    assert clean, "every inline fixture marks the setup/logging lines around its range as clean"
    code, doc = scan_json(["deploy", "--entry", f"{driver}:{start}-{end}"], root, monkeypatch)
    got = {(f["path"], f["line"], f["category"]) for f in doc["findings"]}
    assert got == expected
    assert code == (1 if expected else 0)
    assert doc["entry"].endswith(f"<lines {start}-{end}>")


def test_a_range_reports_what_its_loop_carries_and_the_buffers_it_fills(tmp_path, monkeypatch):
    """A deque of frames and a filtered action carried by a `for` loop in `main()`, and an observation
    assembled in a preallocated buffer: state of the loop, and an untraced buffer."""
    root = tmp_path / "inline_history"
    shutil.copytree(FIXTURES / "inline_history", root)
    expected, clean = markers(root)
    assert len(expected) == 4 and len(clean) == 2
    code, doc = scan_json(["deploy", "--entry", "deploy/rollout.py:22-30"], root, monkeypatch)
    assert {(f["path"], f["line"], f["category"]) for f in doc["findings"]} == expected
    by_line = {f["line"]: f for f in doc["findings"]}
    assert by_line[23]["code"] == "LCM703" and "lines 24" in by_line[23]["message"]
    assert by_line[24]["code"] == "LCM703" and "first on line 23" in by_line[24]["message"]   # each write
    assert "next iteration" in by_line[25]["message"] and "next iteration" in by_line[29]["message"]
    assert code == 1


# `inline_mujoco`'s clean lines print values a whole-function scan does not see as pipeline data (read from the
# simulator's state in the function itself): a print of host values only is no finding in any scan
@pytest.mark.parametrize("case", CASES[2:], ids=[c[0] for c in CASES[2:]])
def test_scanning_the_enclosing_function_instead_flags_the_clean_lines(case, copies, monkeypatch):
    """What the range entry avoids: the logging around the loop is pipeline code for a whole-function scan."""
    fixture = case[0]
    root = copies / fixture
    _, clean = markers(root)
    _, doc = scan_json(["deploy", "--all"], root, monkeypatch)
    assert {(f["path"], f["line"]) for f in doc["findings"]} & clean


def test_a_module_level_loop_is_reachable_only_through_a_range(copies, monkeypatch):
    root = copies / "inline_state"
    _, doc = scan_json(["deploy", "--all"], root, monkeypatch)
    assert not [f for f in doc["findings"] if f["line"] >= 23]      # no function holds the loop
    _, doc = scan_json(["deploy", "--entry", "deploy/play.py:32-36"], root, monkeypatch)
    assert doc["entry"] == "play:<lines 32-36>" and doc["errors"] == []


@pytest.mark.parametrize("rng, message", [
    ("61-90", "line 90 is outside the file"),
    ("62-61", "are not a range"),
    ("30-56", "cross a block boundary"),    # from module level into a function's loop: no block holds both
    ("10-12", "does not end a statement"),
    ("12-12", "START must be the first line of a statement"),
])
def test_bad_ranges_are_one_line_and_exit_2(rng, message, copies, monkeypatch):
    monkeypatch.chdir(copies / "inline_mujoco")
    result = CliRunner().invoke(main, ["scan", "deploy", "--entry", f"deploy/sim2sim.py:{rng}"])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and f"deploy/sim2sim.py:{rng}" in lines[0] and message in lines[0]


def test_a_range_that_cuts_an_if_is_taken_whole_and_says_so(copies, monkeypatch):
    """56-62 starts in the loop body and ends inside the `if` at 58: the `if` is taken whole."""
    monkeypatch.chdir(copies / "inline_mujoco")
    result = CliRunner().invoke(main, ["scan", "deploy", "--entry", "deploy/sim2sim.py:56-62", "--format", "json"])
    assert result.exit_code in (0, 1), result.output
    doc = json.loads(result.output)
    assert doc["errors"] == [] and "lines 56-62 cut a compound statement: taken as 56-" in doc["entry_note"]


def test_concise_output_says_on_stderr_which_lines_were_taken(copies, monkeypatch):
    monkeypatch.chdir(copies / "inline_mujoco")
    result = CliRunner().invoke(main, ["scan", "deploy", "--entry", "deploy/sim2sim.py:56-62", "--format", "concise"])
    assert result.exit_code in (0, 1)
    assert "note: lines 56-62 cut a compound statement: taken as 56-" in result.stderr
    assert "taken as" not in result.stdout


def test_an_inline_entry_outside_the_scanned_files_is_refused(copies, monkeypatch):
    monkeypatch.chdir(copies)
    result = CliRunner().invoke(main, ["scan", "inline_state/deploy", "--entry", "inline_patch/deploy/evaluate.py:22-26"])
    assert result.exit_code == 2 and "not among the scanned files" in result.output


# --------------------------------------------------------------------------- in-memory instrumentation
RAISING = '''import numpy as np


def main():
    gain = 2.0
    for i in range(3):
        x = np.full(2, float(i))
        y = x * gain
        z = y[5]
        print(z)


if __name__ == "__main__":
    main()
'''


def test_traceback_inside_the_range_names_the_drivers_own_line(tmp_path):
    from leapp_codemod.runner import inline

    driver = tmp_path / "drive.py"
    driver.write_text(RAISING)
    before = driver.read_bytes()
    program = inline.instrument(driver, parse_inline_entry(f"{driver}:8-9"))
    module = inline.driver_module(program)
    with pytest.raises(IndexError) as info:
        inline.run_as_main(program, module)
    frames = traceback.extract_tb(info.value.__traceback__)
    assert (frames[-1].filename, frames[-1].lineno, frames[-1].line) == (str(driver), 9, "z = y[5]")
    assert [f.lineno for f in frames if f.filename == str(driver)] == [14, 8, 9]  # main(), the call site, the range
    assert driver.read_bytes() == before
    assert sys.modules["__main__"] is not module


def test_a_range_that_leaves_the_loop_cannot_be_hoisted(tmp_path):
    from leapp_codemod.runner import inline

    driver = tmp_path / "drive.py"
    driver.write_text(RAISING.replace("        z = y[5]", "        if y[0] > 2:\n            break"))
    with pytest.raises(RangeError, match=r"line 10: `break` leaves the range"):
        inline.instrument(driver, parse_inline_entry(f"{driver}:8-10"))


# --------------------------------------------------------------------------- generate on inline entries
OWN_HELPER = '''
def mirror(joints):
    return joints[::-1].copy()
'''


def _driver_with_own_helper(tmp_path: Path, body: str) -> Path:
    shutil.copytree(FIXTURES / "inline_patch" / "deploy", tmp_path / "deploy")
    driver = tmp_path / "deploy" / "evaluate.py"
    driver.write_text(driver.read_text().replace("from joint_utils import mirror\n", body))
    return driver


def generate_cli(args, cwd: Path, monkeypatch):
    monkeypatch.chdir(cwd)
    return CliRunner().invoke(main, ["generate", *args])


def test_a_helper_the_driver_defines_is_patched_in_main_and_never_imported(tmp_path, monkeypatch):
    driver = _driver_with_own_helper(tmp_path, OWN_HELPER)
    start = line_of(driver, "mirrored = mirror(")
    result = generate_cli(["deploy", "--entry", f"deploy/evaluate.py:{start}-{start + 4}", "-o", "integration.py"],
                          tmp_path, monkeypatch)
    assert result.exit_code == 0, result.output
    text = (tmp_path / "integration.py").read_text()
    flat = re.sub(r"\s+", " ", text)   # the module is formatted: a call may be wrapped over several lines
    assert '"__main__", "mirror", mirror_traceable, "evaluate:mirror"' in flat
    assert "import evaluate" not in text and "from evaluate" not in text
    assert "np.flip(joints" in text


def test_a_twin_that_needs_a_driver_global_is_refused(tmp_path, monkeypatch):
    driver = _driver_with_own_helper(tmp_path, "\nAXIS = 0\n" + OWN_HELPER.replace("joints[::-1].copy()",
                                                                                   "np.flip(joints, AXIS)[::-1]"))
    start = line_of(driver, "mirrored = mirror(")
    result = generate_cli(["deploy", "--entry", f"deploy/evaluate.py:{start}-{start + 4}", "-o", "integration.py"],
                          tmp_path, monkeypatch)
    assert result.exit_code == 2
    assert "needs `from evaluate import AXIS`" in result.output and "cannot import" in result.output
    assert not (tmp_path / "integration.py").exists()


def test_an_inline_entry_of_another_file_than_the_driver_is_refused(tmp_path, monkeypatch):
    shutil.copytree(FIXTURES / "inline_patch" / "deploy", tmp_path / "deploy")
    result = generate_cli(["deploy", "--entry", "deploy/evaluate.py:22-26", "--driver", "deploy/joint_utils.py",
                           "-o", "integration.py"], tmp_path, monkeypatch)
    assert result.exit_code == 2 and "inline entry is a range of the driver script" in result.output


def test_a_range_file_may_be_named_from_the_scanned_folder(tmp_path, monkeypatch):
    """`scan deploy --entry play.py:32-36` and `generate deploy --entry play.py:32-36` find the file
    under the folder they were given and name it by its path from the working directory."""
    shutil.copytree(FIXTURES / "inline_state", tmp_path / "inline_state")
    code, doc = scan_json(["deploy", "--entry", "play.py:32-36"], tmp_path / "inline_state", monkeypatch)
    assert doc["entry"] == "play:<lines 32-36>" and code == 1
    result = generate_cli(["deploy", "--entry", "play.py:32-36", "-o", "integration.py"],
                          tmp_path / "inline_state", monkeypatch)
    assert result.exit_code == 0, result.output
    assert '"deploy/play.py:32-36"' in (tmp_path / "inline_state" / "integration.py").read_text()
    missing = CliRunner().invoke(main, ["scan", "deploy", "--entry", "nowhere.py:1-2"])
    assert missing.exit_code == 2 and "nowhere.py: no such file" in missing.output


def test_carried_means_some_path_reads_before_a_write_on_that_path():
    source = (
        "import numpy as np\n"                                      # 1
        "def fly(drone, net, steps):\n"                             # 2
        "    thrust = None\n"                                       # 3
        "    for k in range(steps):\n"                              # 4
        "        imu = drone.imu()\n"                               # 5
        "        if k % 4 == 0:\n"                                  # 6
        "            thrust = net(imu)\n"                           # 7
        "            scale = 1.0\n"                                 # 8
        "        else:\n"                                           # 9
        "            scale = 0.5\n"                                 # 10
        "        parts = []\n"                                      # 11
        "        for rotor in drone.rotors:\n"                      # 12
        "            rotor = rotor * scale\n"                       # 13
        "            gain = rotor + 1\n"                            # 14
        "            parts.append(gain * thrust)\n"                 # 15
        "        if not parts:\n"                                   # 16
        "            continue\n"                                    # 17
        "        total = sum(parts)\n"                              # 18
        "        weights = np.ones(3)\n"                            # 19
        "        weights = weights / weights.sum()\n"               # 20
        "        drone.send(total * weights)\n"                     # 21
    )
    _, rng = read_range("m.py", source, 5, 21)
    assert rng.state == ("thrust",)          # refreshed every 4th step, reused on the others
    assert not {"rotor", "gain", "scale", "weights", "total"} & set(rng.inputs + rng.state)


def test_a_value_refreshed_on_every_kth_step_is_reported_as_carried(tmp_path, monkeypatch):
    from leapp_codemod.scan import scan_project
    lines = [
        "import numpy as np",                                   # 1
        "def fly(drone, net, steps):",                          # 2
        "    thrust = None",                                    # 3
        "    for k in range(steps):",                           # 4
        "        imu = drone.imu()",                            # 5
        "        if k % 4 == 0:",                               # 6
        "            thrust = net(imu)",                        # 7
        "        weights = np.ones(3)",                         # 8
        "        weights = weights / weights.sum()",            # 9
        "        drone.send(thrust * weights)",                 # 10
    ]
    (tmp_path / "flight.py").write_text("\n".join(lines) + "\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))
    found = {(f.line, f.code) for f in scan_project(["."], entry="flight.py:6-10").findings}
    assert (7, "LCM702") in found          # written on every 4th step, read on the others
    assert not {(8, "LCM702"), (9, "LCM702")} & found


def test_range_ports_named_after_graph_operators_are_renamed_like_function_ports(tmp_path, monkeypatch):
    """A range whose carried value is `cat` and whose output is `mul` (names the exported graph gives its own
    values): the state and output ports go through `boundary.fresh_port` as every chosen port name does;
    the state still holds the range's variable `cat`."""
    from leapp_codemod.boundary import graph_reserved

    work = tmp_path / "inline_state"
    shutil.copytree(FIXTURES / "inline_state", work)
    play = work / "deploy" / "play.py"
    play.write_text(re.sub(r"\baction\b", "mul", play.read_text().replace("last_action", "cat")))
    result = generate_cli(["deploy", "--entry", "deploy/play.py:32-36", "-o", "integration.py"], work, monkeypatch)
    assert result.exit_code == 0, result.output
    module = (work / "integration.py").read_text()
    assert '"cat_state": ("leapp_codemod.runner.inline:InlineState", "cat"),' in module
    assert 'return {"mul_out": result[0]}' in module
    assert graph_reserved("cat") and graph_reserved("mul") and not graph_reserved("mul_out")
