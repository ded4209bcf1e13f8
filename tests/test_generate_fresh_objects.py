"""`generate` never declares as state the attributes of an installed library's object that the step builds
afresh on every call: the step reaches the constructor of its class (or of a class derived from it), so no
later call reads the object (a `TensorDict` packed in the step). Checked on the scan's real reach into the
installed tensordict, with state writes of the kind a library method makes on such an object (no torch run)."""
from __future__ import annotations

from test_run import FIXTURES, generate, project, tree_hash

from leapp_codemod.analysis.model.fresh_objects import without_fresh_objects
from leapp_codemod.model import StateAttr
from leapp_codemod.scan.pipeline import scan_model


def test_attributes_of_a_tensordict_built_in_every_call_are_not_state(monkeypatch):
    monkeypatch.chdir(FIXTURES / "generate_fresh_objects")
    model = scan_model(["fleet"], entry="fleet.dispatcher:Dispatcher.command")
    own = StateAttr("fleet.dispatcher:Dispatcher", "last_cmd", "reassigned", "fleet/dispatcher.py", 20, False)
    fresh = StateAttr("tensordict.base:TensorDictBase", "_cache", "reassigned", "tensordict/base.py", 100, False)
    held = StateAttr("torch.nn.modules.rnn:GRU", "hx", "reassigned", "torch/nn/modules/rnn.py", 10, False)
    kept, notes = without_fresh_objects([own, fresh, held], model.result.reachable, model.loaded.project)
    assert kept == [own, held]       # the step builds a TensorDict (a TensorDictBase), never a GRU
    assert notes == ["tensordict/base.py:100: `_cache` belongs to a tensordict.base:TensorDictBase object the step "
                     "builds on every call: not state (no later call reads it)"]


def test_the_steps_own_state_is_declared(tmp_path):
    work = project(tmp_path, "generate_fresh_objects")
    before = tree_hash(work / "fleet")
    text = generate(work, "fleet", "fleet.dispatcher:Dispatcher.command").read_text()
    state = text.split("STATE: dict[str, tuple[str, str]] = {")[1].split("\n}\n")[0]
    assert '"last_cmd": ("fleet.dispatcher:Dispatcher", "last_cmd"),' in state and "tensordict" not in state
    assert tree_hash(work / "fleet") == before
