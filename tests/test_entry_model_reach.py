"""A model sign is required to win (a candidate whose reach runs no model never ranks above one that does),
models handed to a helper as an argument are model calls, and a library copied into the project does not make
its rollout loops the project's drivers (analysis/entry/vendored.py)."""
from __future__ import annotations

from pathlib import Path

from test_entry_ranking import app, by_id, expected, private_cache, ranked  # noqa: F401 (autouse)

from leapp_codemod.analysis.entry.lookup import has_model_sign
from leapp_codemod.analysis.entry.vendored import vendored_modules
from leapp_codemod.model import Entrypoint
from leapp_codemod.scan import load_project


def _sign(candidate: dict) -> bool:
    return has_model_sign(Entrypoint("m", "q", "p.py", 1, candidate["score"], tuple(candidate["reasons"]),
                                     kind=candidate["kind"]))


def test_a_rule_named_like_a_step_ranks_below_the_learned_step_whose_network_runs_deep(tmp_path, monkeypatch):
    want = expected("entry_rule_fallback")
    candidates = ranked(app(tmp_path, "entry_rule_fallback"), monkeypatch)
    order = [c["entry"] for c in candidates]
    assert order[0] == want["entry"]
    rule = by_id(candidates)[want["rule"]]
    assert not _sign(rule) and any("in its reach" in r for r in rule["reasons"])
    assert _sign(candidates[0])    # its network runs four calls down: a model sign all the same
    assert all(c["score"] < candidates[0]["score"] for c in candidates if not _sign(c))


def test_a_model_handed_to_a_helper_that_calls_it_is_the_steps_model_call(tmp_path, monkeypatch):
    want = expected("entry_handed_model")
    candidates = ranked(app(tmp_path, "entry_handed_model"), monkeypatch)
    found = by_id(candidates)
    step, rule = found[want["entry"]], found[want["rule"]]
    assert "calls an nn.Module or a loaded model" in step["reasons"]
    assert _sign(step) and not _sign(rule)
    assert candidates.index(step) < candidates.index(rule)


def test_a_copied_library_loop_is_no_driver_and_the_projects_policy_wins_the_tie(tmp_path, monkeypatch):
    want = expected("entry_copied_library")
    root = app(tmp_path, "entry_copied_library")
    candidates = ranked(root, monkeypatch)
    assert candidates[0]["entry"] == want["entry"]
    copied = [c for c in candidates if c["entry"].startswith(want["copied"] + ".")]
    assert copied and all(any("copied into the project" in r for r in c["reasons"]) for c in copied)
    assert not any("a driver" in r for c in candidates for r in c["reasons"])   # the copy's loop drives nothing
    project = load_project(["."]).project
    assert {m.split(".")[0] for m in vendored_modules(project)} == {want["copied"]}


def test_a_package_that_imports_the_project_back_is_no_copy(tmp_path, monkeypatch):
    root = app(tmp_path, "entry_copied_library")
    rollout = root / "pickbench" / "pickbench" / "rollout.py"
    rollout.write_text("import orchard.picker\n" + rollout.read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.chdir(root)
    assert vendored_modules(load_project(["."]).project) == set()


def test_without_packaging_a_known_library_name_or_a_vendor_folder_marks_the_copy(tmp_path, monkeypatch):
    root = app(tmp_path, "entry_copied_library")
    for name in ("setup.py", "LICENSE"):
        (root / "pickbench" / name).unlink()
    monkeypatch.chdir(root)
    assert vendored_modules(load_project(["."]).project) == set()   # nothing says it is a library
    (root / "third_party").mkdir()
    (root / "pickbench").rename(root / "third_party" / "pickbench")
    monkeypatch.chdir(root / "third_party" / "..")
    moved = load_project(["."]).project
    assert all(Path(moved.modules[m].path).parts[0] == "third_party" for m in vendored_modules(moved))
    assert vendored_modules(moved)


def test_calling_the_items_of_a_held_module_container_runs_the_model(tmp_path, monkeypatch):
    root = tmp_path / "arm"
    (root / "arm").mkdir(parents=True)
    (root / "arm" / "__init__.py").write_text("", encoding="utf-8")
    (root / "arm" / "stack.py").write_text(
        "import torch\nfrom torch import nn\n\n\nclass StackedPolicy:\n"
        "    def __init__(self):\n"
        "        self.blocks = nn.ModuleDict({'a': nn.Linear(6, 6), 'b': nn.Linear(6, 3)})\n\n"
        "    def act(self, joints):\n"
        "        x = torch.as_tensor(joints)\n"
        "        for block in self.blocks.values():\n"
        "            x = block(x)\n"
        "        return x\n", encoding="utf-8")
    (root / "run.py").write_text(
        "import sys\nfrom arm.stack import StackedPolicy\n\n\ndef main():\n    policy = StackedPolicy()\n"
        "    for line in sys.stdin:\n        print(policy.act([float(v) for v in line.split()]))\n\n\n"
        "if __name__ == '__main__':\n    main()\n", encoding="utf-8")
    step = by_id(ranked(root, monkeypatch))["arm.stack:StackedPolicy.act"]
    assert "calls an nn.Module or a loaded model" in step["reasons"] and _sign(step)


def test_a_copied_part_no_project_module_imports_ranks_below_the_projects_own_step(tmp_path, monkeypatch):
    want = expected("entry_unused_copy_part")
    root = app(tmp_path, "entry_unused_copy_part")
    candidates = ranked(root, monkeypatch)
    assert candidates[0]["entry"] == want["entry"]
    unused = by_id(candidates)[want["unused"]]
    assert any("no project driver reaches it" in r for r in unused["reasons"])
    assert unused["score"] < candidates[0]["score"]
    # the copy is marked by its own version.py alone, though a demo script in it imports the project back
    assert {m.split(".")[0] for m in vendored_modules(load_project(["."]).project)} == {"beltlib"}


def test_a_copied_part_the_project_imports_keeps_its_score(tmp_path, monkeypatch):
    want = expected("entry_unused_copy_part")
    root = app(tmp_path, "entry_unused_copy_part")
    drive = root / "sorter" / "drive.py"
    uses = "from beltlib.deploy.greedy import GreedyAgent  # noqa: F401\n"
    drive.write_text(uses + drive.read_text(encoding="utf-8"), encoding="utf-8")
    unused = by_id(ranked(root, monkeypatch))[want["unused"]]
    assert not any("no project driver reaches it" in r for r in unused["reasons"])
