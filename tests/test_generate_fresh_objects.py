"""`generate` never declares as state the attributes of an installed library's object that the step builds
afresh on every call (a locked `TensorDict` packed in the step: tensordict's own bookkeeping on it); the
step's own state is declared (no torch or LEAPP run)."""
from __future__ import annotations

from test_run import generate, project, tree_hash


def test_a_tensordict_built_in_every_call_is_not_state(tmp_path):
    work = project(tmp_path, "generate_fresh_objects")
    before = tree_hash(work / "fleet")
    text = generate(work, "fleet", "fleet.dispatcher:Dispatcher.command").read_text()
    state = text.split("STATE: dict[str, tuple[str, str]] = {")[1].split("\n}\n")[0]
    assert '"last_cmd": ("fleet.dispatcher:Dispatcher", "last_cmd"),' in state
    assert "tensordict" not in state
    assert "`_lock_parents_weakrefs` belongs to a tensordict.base:TensorDictBase object the step builds on every " \
           "call: not state" in text
    assert tree_hash(work / "fleet") == before
