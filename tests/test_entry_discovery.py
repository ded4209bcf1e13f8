"""Entrypoint discovery and entry naming on apps written like real robotics code.

The `entry_*` fixture apps: scripts in folders without `__init__.py` driven from `__main__` blocks
(with a test caller, a training loop, a critic and an environment step as decoys), a pipeline written
inline in a driver loop, and entries named through inheritance and closures.
"""
from __future__ import annotations

import hashlib
import json
import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_scan_fixtures import markers

from leapp_codemod.analysis.entry.loops import inline_pipelines, loaded_models
from leapp_codemod.scan import scan_project
from leapp_codemod.cli import main
from leapp_codemod.generate.source_info import import_root, read_entry
from leapp_codemod.source.files import discover
from leapp_codemod.source.roots import package_name

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
APPS = ("entry_deploy_scripts", "entry_inline_loop", "entry_inherited")


def tree_hash(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


@pytest.fixture(scope="module")
def apps(tmp_path_factory):
    root = tmp_path_factory.mktemp("entry_apps")
    for app in APPS:
        shutil.copytree(FIXTURES / app, root / app)
    return root


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def run(cwd: Path, monkeypatch, *args: str):
    monkeypatch.chdir(cwd)
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert "Traceback" not in result.stdout + result.stderr
    return result


def expected(app: str) -> dict:
    return tomllib.loads((FIXTURES / app / "expected.toml").read_text(encoding="utf-8"))


def found(document: dict) -> set[tuple[str, int, str]]:
    return {(f["path"], f["line"], f["category"]) for f in document["findings"]}


# --------------------------------------------------------------------------- drivers and decoys
def test_main_driven_step_in_a_script_folder_is_ranked_first(apps, monkeypatch):
    root = apps / "entry_deploy_scripts"
    before = tree_hash(root)
    ranked = json.loads(run(root, monkeypatch, "entrypoints", ".", "--format", "json", "--limit", "0").stdout)
    ids = [e["entry"] for e in ranked["entrypoints"]]
    assert ids[0] == expected("entry_deploy_scripts")["entry"]
    assert any("driver" in reason for reason in ranked["entrypoints"][0]["reasons"])
    # the critic called in a loop by a test, and the environment step, rank below it or not at all
    scores = {e["entry"]: e["score"] for e in ranked["entrypoints"]}
    assert scores.get("controller:Controller.get_value", -99) < scores[ids[0]] - 5
    assert scores.get("robot_env:RobotEnv.step", -99) < scores[ids[0]] - 5
    assert not any(e["path"].startswith("tests/") for e in ranked["entrypoints"])
    assert tree_hash(root) == before


def test_scan_of_script_folders_resolves_sibling_imports(apps, monkeypatch):
    root = apps / "entry_deploy_scripts"
    want, clean = markers(root)
    result = run(root, monkeypatch, "scan", ".", "--format", "json")
    document = json.loads(result.stdout)
    assert document["entry"] == expected("entry_deploy_scripts")["entry"]
    assert document["entry_note"].startswith(f"entry: {document['entry']} (called in a loop by main")
    got = found(document)
    assert got == want
    assert not {(p, n) for p, n, _ in got} & clean
    monkeypatch.chdir(root)
    reachable = set(scan_project(["."]).reachable)
    assert set(expected("entry_deploy_scripts")["reachable"]) <= reachable
    assert not set(expected("entry_deploy_scripts")["unreachable"]) & reachable


def test_module_names_do_not_depend_on_the_path_typed(apps, monkeypatch):
    root = apps / "entry_deploy_scripts"
    monkeypatch.chdir(root)
    from_root = {Path(s.display).name: {s.module, *s.aliases} for s in discover(["."]).files
                 if "deploy/" in s.display}
    from_folder = {Path(s.display).name: {s.module, *s.aliases} for s in discover(["deploy"]).files}
    assert from_root.keys() == from_folder.keys()
    for name, names in from_root.items():  # every name a full scan knows is known to a partial one
        assert names <= from_folder[name], name
    names = {s.module for s in discover(["."]).files}
    assert {"deploy.util", "tools.util", "controller", "run_robot"} <= names
    assert not any("@" in name for name in names)
    monkeypatch.chdir(root / "deploy")
    result = run(root / "deploy", monkeypatch, "scan", ".", "--format", "json")
    assert json.loads(result.stdout)["entry"] == "controller:Controller.compute_action"


def test_folder_names_that_are_not_identifiers_end_the_package(tmp_path):
    repo = tmp_path / "my-repo"
    (repo / "pkg").mkdir(parents=True)
    for path in (repo / "__init__.py", repo / "pkg" / "__init__.py", repo / "pkg" / "mod.py"):
        path.write_text("")
    assert package_name(repo / "pkg" / "mod.py") == ("pkg.mod", False)


# --------------------------------------------------------------------------- inline pipelines
def test_inline_loop_is_its_own_kind_of_candidate(apps, monkeypatch):
    root = apps / "entry_inline_loop"
    want = expected("entry_inline_loop")
    document = json.loads(run(root, monkeypatch, "entrypoints", ".", "--format", "json").stdout)
    first = document["entrypoints"][0]
    start, _, end = want["entry"].rpartition(":")[2].partition("-")
    assert first == {**first, "kind": "inline", "entry": want["entry"], "path": "sim_deploy.py",
                     "line": want["loop_line"], "start": int(start), "end": int(end)}
    text = run(root, monkeypatch, "entrypoints", ".").stdout.splitlines()[0]
    assert text.startswith(f"1. inline loop at sim_deploy.py:{want['loop_line']} (statements {start}-{end})")
    scan = run(root, monkeypatch, "scan", ".")   # the inline range ranked first is the entry the scan uses
    assert scan.stdout.splitlines()[0].startswith(f"entry: {want['entry']} (the inline loop at sim_deploy.py")
    assert "LCM703" in scan.stdout                   # and its findings are the range's (the obs buffer)


SESSION_LOOP = '''
def run(session, robot, history):
    for step in range(1000):
        robot.wait()
        frame = robot.camera()
        history.append(frame)
        stacked = np.stack(history)
        feeds = {"image": stacked[None]}
        outputs = session.run(None, feeds)
        command = outputs[0][0] * 0.1
        logger.info("command %s", command)
        robot.send(command)
'''


def test_inline_slice_of_an_onnx_session_with_a_history_buffer():
    import ast
    tree = ast.parse(SESSION_LOOP)
    loop = next(n for n in ast.walk(tree) if isinstance(n, ast.For))
    [pipeline] = inline_pipelines(loop, loaded_models(tree.body), lambda call: False)
    lines = SESSION_LOOP.splitlines()
    assert lines[pipeline.start - 1].strip() == "frame = robot.camera()"
    assert lines[pipeline.end - 1].strip() == "command = outputs[0][0] * 0.1"
    assert pipeline.model == "session.run"


# --------------------------------------------------------------------------- naming entries
def test_inherited_method_and_closure_entries(apps, monkeypatch):
    root = apps / "entry_inherited"
    want, clean = markers(root)
    names = expected("entry_inherited")
    for entry, paths in ((names["inherited"], {"models/base.py"}), ("recurrent:RecurrentModel.forward", {"models/base.py"}),
                         (names["closure"], {"loader.py", "models/base.py"})):   # the closure calls the model its
        document = json.loads(run(root, monkeypatch, "scan", ".", "--entry", entry, "--format", "json").stdout)
        got = found(document)                                                  # enclosing function builds
        assert got and got <= want and {p for p, _, _ in got} == paths, (entry, got)
        assert not {(p, n) for p, n, _ in got} & clean


def test_generate_reads_the_entries_scan_accepts(apps):
    root = apps / "entry_inherited"
    for module in ("models.recurrent", "recurrent"):
        entry = read_entry(import_root(root), module, "RecurrentModel.forward")
        assert entry.path == (root / "models" / "base.py").resolve()
        assert [p.name for p in entry.params] == ["obs"]


def test_a_rejected_entry_lists_the_nearest_names(apps, monkeypatch):
    root = apps / "entry_inherited"
    result = run(root, monkeypatch, "scan", ".", "--entry", "models.recurent:RecurrentModel.forwad")
    assert result.exit_code == 2
    [line] = result.stderr.splitlines()
    assert "nearest:" in line and "models.recurrent:RecurrentModel" in line


def test_without_a_candidate_the_scan_says_what_it_did(apps, monkeypatch):
    root = apps / "entry_inherited"
    result = run(root, monkeypatch, "scan", ".", "--format", "json")
    document = json.loads(result.stdout)
    assert document["entry"] is None
    assert "no candidate" in document["entry_note"] and "every function" in document["entry_note"]
    assert found(document) >= {("models/base.py", 10, "scalar-extraction")}


def test_limit_option(apps, monkeypatch):
    root = apps / "entry_inline_loop"
    every = json.loads(run(root, monkeypatch, "entrypoints", ".", "--format", "json", "--limit", "0").stdout)
    one = json.loads(run(root, monkeypatch, "entrypoints", ".", "--format", "json", "--limit", "1").stdout)
    assert len(every["entrypoints"]) >= 3
    assert one["entrypoints"] == every["entrypoints"][:1]


# --------------------------------------------------------------------------- models served by getters
GETTER_APP = {
    "agents/__init__.py": "",
    "agents/models.py": '''
import torch


class GaitPolicy(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.body = torch.nn.Linear(8, 4)

    def forward(self, obs):
        return self.body(obs)


class GaitCritic(torch.nn.Module):
    def forward(self, obs):
        return obs.sum()
''',
    "agents/runner.py": '''
from agents.models import GaitCritic, GaitPolicy


class Runner:
    def __init__(self):
        self.policy = GaitPolicy()
        self.critic = GaitCritic()

    def get_inference_policy(self) -> GaitPolicy:
        return self.policy
''',
    "play.py": '''
import torch

from agents.runner import Runner


def play(steps):
    policy = Runner().get_inference_policy()
    obs = torch.zeros(8)
    for _ in range(steps):
        obs = policy(obs).repeat(2)


if __name__ == "__main__":
    play(100)
''',
}


def test_the_model_a_getter_returns_is_what_the_driver_loop_runs(tmp_path, monkeypatch):
    for name, text in GETTER_APP.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    document = json.loads(run(tmp_path, monkeypatch, "entrypoints", ".", "--format", "json", "--limit", "0").stdout)
    first = document["entrypoints"][0]
    assert first["entry"] == "agents.models:GaitPolicy.forward"
    assert any("get_inference_policy" in reason for reason in first["reasons"])
    assert any("called in a loop by play" in reason for reason in first["reasons"])
    assert all(e["kind"] == "function" for e in document["entrypoints"])  # the loop calls a project model
    assert "agents.models:GaitCritic.forward" not in [e["entry"] for e in document["entrypoints"][:1]]


LIBRARY_APP = {
    "rlkit/__init__.py": "",
    "rlkit/policies.py": '''
import torch


class Policy(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(4, 2)

    def forward(self, obs):
        return self.net(obs)

    @torch.no_grad()
    def predict(self, obs):
        return self.forward(torch.as_tensor(obs)).numpy()
''',
    "rlkit/algorithm.py": '''
from rlkit.buffers import Buffer
from rlkit.policies import Policy


class Algorithm:
    def __init__(self, env):
        self.env = env
        self.policy = Policy()
        self.buffer = Buffer()

    def gather(self, steps):
        obs = self.env.reset()
        for _ in range(steps):
            action = self.policy(obs)
            obs = self.env.step(action)
            self.buffer.add(obs, action)

    def learn(self, iterations):
        for _ in range(iterations):
            self.gather(64)
''',
    "rlkit/buffers.py": '''
class Buffer:
    def __init__(self):
        self.items = []

    def add(self, obs, action):
        self.items.append((obs, action))
        return len(self.items)
''',
    "rlkit/evaluation.py": '''
from rlkit.results import read_results


def evaluate_policy(model, env, episodes):
    rewards = []
    for _ in range(episodes):
        obs = env.reset()
        action = model.predict(obs)
        rewards.append(env.step(action))
    return rewards


def plot(folders):
    for folder in folders:
        read_results(folder)
''',
    "rlkit/results.py": '''
def read_results(folder):
    with open(folder) as handle:
        return handle.read()
''',
}


def test_in_a_library_without_drivers_the_policy_step_outranks_training_and_helpers(tmp_path, monkeypatch):
    for name, text in LIBRARY_APP.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    document = json.loads(run(tmp_path, monkeypatch, "entrypoints", ".", "--format", "json", "--limit", "0").stdout)
    ranked = {e["entry"]: e for e in document["entrypoints"]}
    assert document["entrypoints"][0]["entry"] == "rlkit.policies:Policy.predict"
    # the rollout loop runs inside `learn` (training): neither it nor the buffer it fills is a driver's step
    forward = ranked.get("rlkit.policies:Policy.forward", {"reasons": []})
    assert not any("Algorithm.gather" in reason for reason in forward["reasons"])
    assert "rlkit.buffers:Buffer.add" not in ranked
    # a helper called in a loop with no sign of a model ranks below the policy step, if at all
    helper = ranked.get("rlkit.results:read_results")
    assert helper is None or helper["score"] < document["entrypoints"][0]["score"] - 3


def test_generate_rejects_like_scan_and_writes_the_canonical_entry(apps, tmp_path, monkeypatch):
    root = apps / "entry_inherited"
    out = tmp_path / "integration.py"
    bad = run(apps, monkeypatch, "generate", "entry_inherited", "--entry", "models.recurent:RecurrentModel.forward",
              "-o", str(out))
    assert bad.exit_code == 2 and not out.exists()
    [line] = bad.stderr.splitlines()
    assert "nearest: models.recurrent:RecurrentModel.forward" in line
    before = tree_hash(root)
    good = run(apps, monkeypatch, "generate", "entry_inherited", "--entry", "recurrent:RecurrentModel.forward",
               "-o", str(out))
    assert good.exit_code == 0, good.stderr
    assert 'ENTRY = "models.recurrent:RecurrentModel.forward"' in out.read_text()
    assert tree_hash(root) == before


OWN_MAIN = '''
import numpy as np
import torch


def quat_to_gravity(quat):
    return np.array([quat[1], quat[2], 1.0 - quat[0]])


class Deployer:
    def __init__(self, path):
        self.policy = torch.jit.load(path)
        self.last = np.zeros(12, dtype=np.float32)

    def control_tick(self, state):
        obs = np.concatenate([quat_to_gravity(state[:4]), state[4:], self.last])
        self.last = self.policy(torch.from_numpy(obs)).numpy()
        return self.last

    def shutdown(self):
        print("bye")


if __name__ == "__main__":
    deployer = Deployer("policy.pt")
    state = np.zeros(16, dtype=np.float32)
    while True:
        command = deployer.control_tick(state)
    deployer.shutdown()
'''


def test_a_class_driven_from_its_own_main_block_is_the_candidate(tmp_path, monkeypatch):
    (tmp_path / "deploy.py").write_text(OWN_MAIN)
    document = json.loads(run(tmp_path, monkeypatch, "entrypoints", "deploy.py", "--format", "json").stdout)
    first = document["entrypoints"][0]
    assert first["entry"] == "deploy:Deployer.control_tick", document["entrypoints"]
    assert "called in a loop by the module's top-level code" in first["reasons"][0]


def test_folders_a_ros_build_tool_marks_ignored_are_not_scanned(tmp_path):
    """A colcon workspace's install/ and log/ (each holding COLCON_IGNORE) repeat the sources of src/; a package
    a developer keeps out of the build with CATKIN_IGNORE is no source either. The rest is read as usual."""
    for folder in ("src/arm_pkg/arm_pkg", "install/arm_pkg/lib/arm_pkg", "log/latest", "src/old_pkg"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "node.py").write_text("def step(obs):\n    return obs\n")
    for marker in ("install/COLCON_IGNORE", "log/COLCON_IGNORE", "src/old_pkg/CATKIN_IGNORE"):
        (tmp_path / marker).write_text("")
    found = discover([str(tmp_path)])
    assert [Path(f.display).relative_to(tmp_path).as_posix() for f in found.files] == ["src/arm_pkg/arm_pkg/node.py"]
