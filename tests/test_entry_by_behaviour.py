"""The entry a user would export, decided by what the code does rather than by file names (issue 20, item 6):
a `test_*.py` script with a `__main__` driver is a driver, a `train/` folder does not make an evaluator
training code, an episode loop ranks below the step that carries the model call, a loop whose policy call
resolves only to a base class (or to several classes chosen at run time) keeps its range, and a network's
part ranks below the network that calls it. Each on a fixture app of its own shape."""
from __future__ import annotations

import ast

from test_entry_ranking import app, by_id, expected, private_cache, ranked  # noqa: F401  (fixture)

from leapp_codemod.analysis.entry.drivers import in_training_path, is_training_loop, training_operation
from leapp_codemod.analysis.entry.uses import fed_only_noise
from leapp_codemod.analysis.model.index import FunctionInfo, ModuleIndex, is_test_module


def _module(path: str, source: str) -> ModuleIndex:
    return ModuleIndex("m", path, False, ast.parse(source))


# --------------------------------------------------------------------------- test-named scripts
def test_a_test_named_file_is_a_test_module_only_when_pytest_collects_it_and_no_main_block_drives():
    collected = "def test_range():\n    assert True\n"
    assert is_test_module(_module("test_rover.py", collected))
    assert is_test_module(_module("rover_test.py", "class TestRover:\n    def test_a(self):\n        pass\n"))
    assert is_test_module(_module("test_rover.py", collected + "if __name__ == '__main__':\n    pytest.main()\n"))
    # a main block that runs something else drives: an evaluation script, whatever its name
    assert not is_test_module(_module("test_drive.py", collected + "if __name__ == '__main__':\n    run()\n"))
    assert not is_test_module(_module("test_drive.py", "def drive():\n    pass\n"))    # nothing to collect
    # anything under tests/ or test/ stays a test, main block or not
    assert is_test_module(_module("tests/helpers.py", "def make():\n    pass\n"))
    assert is_test_module(_module("test/sim_check.py", "if __name__ == '__main__':\n    run()\n"))
    assert is_test_module(_module("conftest.py", "if __name__ == '__main__':\n    run()\n"))
    assert not is_test_module(_module("rover/drive.py", collected))


def test_an_evaluation_script_named_like_a_test_drives_its_policy_step(tmp_path, monkeypatch):
    want = expected("entry_eval_script_named_test")
    candidates = ranked(app(tmp_path, "entry_eval_script_named_test"), monkeypatch)
    assert candidates[0]["entry"] == want["entry"]
    reasons = candidates[0]["reasons"]
    assert any(r.startswith("called in a loop by the module's top-level code") and want["script"] in r
               for r in reasons)
    # the pytest module beside it drives nothing
    assert not any(want["pytest_module"] in r for c in candidates for r in c["reasons"])
    assert not any(c["path"].endswith(want["pytest_module"]) for c in candidates)


# --------------------------------------------------------------------------- training by what it does
def test_training_is_decided_by_training_operations_not_by_the_path():
    def fn(source: str, path: str, qualname: str = "run") -> FunctionInfo:
        module = path.removesuffix(".py").replace("/", ".")
        return FunctionInfo(f"{module}:{qualname}", module, qualname, ast.parse(source).body[0], None, path)
    evaluating = "def run(env, policy):\n    for _ in range(9):\n        env.step(policy(env.obs()))\n"
    assert not is_training_loop(fn(evaluating, "train/evaluator.py"))
    # the path only breaks ties, and a file named for evaluating is no training path wherever it sits
    assert in_training_path("train/runner.py") and not in_training_path("train/evaluator.py")
    for op in ("loss.backward()", "self.optim.step()", "batch = self.replay_buffer.sample(64)", "agent.learn(9)",
               "trainer.train_step(batch)", "agent.update(replay_buffer, L, step)"):
        assert is_training_loop(fn(f"def run(env, policy):\n    {op}\n", "deploy/loop.py")), op
    call = ast.parse("noise_scheduler.step(eps, t, x)").body[0].value
    assert not training_operation(call)        # a diffusion sampler's step runs at inference
    assert not training_operation(ast.parse("self.sampler.sample(obs)").body[0].value)


