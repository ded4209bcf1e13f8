"""Where an inline range starts: at the first statement of the loop body (or callback) on the backward slice of
the policy call's inputs, through fields of self, the class's own methods one call away and the blocks enclosing
the call (`try`, `with`, `if`); and, when the loop updates the policy's input after the send for the next
iteration, the range runs from the policy call through that update (analysis/entry/loops.py, slice_keys.py,
bounds.read_after_send). Fixtures of four shapes: a thread worker class whose policy runs in a `try`, a ROS 1
callback that publishes from inside its `try`, a recurrent evaluation loop that folds the new frame and the
action into its belief after the step, a sim2sim class that refreshes its observation through a method."""
from __future__ import annotations

import ast

import pytest
from click.testing import CliRunner
from test_entry_discovery import tree_hash
from test_entry_ranking import app, expected, ranked

from leapp_codemod.analysis.entry.loops import inline_pipelines
from leapp_codemod.analysis.entry.slice_keys import SELF_ANY, class_view, field_reads, field_writes
from leapp_codemod.cli import main


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


SHAPES = ["inline_start_thread_worker", "inline_start_ros1_try", "inline_start_latent_rollout",
          "inline_start_helper_fill"]


@pytest.mark.parametrize("name", SHAPES)
def test_the_offered_range_starts_where_the_policy_input_is_read(name, tmp_path, monkeypatch):
    want = expected(name)
    root = app(tmp_path, name)
    offered = [c for c in ranked(root, monkeypatch) if c["kind"] == "inline"]
    assert offered and offered[0]["entry"] == want["entry"]
    # `scan` takes the offered range as it is (whole statements of one block) and the tree stays untouched
    before = tree_hash(root)
    result = CliRunner().invoke(main, ["scan", ".", "--entry", want["entry"], "--no-cache"], catch_exceptions=False)
    assert "inline statement range" in result.stdout and "Traceback" not in result.stdout + result.stderr
    assert tree_hash(root) == before


def test_a_callback_whose_range_is_its_whole_body_ranks_above_the_range(tmp_path, monkeypatch):
    candidates = ranked(app(tmp_path, "inline_start_ros1_try"), monkeypatch)
    assert candidates[0]["kind"] == "function" and candidates[0]["entry"].endswith("BalanceNode.on_imu")


def test_values_the_loop_updates_after_the_send_are_named_and_the_range_covers_the_update(tmp_path, monkeypatch):
    want = expected("inline_start_latent_rollout")
    first = ranked(app(tmp_path, "inline_start_latent_rollout"), monkeypatch)[0]
    assert first["kind"] == "inline" and first["entry"] == want["entry"]
    carried = [r for r in first["reasons"] if "from the previous iteration" in r]
    assert len(carried) == 1 and all(f"`{n}`" in carried[0] for n in want["carried"])


def _loop(code: str) -> ast.AST:
    return next(n for n in ast.walk(ast.parse(code)) if isinstance(n, (ast.For, ast.While)))


def _range(code: str, view=None) -> tuple[int, int, tuple[str, ...]]:
    found = inline_pipelines(_loop(code), set(), lambda call: False, view=view)
    assert len(found) == 1
    return found[0].start, found[0].end, found[0].carried


def _class(code: str):
    tree = ast.parse(code)
    return _loop(code), class_view(next(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)))


def test_a_write_of_another_field_is_not_on_the_slice_and_a_method_filling_the_input_is():
    code = ("class Pilot:\n    def __init__(self):\n        self.net = load()\n"
            "    def fill(self, m):\n        self.x[:3] = m.q\n"
            "    def spin(self):\n        while True:\n            self.n += 1\n            self.fill(self.bus.read())\n"
            "            a = self.net(self.x)\n            self.bus.write(a)\n")
    loop, view = _class(code)
    assert inline_pipelines(loop, set(), lambda call: False, view=view)[0].start == 9


