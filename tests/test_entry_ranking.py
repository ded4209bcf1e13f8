"""Entry ranking signals, each on a fixture app of its own shape: a callback handed to an SDK by keyword whose
body holds the pipeline, a network called amid the pipeline of a deploy loop, environment steps and copied
folders as decoys, a peer class chosen by a config defaults list, and Hydra configs of the instantiating class."""
from __future__ import annotations

import ast
import json
import shutil
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_entry_discovery import tree_hash

from leapp_codemod.analysis.entry.callbacks import registered_callbacks
from leapp_codemod.analysis.entry.config_choice import default_choices, named_in
from leapp_codemod.analysis.entry.drivers import is_training_loop
from leapp_codemod.analysis.entry.loops import (
    inline_pipelines,
    is_model_name,
    model_call,
)
from leapp_codemod.analysis.entry.ordering import (
    PART_PENALTY,
    below_parts,
    built_on_self,
    copied_folder,
    covers_body,
    retired_folder,
)
from leapp_codemod.analysis.entry.signs import deploy_path
from leapp_codemod.analysis.model.index import FunctionInfo
from leapp_codemod.cli import main
from leapp_codemod.model import Entrypoint
from leapp_codemod.scan import load_project

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def app(tmp_path: Path, name: str) -> Path:
    shutil.copytree(FIXTURES / name, tmp_path / name)
    return tmp_path / name


def expected(name: str) -> dict:
    return tomllib.loads((FIXTURES / name / "expected.toml").read_text(encoding="utf-8"))


def ranked(root: Path, monkeypatch) -> list[dict]:
    monkeypatch.chdir(root)
    before = tree_hash(root)
    result = CliRunner().invoke(main, ["entrypoints", ".", "--format", "json", "--limit", "0"],
                                catch_exceptions=False)
    assert result.exit_code == 0 and "Traceback" not in result.stdout + result.stderr
    assert tree_hash(root) == before       # the application is never modified
    return json.loads(result.stdout)["entrypoints"]


def by_id(candidates: list[dict]) -> dict[str, dict]:
    return {c["entry"]: c for c in candidates}


# --------------------------------------------------------------------------- callbacks
def test_a_callback_handed_by_keyword_holds_the_inline_range(tmp_path, monkeypatch):
    want = expected("entry_stream_callback")
    candidates = ranked(app(tmp_path, "entry_stream_callback"), monkeypatch)
    assert [c["entry"] for c in candidates[:2]] == [want["callback"], want["range"]]
    the_range = by_id(candidates)[want["range"]]
    assert "callback" in the_range["reasons"][0]
    callback = by_id(candidates)[want["callback"]]
    assert any(r.startswith("registered in GraspService.__init__") for r in callback["reasons"])
    # the range is the callback's whole body: the function is offered first, saying so
    assert any(r.startswith(f"its body is the inline range {want['range']}") for r in callback["reasons"])
    # the status callback runs no model: it is not offered above either
    status = by_id(candidates).get("grasp_service:GraspService.on_status")
    assert status is None or status["score"] < callback["score"]


def test_a_scan_without_entry_starts_from_the_callback_whose_body_is_the_range(tmp_path, monkeypatch):
    root = app(tmp_path, "entry_stream_callback")
    monkeypatch.chdir(root)
    out = CliRunner().invoke(main, ["scan", ".", "--format", "json", "--no-cache"], catch_exceptions=False)
    document = json.loads(out.stdout)
    assert document["entry"] == expected("entry_stream_callback")["entry"]
    # the blended opening kept on `self` for the next frame is state of the range
    assert ("grasp_service.py", 32, "LCM702") in {(f["path"], f["line"], f["code"]) for f in document["findings"]}


def test_a_range_covers_a_body_when_only_a_docstring_precedes_and_sends_follow_it():
    fn = ast.parse(textwrap.dedent('''
        def on_tick(self):
            """One control tick."""
            q = self.read()
            a = self.net(q)
            self.last = a
            self.bus.publish(a)
            self.log.debug("sent")
        ''')).body[0]
    assert covers_body(fn, 4, 6)             # docstring before, two sends after
    assert not covers_body(fn, 5, 6)         # the read of the observation is left out
    assert not covers_body(fn, 4, 5)         # `self.last = a` is kept after the range: not a send
    assert covers_body(fn, 4, 8)             # the sends inside the range too