def test_an_evaluator_in_a_training_package_runs_the_step_and_the_trainer_stays_training_code(tmp_path, monkeypatch):
    want = expected("entry_eval_under_training_pkg")
    candidates = ranked(app(tmp_path, "entry_eval_under_training_pkg"), monkeypatch)
    assert candidates and candidates[0]["entry"] == want["step"]
    assert any(r.startswith("called in a loop by Evaluator.fly") for r in candidates[0]["reasons"])
    # the evaluator's loop steps the simulator around the step: it ranks below it, or is no candidate
    fly = by_id(candidates).get(want["entry"])
    assert fly is None or fly["score"] < candidates[0]["score"]
    # the learner samples a replay buffer and steps an optimizer: it drives nothing
    assert not any("Learner.improve" in r for c in candidates for r in c["reasons"] if "called in a loop" in r)
    assert want["trainer"] not in by_id(candidates)


def test_a_probe_fed_only_random_draws_is_no_pipeline():
    def caller(source: str) -> FunctionInfo:
        return FunctionInfo("m:f", "m", "f", ast.parse(source).body[0], None, "m.py")
    drawn = caller("def f(net):\n    for _ in range(3):\n        x = torch.rand(4, 6).to(dev)\n        net.get_action(x)\n")
    assert fed_only_noise(drawn, 4, "get_action")
    filled = caller("def f(net, q):\n    x = np.zeros(6)\n    for _ in range(3):\n        x[:3] = q\n"
                    "        net.get_action(x)\n")
    assert not fed_only_noise(filled, 5, "get_action")     # a zeros buffer filled with readings is an observation
    sensed = caller("def f(net, bus):\n    while True:\n        net(torch.tensor(bus.read()))\n")
    assert not fed_only_noise(sensed, 3, "forward")


# --------------------------------------------------------------------------- episodes, run-time choices, parts
def test_the_step_an_episode_loop_on_vectorised_simulators_calls_ranks_above_the_loop(tmp_path, monkeypatch):
    want = expected("entry_step_in_vector_episode")
    candidates = ranked(app(tmp_path, "entry_step_in_vector_episode"), monkeypatch)
    assert candidates[0]["entry"] in want["steps"]
    episode = by_id(candidates)[want["episode"]]
    assert any("runs the model and steps the environment in one loop of its own" in r for r in episode["reasons"])
    assert episode["score"] < min(by_id(candidates)[s]["score"] for s in want["steps"])


def test_a_loop_whose_policy_call_reaches_only_a_base_class_keeps_its_range(tmp_path, monkeypatch):
    want = expected("entry_abstract_controller_loop")
    candidates = ranked(app(tmp_path, "entry_abstract_controller_loop"), monkeypatch)
    ranges = [c for c in candidates if c["kind"] == "inline" and c["path"].endswith(want["script"])]
    assert ranges and ranges[0]["start"] <= 17 <= ranges[0]["end"]    # the line that runs `policy.infer(obs)`
    assert any("bound at run time" in r for r in ranges[0]["reasons"])


def test_a_network_handed_to_a_solver_and_its_blocks_rank_below_the_step(tmp_path, monkeypatch):
    want = expected("entry_flow_sub_blocks")
    candidates = ranked(app(tmp_path, "entry_flow_sub_blocks"), monkeypatch)
    found = by_id(candidates)
    assert candidates[0]["entry"] == want["entry"]
    assert "calls an nn.Module or a loaded model" in candidates[0]["reasons"]
    assert found[want["network"]]["score"] < candidates[0]["score"]
    block = found[want["block"]]
    assert block["score"] < found[want["network"]]["score"]
    assert any(r.startswith("a part of another model: VelocityNet.__init__") for r in block["reasons"])


def test_a_helper_called_only_in_a_planners_own_loop_ranks_below_the_planner(tmp_path, monkeypatch):
    want = expected("entry_planner_inner_loop")
    candidates = ranked(app(tmp_path, "entry_planner_inner_loop"), monkeypatch)
    assert candidates[0]["entry"] == want["entry"]
    part = by_id(candidates)[want["part"]]
    assert part["score"] < candidates[0]["score"]
    assert any(r.startswith("a part of plan_route") for r in part["reasons"])


def test_an_evaluation_script_under_a_test_folder_is_no_test_module():
    # a script under `test/` whose main block loads a trained policy and runs it is what a user exports from;
    # a helper, a test or a main block that loads no model stays a test module
    script = ("import torch\n\nif __name__ == '__main__':\n    net = torch.jit.load('walk.pt')\n"
              "    while True:\n        net(torch.zeros(1, 45))\n")
    assert not is_test_module(_module("scripts/test/replay_walk.py", script))
    assert is_test_module(_module("scripts/test/replay_walk.py", script + "\ndef test_shapes():\n    pass\n"))
    assert is_test_module(_module("tests/sim_check.py", "if __name__ == '__main__':\n    run()\n"))