def test_which_fields_a_statement_binds_and_reads():
    code = ("class K:\n    def refresh(self):\n        self.obs[0] = self.imu.w\n"
            "    def tick(self):\n        self.net = None\n")
    view = class_view(next(n for n in ast.walk(ast.parse(code)) if isinstance(n, ast.ClassDef)))
    one = ast.parse
    assert field_writes(one("self.refresh()").body[0], view) == {"self.obs"}
    assert field_reads(one("self.refresh()").body[0], view) >= {"self.obs", "self.imu"}
    assert field_writes(one("self.hist.append(q)").body[0], view) == {"self.hist"}
    assert SELF_ANY in field_writes(one("self.update_state()").body[0], view)   # defined elsewhere: any field
    assert SELF_ANY not in field_reads(one("a = self.net(x)").body[0], view)   # a model held in a field
    assert SELF_ANY not in field_writes(one("self.get_logger().info(x)").body[0], view)


def test_the_enclosing_block_builds_the_input_of_a_call_in_a_try_or_with():
    in_try = ("while True:\n    raw = port.readline()\n    obs = parse(raw)\n    try:\n        a = policy(obs)\n"
              "        port.write(a)\n    except ValueError:\n        pass\n")
    assert _range(in_try)[:2] == (2, 8)
    # an `if` around the call decides when the policy runs: its block keeps its range, what the loop reads at
    # every tick outside it is the range's input (a decimation gate building its input inside, a sending branch)
    decimated = ("while True:\n    q = sense(d)\n    k += 1\n    if k % 4 == 0:\n        x = q * 2.0\n"
                 "        a = policy(x)\n        t = a * 0.5\n    d.ctrl[:] = pd(t, q)\n")
    assert _range(decimated)[:2] == (5, 7)
    in_branch = ("while True:\n    obs = parse(port.readline())\n    if armed:\n        a = policy(obs)\n"
                 "        port.write(a)\n")
    assert _range(in_branch)[:2] == (4, 4)


def test_what_follows_the_send_is_kept_only_when_it_computes_the_next_input():
    # the observation is the step's result itself (or a rename, or a reset): the range is the call's work
    stepped = "for _ in range(9):\n    a = policy(obs)\n    obs, r, done, _ = env.step(a)\n"
    assert _range(stepped) == (2, 2, ())
    renamed = ("for _ in range(9):\n    a = policy(obs)\n    nxt, r, done, _ = env.step(a)\n    buf.add(obs, a, r)\n"
               "    obs = nxt\n    if done:\n        obs = env.reset()\n")
    assert _range(renamed) == (2, 2, ())
    # work on the step's result that also reads the action (a recurrent belief): the range runs through it
    folded = ("for _ in range(9):\n    a = actor(h)\n    o, r, done, _ = env.step(a)\n"
              "    h = cell(torch.cat([enc(o), a], -1), h)\n")
    assert _range(folded) == (2, 4, ("h",))


def test_a_test_on_the_data_around_the_policy_leaves_the_observation_built_before_it_to_the_range(tmp_path,
                                                                                                  monkeypatch):
    """A sim2sim loop runs the policy only while the observation it just built stays inside a limit (a test on
    the data, not on a tick count): the range starts where the observation is built, not inside the `if`."""
    want = expected("entry_mode_gate")
    candidates = ranked(app(tmp_path, "entry_mode_gate"), monkeypatch)
    assert candidates[0]["kind"] == "inline" and candidates[0]["start"] == want["start"]


def test_a_tick_count_gate_keeps_its_block_as_the_step():
    from leapp_codemod.analysis.entry.loops import _decimation_gate
    assert _decimation_gate(ast.parse("t % decimation == 0", mode="eval").body)
    assert _decimation_gate(ast.parse("not step % 4", mode="eval").body)
    assert not _decimation_gate(ast.parse("np.abs(obs).max() < LIMIT", mode="eval").body)
    assert not _decimation_gate(ast.parse("robot.mode == 'walk'", mode="eval").body)
