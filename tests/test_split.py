"""`generate --split ... --reason ...`: a chain of LEAPP nodes cut where named helpers return,
validated end to end; cuts that a value would cross unannotated are refused."""
from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import inprocess
from test_doc_examples import doc_group, find_session

from leapp_codemod.runner.split_report import summarize

ROOT = Path(__file__).resolve().parents[1]
TOOL = [sys.executable, "-m", "leapp_codemod"]
ENTRY = "visionapp.policy:VisionPolicy.act"
SPLIT = "perception=visionapp.perception:encode_depth,actor=visionapp.actor:Actor.decide"
REASON = "the encoder runs on the camera computer at 15 Hz, the actor on the robot at 50 Hz"


def cli(args, cwd):
    if args[0] in inprocess.IN_PROCESS:       # what is printed and returned, not the process
        return inprocess.cli(args, cwd)
    return subprocess.run(TOOL + args, cwd=cwd, capture_output=True, text=True, timeout=300, check=False)


def generate(work, *extra, entry=ENTRY, out="integration.py"):
    return cli(["generate", "visionapp", "--entry", entry, "--driver", "main.py", "-o", out, *extra], work)


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    path = tmp_path_factory.mktemp("split") / "vision"
    shutil.copytree(ROOT / "fixtures" / "run_split", path)
    return path


README_SPLIT = find_session("fixtures/run_split")   # the README's generate --split SPLIT --reason REASON + run


@pytest.mark.e2e
@pytest.mark.xdist_group(doc_group(README_SPLIT))
def test_three_nodes_validated_end_to_end(doc_session):
    import onnx

    assert f"--split {SPLIT}" in README_SPLIT.steps[1].command and REASON in README_SPLIT.steps[1].command
    ran = doc_session(README_SPLIT)        # one export, shared with the README example's test
    run, work, module = ran.done[-1], ran.cwd, ran.scratch / "vision" / "integration.py"
    report = json.loads((ran.scratch / "vision" / "out" / "report.json").read_text())
    assert run.returncode == 0, report.get("error")
    assert report["status"] == "validated" and report["validation"]["ok"]
    split = report["split"]
    assert split["reason"] == REASON and split["problems"] == []
    assert [n["node"] for n in split["nodes"]] == ["perception", "actor", "vision_policy"]
    for node in split["nodes"]:
        onnx.checker.check_model(str(work / node["model"]))
    # a returned call's port is named by the return annotation, else `output`
    assert split["edges"] == {"perception/output": ["actor/output"], "actor/raw": ["vision_policy/raw"],
                              "actor/output1": ["vision_policy/output1"]}
    by_node = {n["node"]: n for n in split["nodes"]}
    assert by_node["perception"]["external_inputs"] == ["depth"]
    assert by_node["actor"]["external_inputs"] == ["command"]        # first read after the first cut
    assert by_node["vision_policy"]["external_inputs"] == []
    assert sorted(report["models"]) == sorted(n["model"] for n in split["nodes"])
    text = module.read_text()
    reason = next(n.value.value for n in ast.parse(text).body if isinstance(n, ast.Assign)
                  and isinstance(n.targets[0], ast.Name) and n.targets[0].id == "SPLIT_REASON")
    assert reason == REASON


def test_a_value_crossing_a_cut_is_refused(work):
    proc = generate(work, "--split", "perception=visionapp.perception:encode_depth", "--reason", "two devices",
                    entry="visionapp.policy:VisionPolicy.act_leaky", out="leaky.py")
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        "leapp-codemod: error: visionapp/policy.py:25: `clipped` is computed or read before the call at line 23 and used after it, "
        "so it would cross a node boundary unannotated; pass it through the helper or split elsewhere")
    assert not (work / "leaky.py").exists()


@pytest.mark.parametrize("args, message", [
    (["--split", SPLIT], "--split needs --reason TEXT"),
    (["--reason", "why"], "--reason is only used with --split"),
    (["--split", "perception", "--reason", "x"], "--split must be NAME=MODULE:FUNCTION"),
    (["--split", "a/b=visionapp.perception:encode_depth", "--reason", "x"], "without '/'"),
    (["--split", "vision_policy=visionapp.perception:encode_depth", "--reason", "x"], "name of the final node"),
    (["--split", "p=visionapp.perception:missing", "--reason", "x"], "--split p:"),
])
def test_usage_errors(work, args, message):
    proc = generate(work, *args, out="bad.py")
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1 and message in proc.stderr


def test_without_split_the_pipeline_stays_one_node(work):
    assert generate(work, out="one.py").returncode == 0
    text = (work / "one.py").read_text()
    assert "SPLIT_ORDER" not in text and "split_boundaries" not in text
    assert "boundary.input_tensors(NODE," in text


def test_an_input_that_should_have_been_an_edge_is_reported(tmp_path):
    module = tmp_path / "m.py"
    module.write_text('INPUTS = ("depth", "command")\nSPLIT_REASON = "r"\nSPLIT_ORDER = ("a", "b")\n'
                      'SPLIT_BOUNDARIES = (("a", "x:f", (("x", "f"),), ("command",)),)\n')
    graph = tmp_path / "g.yaml"
    graph.write_text("models:\n  a: {inputs: [{name: depth}], outputs: [{name: f}], parameters: {model_path: a.onnx}}\n"
                     "  b: {inputs: [{name: f}, {name: command}, {name: clipped}], outputs: [{name: y}],\n"
                     "      parameters: {model_path: b.onnx}}\n"
                     "pipeline:\n  data_flow: {a/f: [b/f]}\n  inputs: {a: [depth], b: [command, clipped]}\n")
    report = summarize(module, graph)
    expected = ("node b: input 'clipped' comes from outside the graph but is not an entry input of this node; it "
                "should have been an edge from a producer (a value crossed a node boundary unannotated)")
    assert report["problems"] == [expected]
    graph.write_text(graph.read_text().replace(", clipped]", "]").replace(", {name: clipped}", ""))
    assert summarize(module, graph)["problems"] == []
