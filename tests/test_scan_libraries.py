"""Following installed libraries: pipelines calling pip-installed Stable-Baselines3, sb3-contrib and rsl_rl.

The libraries are read from the environment's site-packages (never imported, never copied); their
hazards are reported at the application's call site with the library location. Each `lib_*` app
marks its lines like the `scan_*` apps (`# expect: CATEGORY`, `# clean`).
"""
from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from leapp_codemod.scan import scan_project
from tests.test_scan_fixtures import FIXTURES, markers

pytestmark = pytest.mark.slow  # `make test-fast` leaves this module out

pytest.importorskip("stable_baselines3")   # installed with the dev extra; skipped only outside it
pytest.importorskip("sb3_contrib")
pytest.importorskip("rsl_rl")

LIB_APPS = ("lib_sb3_ppo", "lib_sb3_recurrent", "lib_rsl_rl_recurrent")


@pytest.fixture(scope="module")
def scans(tmp_path_factory):
    """Each app copied once and scanned with and without library following."""
    root = tmp_path_factory.mktemp("libapps")
    out = {}
    for app in LIB_APPS:
        shutil.copytree(FIXTURES / app, root / app)
        before = _tree_hash(root / app)
        with _chdir(root / app):
            out[app] = (scan_project(["."]), scan_project(["."], follow_libraries=False), markers(root / app))
        assert _tree_hash(root / app) == before, "scan modified the application"
    return out


class _chdir:
    def __init__(self, path):
        self.path, self.old = path, None

    def __enter__(self):
        import os
        self.old = os.getcwd()
        os.chdir(self.path)

    def __exit__(self, *exc):
        import os
        os.chdir(self.old)


def _tree_hash(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.is_file() and ".leapp-codemod-cache" not in path.parts:
            digest.update(path.as_posix().encode() + path.read_bytes())
    return digest.hexdigest()


@pytest.mark.parametrize("app", LIB_APPS)
def test_marked_findings_exactly(app, scans):
    result, _, (expected, clean) = scans[app]
    got = {(f.path, f.line, f.category) for f in result.findings}
    assert not {(p, n) for p, n, _ in got} & clean
    assert expected <= got
    assert got <= expected


def test_sb3_ppo_predict_reaches_the_policy(scans):
    result, unfollowed, _ = scans["lib_sb3_ppo"]
    reachable = set(result.reachable)
    assert "stable_baselines3.common.base_class:BaseAlgorithm.predict" in reachable
    assert "stable_baselines3.common.policies:BasePolicy.predict" in reachable
    assert "stable_baselines3.common.policies:ActorCriticPolicy._predict" in reachable   # virtual dispatch
    assert not any(r.startswith("stable_baselines3.") for r in unfollowed.reachable)
    assert not {"stable_baselines3.ppo.ppo:PPO.train", "stable_baselines3.common.base_class:BaseAlgorithm.learn",
                "stable_baselines3.common.policies:ActorCriticPolicy.evaluate_actions"} & reachable


def test_recurrent_ppo_state_is_flagged_at_the_app(scans):
    result, _, _ = scans["lib_sb3_recurrent"]
    assert "sb3_contrib.common.recurrent.policies:RecurrentActorCriticPolicy.predict" in result.reachable
    state = {(s.owner, s.attr) for s in result.state}
    assert ("app.agent:LstmAgent", "states") in state
    (finding,) = [f for f in result.findings if f.code == "LCM702"]
    assert finding.path == "app/agent.py" and "self.states" in finding.message


def test_rsl_rl_hidden_state_is_reported_at_the_call_site_naming_the_library(scans):
    result, unfollowed, _ = scans["lib_rsl_rl_recurrent"]
    assert "rsl_rl.modules.rnn:RNN.forward" in result.reachable
    (finding,) = [f for f in result.findings if f.code == "LCM702"]
    assert finding.path == "app/deploy.py" and finding.line == 11
    assert "(in rsl_rl/modules/rnn.py:51)" in finding.message
    assert ("rsl_rl.modules.rnn:RNN", "hidden_state") in {(s.owner, s.attr) for s in result.state}
    assert unfollowed.findings == [] and unfollowed.state == []


def test_cli_flag_turns_following_off_and_nothing_is_imported(tmp_path):
    shutil.copytree(FIXTURES / "lib_rsl_rl_recurrent", tmp_path / "app")
    code = ("import sys, json\nfrom click.testing import CliRunner\nfrom leapp_codemod.cli import main\n"
            "on = CliRunner().invoke(main, ['scan', '.', '--format', 'json', '--no-cache'])\n"
            "off = CliRunner().invoke(main, ['scan', '.', '--format', 'json', '--no-cache', '--no-follow-libraries'])\n"
            "heavy = [m for m in ('rsl_rl', 'torch', 'stable_baselines3', 'tensordict') if m in sys.modules]\n"
            "print(json.dumps([json.loads(on.stdout)['findings'], json.loads(off.stdout)['findings'], heavy]))\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path / "app", capture_output=True, text=True,
                          check=True)
    on, off, heavy = json.loads(done.stdout)
    assert [f["code"] for f in on] == ["LCM702"] and off == []
    assert heavy == []


def test_an_installed_librarys_scalar_and_constructor_code_is_not_the_pipeline(tmp_path):
    """A step that builds a `tensordict.TensorDict` from its tensors follows the installed tensordict. Its code
    for Python/NumPy scalars (`elif isinstance(array, np.bool_): array.item()`) and the attributes its
    constructor sets on the new object are not what the traced tensors run through, nor state the step keeps."""
    pytest.importorskip("tensordict")
    app = tmp_path / "planner"
    app.mkdir()
    (app / "nav.py").write_text(
        "import torch\nfrom tensordict import TensorDict\n\n\nclass Planner:\n    def __init__(self):\n"
        "        self.net = torch.nn.Linear(6, 2)\n\n    def plan(self, lidar, goal):\n"
        "        td = TensorDict({'obs': torch.cat([lidar, goal], dim=-1)}, batch_size=[1])\n"
        "        return self.net(td['obs'])\n")
    result = scan_project([str(app)], entry="nav:Planner.plan")
    inside = [f.message for f in result.findings]
    assert not any("array.item()" in m or "_td_dim_names" in m for m in inside), inside
    assert not [s for s in result.state if s.owner.startswith("tensordict")]