def test_thread_and_timer_classes_and_target_keywords_register_callbacks(tmp_path):
    (tmp_path / "loops.py").write_text(textwrap.dedent('''
        from vendor import PeriodicThread, Worker, Ticker


        class Robot:
            def __init__(self):
                self.a = PeriodicThread(self.control, 0.01)
                self.b = Worker(name="w", target=self.watch)
                self.c = Ticker(self.idle)
                self.d = PeriodicThread(lambda: self.on_leg("front", 1), 0.1)

            def control(self):
                pass

            def watch(self):
                pass

            def idle(self):
                pass

            def on_leg(self, name, value):
                pass
        '''))
    project = load_project([str(tmp_path)]).project
    registered = {fid.rpartition(".")[2] for fid in registered_callbacks(project)}
    # `Ticker(self.idle)` names no thread, timer or target; a lambda hands over the method it calls
    assert registered == {"control", "watch", "on_leg"}


# --------------------------------------------------------------------------- networks inside a range
def test_the_range_around_a_network_outranks_the_network(tmp_path, monkeypatch):
    want = expected("entry_network_in_range")
    candidates = ranked(app(tmp_path, "entry_network_in_range"), monkeypatch)
    assert candidates[0]["entry"] == want["entry"]
    network = by_id(candidates)[want["network"]]
    assert network["score"] < candidates[0]["score"]
    assert any(r.startswith(f"ranked below the range {want['entry']}") for r in network["reasons"])


# --------------------------------------------------------------------------- decoys
def test_environment_steps_and_copied_folders_rank_below_the_agent(tmp_path, monkeypatch):
    want = expected("entry_env_copies")
    candidates = ranked(app(tmp_path, "entry_env_copies"), monkeypatch)
    assert candidates[0]["entry"] == want["entry"]
    step = by_id(candidates)[want["environment"]]
    assert any("environment's step" in r for r in step["reasons"])
    copies = [c for c in candidates if want["copy_folder"] in c["path"]]
    assert copies and all(any("named like a copy" in r for r in c["reasons"]) for c in copies)
    assert all(c["score"] < candidates[0]["score"] for c in copies)
    # the copy's module is named from the working directory (no machine path), and `--entry` takes the spelling
    assert all(str(tmp_path) not in c["entry"] for c in copies)
    out = CliRunner().invoke(main, ["scan", ".", "--entry", copies[0]["entry"]], catch_exceptions=False)
    assert out.exit_code in (0, 1) and out.stdout.startswith(f"entry: {copies[0]['entry']} (given with --entry)")


@pytest.mark.parametrize("path, folder", [
    ("a/gym_envs (copy)/x.py", "gym_envs (copy)"), ("Copy of deploy/run.py", "Copy of deploy"),
    ("deploy_copy2/run.py", "deploy_copy2"), ("scripts.bak/run.py", "scripts.bak"), ("old/run.py", "old"),
    ("copyright/run.py", None), ("golden/run.py", None), ("scripts/copy.py", None), ("holdout/a.py", None)])
def test_folders_named_like_copies(path, folder):
    assert copied_folder(path) == folder


@pytest.mark.parametrize("path, folder", [
    ("sim2real/deprecated/run.py", "deprecated"), ("Legacy/deploy.py", "Legacy"), ("archive/a/play.py", "archive"),
    ("legacy_gym/envs/base.py", None), ("scripts/deprecated.py", None), ("unused_imports/a.py", None)])
def test_folders_named_for_retired_code(path, folder):
    assert retired_folder(path) == folder


def test_a_candidate_in_a_retired_folder_ranks_below_the_same_code_in_use(tmp_path, monkeypatch):
    root = app(tmp_path, "entry_range_around_wrapper")
    retired = root / "deprecated"
    retired.mkdir()
    for name in ("squeeze.py", "gripper_head.py", "hand.py"):
        (retired / name).write_text((root / name).read_text(encoding="utf-8"), encoding="utf-8")
    candidates = ranked(root, monkeypatch)
    assert not candidates[0]["path"].startswith("deprecated/")
    moved = [c for c in candidates if c["path"].startswith("deprecated/")]
    assert moved and all(any("a folder named for code taken out of use" in r for r in c["reasons"]) for c in moved)
    assert all(c["score"] < candidates[0]["score"] for c in moved)


