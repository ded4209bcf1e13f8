"""Pipelines assembled at run time: settings an object is built with, callbacks a framework drives,
policy steps found inside the loop body, entries that show no model, and state in arrays held in a dict."""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from leapp_codemod.scan import scan_project
from leapp_codemod.cli import main


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def project(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip())
    return root


def found(result) -> set[tuple[str, int, str]]:
    return {(Path(f.path).name, f.line, f.code) for f in result.findings}


# --------------------------------------------------------------------------- settings
SMOOTHER = '''
import numpy as np


class Smoother:
    def __init__(self, width, kind="mirror", adapt=False):
        self.width = width
        self.kind = kind
        self.adapt = adapt
        self.level = np.zeros(width)

    def __call__(self, x):
        if self.adapt:
            self.level += 0.1 * (x - self.level)
        padded = np.pad(x, 1) if self.kind == "zero" else np.concatenate([x[:1], x, x[-1:]])
        if self.kind in ("median", "percentile"):
            return np.median(padded)
        return padded[1:-1] - self.level
'''


def test_constructor_settings_rule_out_the_blocks_they_guard(tmp_path):
    root = project(tmp_path / "p", {"smooth.py": SMOOTHER, "pipe.py": '''
        from smooth import Smoother


        class Pipe:
            def __init__(self):
                self.front = Smoother(4, kind="mirror")
                self.back = Smoother(4, adapt=False)

            def step(self, x):
                return self.back(self.front(x))
        '''})
    result = scan_project([str(root)], entry="pipe:Pipe.step")
    assert found(result) == set()


def test_a_site_passing_another_value_keeps_the_block(tmp_path):
    root = project(tmp_path / "p", {"smooth.py": SMOOTHER, "pipe.py": '''
        from smooth import Smoother


        class Pipe:
            def __init__(self, adaptive):
                self.front = Smoother(4, kind="median")
                self.back = Smoother(4, adapt=adaptive)

            def step(self, x):
                return self.back(self.front(x))
        '''})
    result = scan_project([str(root)], entry="pipe:Pipe.step")
    assert ("smooth.py", 13, "LCM701") in found(result)       # adapt is not a constant any more
    assert ("smooth.py", 16, "LCM301") in found(result)       # kind "median" takes the median
    assert ("smooth.py", 14, "LCM301") not in found(result)   # np.pad: only kind "zero", never passed


# --------------------------------------------------------------------------- entrypoints
NODE = '''
import threading

import numpy as np
import torch


class ArmNode:
    def __init__(self, node):
        self.model = torch.jit.load("arm.pt")
        self.last = np.zeros(7)
        node.create_timer(0.02, self.tick)
        self.worker = threading.Thread(target=self.watchdog, daemon=True)

    def tick(self):
        joints = self.read_joints()
        self.send(self.compute(joints))

    def compute(self, joints):
        return self.model(torch.as_tensor(joints)).numpy()

    def read_joints(self):
        return np.ones(7)

    def send(self, command):
        print(command)

    def watchdog(self):
        while True:
            self.check()

    def check(self):
        return True


def main(node):
    ArmNode(node)


if __name__ == "__main__":
    main(None)
'''


def test_a_timer_callback_drives_and_its_model_call_is_the_step(tmp_path, monkeypatch):
    root = project(tmp_path / "p", {"arm_node.py": NODE})
    monkeypatch.chdir(root)
    out = CliRunner().invoke(main, ["entrypoints", ".", "--format", "json"])
    ranked = json.loads(out.stdout)["entrypoints"]
    assert ranked[0]["entry"] == "arm_node:ArmNode.compute"
    assert any("ArmNode.tick" in r and "callback registered in ArmNode.__init__" in r for r in ranked[0]["reasons"])
    assert all(e["entry"] != "arm_node:ArmNode.check" for e in ranked[:1])


def test_jax_code_is_not_the_step_and_the_listing_says_how_many_more(tmp_path, monkeypatch):
    files = {"torch_agent.py": '''
        import torch


        class TorchAgent:
            def __init__(self):
                self.net = torch.nn.Linear(3, 2)

            def act(self, obs):
                with torch.no_grad():
                    return self.net(obs)
        ''', "jax_agent.py": '''
        import jax.numpy as jnp


        class JaxAgent:
            def act(self, obs):
                return jnp.tanh(obs)
        ''', "run.py": '''
        import torch

        from jax_agent import JaxAgent
        from torch_agent import TorchAgent


        def main():
            agents = [TorchAgent(), JaxAgent()]
            for _ in range(3):
                for agent in agents:
                    agent.act(torch.zeros(3))


        if __name__ == "__main__":
            main()
        '''}
    root = project(tmp_path / "p", files)
    monkeypatch.chdir(root)
    ranked = json.loads(CliRunner().invoke(main, ["entrypoints", ".", "--format", "json", "--limit", "0"]).stdout)
    names = [e["entry"] for e in ranked["entrypoints"]]
    assert names[0] == "torch_agent:TorchAgent.act"
    assert "jax_agent:JaxAgent.act" not in names[:1]
    text = CliRunner().invoke(main, ["entrypoints", ".", "--limit", "1"]).stdout
    assert text.rstrip().endswith(f"{len(names) - 1} more (--limit 0)")


