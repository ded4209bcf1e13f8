"""An inline range ends at the send when the only new input the loop gives the next policy call after it comes
from the world (a reset in an episode-end branch), whatever else that branch runs: logging, saving, a scripted
manoeuvre (analysis/entry/bounds.read_after_send). Fixtures of two shapes: a gymnasium rover script whose
episode end writes a CSV row and replays moves before `reset`, an evaluation runner class whose `run` saves a
clip and logs before restarting its cell."""
from __future__ import annotations

import ast

import pytest
from test_entry_ranking import app, expected, ranked

from leapp_codemod.analysis.entry.loops import inline_pipelines


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


@pytest.mark.parametrize("name", ["inline_reset_beside_work", "inline_reset_in_method"])
def test_the_range_ends_at_the_send_when_the_next_input_comes_from_a_reset(name, tmp_path, monkeypatch):
    first = ranked(app(tmp_path, name), monkeypatch)[0]
    assert first["kind"] == "inline" and first["entry"] == expected(name)["entry"]
    assert not any("enters from the previous iteration" in r or "enter from the previous" in r
                   for r in first["reasons"])


def _range(code: str) -> tuple[int, int]:
    loop = next(n for n in ast.walk(ast.parse(code)) if isinstance(n, (ast.For, ast.While)))
    found = inline_pipelines(loop, set(), lambda call: False)
    assert len({(p.start, p.end) for p in found}) == 1
    return found[0].start, found[0].end


HEAD = ("for t in range(99):\n"            # 1
        "    x = prep(obs, h)\n"            # 2
        "    a = policy(x)\n"               # 3
        "    obs, r, done, info = env.step(a)\n")   # 4


def test_a_reset_beside_logging_gives_no_observation_code():
    code = HEAD + ("    moves.append(a)\n"
                   "    if done:\n"
                   "        log.write(str(float(r)))\n"
                   "        replay(env, moves)\n"
                   "        obs = env.reset()\n")
    assert _range(code) == (2, 3)


def test_an_input_the_branch_computes_beside_the_reset_still_enters_from_the_previous_iteration():
    # the recurrent state `h` is rebuilt from what the step returned: observation code after the send
    code = HEAD + ("    if done:\n"
                   "        obs = env.reset()\n"
                   "    h = encoder(obs, h)\n")
    start, end = _range(code)
    assert (start, end) == (2, 7)