def test_a_local_lambda_named_like_a_controller_is_no_model(tmp_path, monkeypatch):
    (tmp_path / "arm.py").write_text(textwrap.dedent('''
        import numpy as np


        class Arm:
            def move(self, target):
                controller_ok = lambda s: bool(np.all(np.abs(s) < 2.0))
                if controller_ok(target):
                    return target * 0.5
                return target * 0.0


        def main():
            arm = Arm()
            for i in range(5):
                arm.move(np.ones(3) * i)


        if __name__ == "__main__":
            main()
        '''))
    move = by_id(ranked(tmp_path, monkeypatch)).get("arm:Arm.move")
    assert move is None or not any("nn.Module" in r for r in move["reasons"])


def test_a_diffusion_sampler_step_is_no_training_but_an_optimizer_step_is():
    def fn(code: str) -> FunctionInfo:
        node = ast.parse(textwrap.dedent(code)).body[0]
        return FunctionInfo("m:rollout", "m", "rollout", node, None, "m.py")

    assert not is_training_loop(fn('''
        def rollout(x):
            for t in noise_scheduler.timesteps:
                x = noise_scheduler.step(model_output=eps(x, t), timestep=t, sample=x).prev_sample
            return x
        '''))
    assert is_training_loop(fn('''
        def rollout(x):
            for batch in x:
                lr_scheduler.step()
        '''))


def test_models_called_through_a_container():
    def call(code: str) -> ast.Call:
        return ast.parse(code).body[0].value

    assert model_call(call("nets['policy_net'](obs)"), set()) == "nets['policy_net']"
    assert model_call(call("self.models[name](obs)"), set()) == "self.models[name]"
    assert model_call(call("buffers['frames'](obs)"), set()) is None
    assert is_model_name("nets") and is_model_name("policies") is False and not is_model_name("load_models")


# --------------------------------------------------------------------------- configs
def test_the_config_default_selects_the_peer(tmp_path, monkeypatch):
    want = expected("entry_config_choice")
    candidates = ranked(app(tmp_path, "entry_config_choice"), monkeypatch)
    assert candidates[0]["entry"] == want["entry"]
    assert any("select by default" in r and "mlp_planner.yaml" in r for r in candidates[0]["reasons"])
    assert by_id(candidates)[want["peer"]]["score"] < candidates[0]["score"]


def test_defaults_lists_are_read_as_text():
    text = "defaults:\n  - _self_\n  - policy: small_mlp  # the default\n  - override env: sim\nseed: 1\n" \
           "other:\n  - policy: not_a_default\n"
    assert default_choices(text) == [("policy", "small_mlp"), ("env", "sim")]
    assert named_in("_target_: pkg.nets.SmallMlp\nkind: SmallMlp\nname: small\n", "x.yaml") == {"SmallMlp"}


def test_hydra_configs_of_the_instantiating_class_bind_the_model(tmp_path, monkeypatch):
    want = expected("entry_hydra_runner")
    candidates = ranked(app(tmp_path, "entry_hydra_runner"), monkeypatch)
    assert candidates[0]["entry"] == want["entry"]
    assert any("called in a loop by DeployRunner.run" in r for r in candidates[0]["reasons"])
    other = by_id(candidates).get(want["other"])
    assert other is None or not any("DeployRunner.run" in r for r in other["reasons"])


def test_a_with_block_is_one_statement_unless_it_holds_the_whole_pipeline():
    def ranges(code: str) -> list[tuple[int, int]]:
        loop = ast.parse(textwrap.dedent(code)).body[0]
        return [(p.start, p.end) for p in inline_pipelines(loop, set(), lambda call: False)]

    # only the model call is inside the `with`: the range runs from the observation to the scaled action
    assert (3, 7) in ranges('''
        while True:
            obs = read_sensors()
            x = torch.from_numpy(obs)
            with torch.no_grad():
                y = policy(x)
            action = y.numpy() * 0.5
            robot.send(action)
        ''')
    # the `with` block builds the input and uses the output itself: its own statements are the range
    assert ranges('''
        while True:
            obs = camera.grab()
            with torch.no_grad():
                batch = prepare(obs)
                y = policy(batch)
                action = y.numpy()[0]
            robot.execute(action)
            log_frame(obs, action)
        ''') == [(5, 7)]