def test_no_confident_entry_is_said_and_not_called_clean(tmp_path, monkeypatch):
    root = project(tmp_path / "p", {"leds.py": '''
        def blink(values):
            return [v * 2 for v in values]
        ''', "loop.py": '''
        from leds import blink


        def read():
            return [1, 2, 3]


        def main():
            for _ in range(10):
                blink(read())


        if __name__ == "__main__":
            main()
        '''})
    monkeypatch.chdir(root)
    out = CliRunner().invoke(main, ["scan", "."])
    assert "entry: no confident entry" in out.stdout
    assert "--entry leds:blink" in out.stdout
    assert "No hazards found from a guessed entry" in out.stdout
    assert "No hazards found;" not in out.stdout


# --------------------------------------------------------------------------- state in a dict of arrays
def test_writes_into_arrays_held_in_a_dict_attribute_are_state(tmp_path):
    root = project(tmp_path / "p", {"frames.py": '''
        import numpy as np


        class FrameStack:
            def __init__(self, names, depth):
                self.stack = {}
                for name in names:
                    self.stack[name] = np.zeros((depth, 3))

            def push(self, name, value):
                self.stack[name][1:] = self.stack[name][:-1].copy()
                self.stack[name][0] = value
                return self.stack[name].reshape(-1)


        class Policy:
            def __init__(self):
                self.frames = FrameStack(["imu"], 4)

            def act(self, imu):
                return np.tanh(self.frames.push("imu", imu * 0.5))
        '''})
    result = scan_project([str(root)], entry="frames:Policy.act")
    assert {("frames.py", 11, "LCM701"), ("frames.py", 12, "LCM701")} <= found(result)


# --------------------------------------------------------------------------- inline ranges
LOOP = '''
import numpy as np


def encode(image):
    return image.mean(axis=0)


def run(env, net, camera, steps):
    obs = env.reset()
    feat = np.zeros(3)
    for t in range(steps):
        # --- pipeline ---
        if camera.has_frame():
            feat = encode(camera.frame())
        action = net(np.concatenate([obs, feat]))
        obs = env.step(action)
        # --- end ---
    return obs
'''


def test_inline_range_ends_are_trimmed_and_carried_names_are_the_reused_ones(tmp_path):
    from leapp_codemod.analysis.inline.range import read_range
    text = textwrap.dedent(LOOP).lstrip()
    _, rng = read_range("loop.py", text, 12, 17)
    assert (rng.start, rng.end) == (13, 15)     # and the world's step it ends in is where the action leaves
    assert rng.note.startswith("lines 12-17 trimmed to 13-16 (blank or comment lines at the ends); "
                               "lines 13-16 end in the world's step at line 16 (`env.step(action)`): taken as 13-15")
    assert "feat" in rng.state           # written only on frames with an image: the old one is reused
    assert "obs" not in rng.state and "obs" in rng.inputs   # a new reading from env.step every iteration


def test_scan_of_a_range_with_comment_ends_says_it_trimmed(tmp_path, monkeypatch):
    root = project(tmp_path / "p", {"loop.py": LOOP})
    monkeypatch.chdir(root)
    out = CliRunner().invoke(main, ["scan", ".", "--entry", "loop.py:12-17", "--format", "json"])
    doc = json.loads(out.stdout)
    assert "trimmed to 13-16" in doc["entry_note"]
    assert doc["errors"] == []


# --------------------------------------------------------------------------- a dict of models
def test_a_model_looked_up_in_a_dict_the_caller_fills(tmp_path):
    root = project(tmp_path / "p", {"agent.py": '''
        class Agent:
            def __init__(self, models, memory=None):
                self.models = models
                self.actor = self.models.get("actor")

            def act(self, obs):
                return self.actor.act({"obs": obs})
        ''', "nets.py": '''
        import torch


        class Noisy(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.mu = torch.nn.Linear(3, 2)

            def act(self, inputs):
                mean = self.mu(inputs["obs"])
                return mean + torch.randn_like(mean)


        class Critic(torch.nn.Module):
            def act(self, inputs):
                return inputs["obs"].sum().item()
        ''', "run.py": '''
        import torch

        from agent import Agent
        from nets import Critic, Noisy


        def main():
            models = {}
            models["actor"] = Noisy()
            models["critic"] = Critic()
            agent = Agent(models)
            for _ in range(3):
                agent.act(torch.zeros(3))


        if __name__ == "__main__":
            main()
        '''})
    result = scan_project([str(root)], entry="agent:Agent.act")
    assert found(result) == {("nets.py", 11, "LCM801")}      # the critic's .item() is not the actor's
    assert result.not_followed == ()


# --------------------------------------------------------------------------- one naming scheme per folder
def test_neighbours_of_a_module_imported_from_the_root_are_named_alike(tmp_path, monkeypatch):
    root = project(tmp_path / "p", {"pyproject.toml": "[project]\nname = 'p'\n", "robot/io/calib.py": '''
        def offsets():
            return [0.0, 0.1]
        ''', "robot/io/filters.py": '''
        def smooth(x):
            return x
        ''', "run.py": '''
        from robot.io.calib import offsets


        def main():
            print(offsets())


        if __name__ == "__main__":
            main()
        '''})
    monkeypatch.chdir(root)
    from leapp_codemod.scan import load_project
    names = set(load_project(["."]).project.modules)
    assert {"robot.io.calib", "robot.io.filters"} <= names
    assert "filters" not in names and "calib" not in names
