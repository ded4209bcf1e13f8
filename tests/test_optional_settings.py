"""Optional inputs no reached call passes are the constant None (their blocks never run); a call through a
`@property` runs the callable the getter returns, or is listed as not followed."""
from __future__ import annotations

import ast
import hashlib
import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from leapp_codemod.cli import main

APP = Path(__file__).resolve().parent.parent / "fixtures" / "optional_training_args"
MARKER = re.compile(r"#\s*(?:expect:\s*(?P<cat>[a-z-]+)|(?P<clean>clean))\s*$")


def _tree_hash(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode() + path.read_bytes())
    return digest.hexdigest()


@pytest.fixture(scope="module")
def scanned(tmp_path_factory):
    root = tmp_path_factory.mktemp("app") / "app"
    shutil.copytree(APP, root)
    before = _tree_hash(root)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        patch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(root.parent / "cache"))
        result = CliRunner().invoke(main, ["scan", ".", "--entry", "arm.policy:ArmPolicy.step", "--format", "json",
                                           "--no-cache"], catch_exceptions=False)
    assert _tree_hash(root) == before
    return root, json.loads(result.output)


def _markers(root: Path):
    expected, clean = set(), set()
    for path in sorted(root.rglob("*.py")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            match = MARKER.search(line)
            if match and match.group("clean"):
                clean.add((path.relative_to(root).as_posix(), number))
            elif match:
                expected.add((path.relative_to(root).as_posix(), number, match.group("cat")))
    return expected, clean


def test_markers_are_there():
    expected, clean = _markers(APP)
    assert len(expected) >= 3 and len(clean) >= 3


def test_blocks_an_optional_input_no_call_passes_rules_out_are_not_the_pipeline(scanned):
    root, document = scanned
    expected, clean = _markers(root)
    found = {(f["path"], f["line"]) for f in document["findings"]}
    assert not found & clean
    # `ref=obs` is passed a real value: its block stays in the pipeline
    assert ("arm/heads.py", next(n for p, n, c in expected if c == "scalar-extraction" and p == "arm/heads.py")) \
        in found


def test_a_call_through_a_property_runs_what_the_getter_returns(scanned):
    root, document = scanned
    expected, _ = _markers(root)
    found = {(f["path"], f["line"], f["category"]) for f in document["findings"]}
    assert expected <= found   # `_draw` (through torch.compile) and `_jitter` (through functools.partial) ran


def test_a_property_whose_callable_stays_unknown_is_listed_not_followed(scanned):
    _, document = scanned
    listed = [nf for nf in document["not_followed"] if nf["text"].startswith("self.sampler.remote")]
    assert len(listed) == 1
    assert "is a property" in listed[0]["reason"] and "heads.py" in listed[0]["reason"]
    others = [nf for nf in document["not_followed"] if "draw" in nf["text"] or "jitter" in nf["text"]]
    assert others == []


def _scan(root: Path, entry: str) -> dict:
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        patch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(root.parent / "cache"))
        result = CliRunner().invoke(main, ["scan", ".", "--entry", entry, "--format", "json", "--no-cache"],
                                    catch_exceptions=False)
    return json.loads(result.output)


PRINT_LINE = ("arm/tracker.py", 15)


def test_an_entry_input_every_deploy_call_passes_as_none_rules_out_its_block(tmp_path):
    """`tracker(frame, None)` in the deploy script; `tracker(frame, labels)` next to `loss.backward()` trains."""
    root = tmp_path / "app"
    shutil.copytree(APP, root)
    assert "print" in (root / PRINT_LINE[0]).read_text().splitlines()[PRINT_LINE[1] - 1]
    document = _scan(root, "arm.tracker:Tracker.forward")
    assert {(f["path"], f["line"]) for f in document["findings"]} == set()


def test_a_deploy_call_passing_a_real_value_keeps_the_block(tmp_path):
    root = tmp_path / "app"
    shutil.copytree(APP, root)
    deploy = root / "arm" / "deploy_tracker.py"
    deploy.write_text(deploy.read_text().replace("tracker(frame, None)", "tracker(frame, frame)"))
    document = _scan(root, "arm.tracker:Tracker.forward")
    assert PRINT_LINE in {(f["path"], f["line"]) for f in document["findings"]}


PARTIAL_AGENT = (
    "import torch\n\n\nclass Agent:\n    def __init__(self):\n        self.net = torch.nn.Linear(4, 2)\n\n"
    "    @torch.no_grad()\n    def act(self, obs, explore=True):\n        mean = self.net(obs)\n"
    "        if explore:\n            mean = mean + 0.1 * torch.randn_like(mean)\n        return mean\n")
PARTIAL_DRIVER = (
    "import functools\n\nimport torch\n\nfrom agent import Agent\n\n\ndef main():\n    agent = Agent()\n"
    "    policy = functools.partial(agent.act, explore=False)\n    for _ in range(10):\n"
    "        print(policy(torch.randn(4)))\n{extra}\n\nif __name__ == '__main__':\n    main()\n")
DRAW_LINE = ("agent.py", 12)


@pytest.mark.parametrize("extra, drawn", [
    ("", False),                                            # every call binds explore=False
    ("    agent.act(torch.randn(4))  # a call left to the default", True),
])
def test_a_flag_bound_by_functools_partial_is_a_call_site(tmp_path, extra, drawn):
    root = tmp_path / "app"
    root.mkdir()
    (root / "agent.py").write_text(PARTIAL_AGENT)
    (root / "main.py").write_text(PARTIAL_DRIVER.format(extra=extra))
    document = _scan(root, "agent:Agent.act")
    assert (DRAW_LINE in {(f["path"], f["line"]) for f in document["findings"]}) is drawn


def test_reading_the_deploy_calls_survives_a_library_loaded_meanwhile(tmp_path, monkeypatch):
    """Resolving what a deploy call's receiver is can load an installed library's module into the project
    while its modules are being walked (a crash on a public repository: 'dictionary changed size during
    iteration'); the walk goes over the modules as they were when it began."""
    from leapp_codemod.analysis.model import settings
    from leapp_codemod.analysis.model.index import ModuleIndex
    root = tmp_path / "app"
    root.mkdir()
    (root / "agent.py").write_text(PARTIAL_AGENT.replace("def act(self, obs", "def __call__(self, obs"))
    (root / "main.py").write_text("import torch\nfrom agent import Agent\n\n\ndef main():\n    agent = Agent()\n"
                                  "    for _ in range(3):\n        agent(torch.randn(4), None)\n")
    original = settings._instance_names
    loaded = []

    def loading(project, module, cls):
        if not loaded:   # what `Project._load_library` does when a name resolves into an installed package
            extra = ModuleIndex(name="late_library", path="late_library.py", is_package=False, tree=ast.Module([], []))
            project.modules["late_library"] = extra
            loaded.append(extra)
        return original(project, module, cls)
    monkeypatch.setattr(settings, "_instance_names", loading)
    document = _scan(root, "agent:Agent.__call__")
    assert loaded and document["errors"] == []