def test_networks_another_class_builds_and_keeps_are_parts(tmp_path, monkeypatch):
    (tmp_path / "pixels.py").write_text(textwrap.dedent('''
        import torch
        from torch import nn


        class Encoder(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv2d(3, 8, 3)

            def forward(self, image):
                return self.conv(image).flatten(1)


        class Head(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(8, 2)

            def forward(self, features):
                return torch.tanh(self.fc(features))


        class PixelAgent:
            def __init__(self):
                self.encoder = Encoder()
                self.head = nn.Sequential(Head())

            def choose(self, image):
                with torch.no_grad():
                    return self.head(self.encoder(image))
        '''))
    project = load_project([str(tmp_path)]).project
    assert built_on_self(project) == {"pixels:Encoder": "PixelAgent.__init__", "pixels:Head": "PixelAgent.__init__"}
    listed = [Entrypoint("pixels", q, "pixels.py", 1, 8, ("r",)) for q in
              ("Encoder.forward", "Head.forward", "PixelAgent.choose")]
    scores = {c.qualname: c.score for c in below_parts(listed, project)}
    assert scores == {"Encoder.forward": 8 - PART_PENALTY, "Head.forward": 8 - PART_PENALTY, "PixelAgent.choose": 8}


def test_a_model_one_runtime_class_keeps_whole_is_no_part(tmp_path):
    # a serving class (no network) loads one grasp network and runs it: the network is the model, not a part
    # of one; the same network kept by a bigger network is a part of it
    (tmp_path / "grasp.py").write_text(textwrap.dedent('''
        import torch
        from torch import nn


        class GraspNet(nn.Module):
            def __init__(self, width):
                super().__init__()
                self.mlp = nn.Linear(width, 4)

            def forward(self, cloud):
                return self.mlp(cloud.mean(dim=1))


        class GraspServer:
            def __init__(self, path):
                self.weights = torch.load(path)
                self.net = GraspNet(64)
                self.net.load_state_dict(self.weights)

            def propose(self, cloud):
                return self.net(cloud)


        class TwoStage(nn.Module):
            def __init__(self):
                super().__init__()
                self.coarse = GraspNet(32)

            def forward(self, cloud):
                return self.coarse(cloud)
        '''))
    project = load_project([str(tmp_path)]).project
    assert built_on_self(project) == {"grasp:GraspNet": "TwoStage.__init__"}
    (tmp_path / "grasp.py").write_text((tmp_path / "grasp.py").read_text().split("class TwoStage")[0])
    project = load_project([str(tmp_path)]).project
    assert built_on_self(project) == {}
    listed = [Entrypoint("grasp", q, "grasp.py", 1, 8, ("r",)) for q in ("GraspNet.forward", "GraspServer.propose")]
    assert {c.qualname: c.score for c in below_parts(listed, project)} == {"GraspNet.forward": 8,
                                                                          "GraspServer.propose": 8}


@pytest.mark.parametrize("paths, part", [
    (("sim2real/rl_policy/walk.py",), "sim2real"), (("pkg/models/net.py", "scripts/play_policy.py"), "play_policy.py"),
    (("eval_policy_pusht.py",), "eval_policy_pusht.py"), (("pkg/models/net.py", "tools/train.py"), None),
    (("envs/real/ur3_env.py",), None)])
def test_deploy_play_and_evaluation_code_is_recognised_by_its_path(paths, part):
    assert deploy_path(*paths) == part


def test_a_name_made_of_an_action_word_and_a_step_verb_is_a_policy_step(tmp_path, monkeypatch):
    (tmp_path / "arm_bridge.py").write_text(textwrap.dedent('''
        import torch


        class ArmBridge:
            def __init__(self):
                self.net = torch.jit.load("arm.pt")
                self.last = None

            def choose_arm_action(self, joints):
                return self.net(torch.as_tensor(joints))

            def remember(self, joints):
                self.last = self.net(torch.as_tensor(joints))
                return self.last
        '''))
    candidates = ranked(tmp_path, monkeypatch)
    assert candidates[0]["entry"] == "arm_bridge:ArmBridge.choose_arm_action"
    assert "named like a policy step (`choose_arm_action`)" in candidates[0]["reasons"]


def test_a_receiver_hydra_builds_from_a_config_target_is_a_model(tmp_path, monkeypatch):
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "grasp.yaml").write_text("backbone:\n  _target_: timm.create_model\n  model_name: r18\n")
    (tmp_path / "grasp_runner.py").write_text(textwrap.dedent('''
        import hydra
        import torch


        class GraspRunner:
            def __init__(self, cfg):
                self.backbone = hydra.utils.instantiate(cfg.backbone)

            def score_grasps(self, image):
                return self.backbone(torch.as_tensor(image))


        @hydra.main(config_path="conf", config_name="grasp")
        def main(cfg):
            runner = GraspRunner(cfg)
            for frame in range(10):
                print(runner.score_grasps(frame))


        if __name__ == "__main__":
            main()
        '''))
    step = by_id(ranked(tmp_path, monkeypatch))["grasp_runner:GraspRunner.score_grasps"]
    assert "calls an nn.Module or a loaded model" in step["reasons"]
    assert not any(r.startswith("no sign of a model") for r in step["reasons"])


def test_an_attribute_holding_a_loaded_model_is_a_model_whatever_its_name(tmp_path, monkeypatch):
    (tmp_path / "hand_node.py").write_text(textwrap.dedent('''
        import numpy as np
        import onnxruntime as ort


        class HandNode:
            def __init__(self):
                self.ort_sess = ort.InferenceSession("hand.onnx")
                self.jit_mod = load_scripted("hand.pt")

            def compute(self, joints):
                feeds = {"obs": np.asarray(joints, dtype=np.float32)[None]}
                return self.ort_sess.run(None, feeds)[0]

            def blend(self, joints):
                return self.jit_mod(joints)


        def load_scripted(path):
            return path


        def main():
            node = HandNode()
            for _ in range(10):
                node.compute(np.zeros(16))
                node.blend(np.zeros(16))


        if __name__ == "__main__":
            main()
        '''))
    candidates = by_id(ranked(tmp_path, monkeypatch))
    assert "calls an nn.Module or a loaded model" in candidates["hand_node:HandNode.compute"]["reasons"]
    blend = candidates.get("hand_node:HandNode.blend")     # a project function returns it: no loader
    assert blend is None or "calls an nn.Module or a loaded model" not in blend["reasons"]


def test_code_in_a_trainers_package_is_training_code_only_when_it_trains():
    idle = ast.parse("def worker(queue):\n    while True:\n        queue.get()\n").body[0]
    sampling = ast.parse("def worker(rb):\n    while True:\n        batch = rb.sample(256)\n").body[0]
    assert not is_training_loop(FunctionInfo("lib.trainers.parallel:worker", "lib.trainers.parallel", "worker", idle,
                                             None, "lib/trainers/parallel.py"))
    assert is_training_loop(FunctionInfo("lib.players.parallel:worker", "lib.players.parallel", "worker", sampling,
                                         None, "lib/players/parallel.py"))


def test_positional_registrations_on_library_objects_and_registering_names(tmp_path):
    (tmp_path / "arm_node.py").write_text(textwrap.dedent('''
        import atexit
        from multiprocessing import Pool

        from fieldbus import Bus, FrameReader


        class ArmNode:
            def __init__(self):
                self.reader = FrameReader("cam0")
                self.reader.Start(self.on_frame, 30)          # a method of a library object
                bus = Bus()
                bus.add_listener("joint_states", self.on_joints)   # named for registering
                self.pool = Pool(2)
                self.pool.map(self.decode, ["a", "b"])        # applied there and then
                atexit.register(self.shutdown)                # runs once at exit
                self.order = sorted([3, 1], key=self.rank)
                self.helper(self.scale)                       # a project method, named for nothing

            def on_frame(self, frame):
                pass

            def on_joints(self, msg):
                pass

            def decode(self, item):
                pass

            def shutdown(self):
                pass

            def rank(self, x):
                return x

            def scale(self, x):
                return x

            def helper(self, fn):
                return fn(1)
        '''))
    project = load_project([str(tmp_path)]).project
    registered = {fid.rpartition(".")[2] for fid in registered_callbacks(project)}
    assert registered == {"on_frame", "on_joints"}


# --------------------------------------------------------------------------- training code
def test_a_step_judged_training_code_never_outranks_a_model_that_trains_nothing(tmp_path, monkeypatch):
    want = expected("entry_training_step_in_loop")
    candidates = ranked(app(tmp_path, "entry_training_step_in_loop"), monkeypatch)
    assert candidates[0]["entry"] == want["entry"]
    step = by_id(candidates)[want["training"]]
    # the loop and driver signs stay in its reasons; the training verdict decides its place
    assert any("called in a loop" in r for r in step["reasons"])
    assert any(r.endswith("(training code)") for r in step["reasons"])
    assert step["score"] < candidates[0]["score"]


def test_only_a_step_that_is_no_network_ranks_a_held_networks_same_named_method_below_it(tmp_path):
    from leapp_codemod.analysis.entry.peers import below_delegated_models
    (tmp_path / "arm.py").write_text(textwrap.dedent('''
        import torch
        from torch import nn


        class Trunk(nn.Module):
            def forward(self, x):
                return x * 2

            def act(self, x):
                return self.forward(x)


        class Critic(nn.Module):
            def __init__(self):
                super().__init__()
                self.trunk = Trunk()

            def forward(self, x):
                return self.trunk.forward(x).sum()

            def act(self, x):
                return self.trunk.act(x)


        class Reacher:
            def __init__(self, net):
                self.net = net

            def act(self, obs):
                return self.net.act(torch.as_tensor(obs))
        '''))
    project = load_project([str(tmp_path)]).project
    signed = ("calls an nn.Module or a loaded model",)
    listed = [Entrypoint("arm", q, "arm.py", 1, 8, signed) for q in
              ("Trunk.forward", "Critic.forward", "Trunk.act", "Critic.act", "Reacher.act")]
    scores = {c.qualname: c.score for c in below_delegated_models(listed, project)}
    # Reacher.act (no network) runs the held network's `act`: the networks' `act`s go one below it; a network's
    # `forward`/`act` calling its block's is composition and demotes nothing on its own
    assert scores == {"Trunk.forward": 8, "Critic.forward": 8, "Trunk.act": 7, "Critic.act": 7, "Reacher.act": 8}


@pytest.mark.parametrize("path, name", [
    ("scripts/record_sim2sim.py", "record_sim2sim.py"), ("diagnose_mujoco.py", "diagnose_mujoco.py"),
    ("ros/dataLogger.py", "dataLogger.py"), ("parallel_data_collection.py", "parallel_data_collection.py"),
    ("recorder/deploy.py", None), ("deploy_real.py", None), ("velocity_profile.py", None), ("recordings.py", None)])
def test_scripts_named_for_recording_or_checking_data(path, name):
    from leapp_codemod.analysis.entry.signs import side_script
    assert side_script(path) == name


def test_a_twin_of_the_pipeline_in_a_recording_script_ranks_below_it(tmp_path, monkeypatch):
    root = app(tmp_path, "entry_range_around_wrapper")
    (root / "record_grasps.py").write_text((root / "squeeze.py").read_text(encoding="utf-8"), encoding="utf-8")
    candidates = ranked(root, monkeypatch)
    assert candidates[0]["entry"] == expected("entry_range_around_wrapper")["entry"]
    twin = next(c for c in candidates if c["path"] == "record_grasps.py")
    assert twin["score"] == candidates[0]["score"] - 2
    assert any(r.startswith("written in `record_grasps.py`, a script named for recording") for r in twin["reasons"])


@pytest.mark.parametrize("folder, demoted", [("scripts", True), ("deprecated", False), ("deploy (copy)", False)])
def test_only_a_range_in_use_pulls_a_rollout_driven_step_below_it(folder, demoted):
    from leapp_codemod.analysis.entry.uses import ROLLOUT_DRIVEN, below_built_pipelines
    step = Entrypoint("sim", "Player.step", "sim.py", 3, 9, (f"{ROLLOUT_DRIVEN} (the loop at sim.py:20)",))
    path = f"{folder}/run.py"
    the_range = Entrypoint("run", "main@10", path, 10, 6, ("r",), kind="inline", start=11, end=19)
    out = below_built_pipelines([step, the_range], {f"{path}:11-19": 8}, 6)
    assert (out[0].score == 5) is demoted and (out[0].score == 9) is not demoted
