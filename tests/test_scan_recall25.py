"""Round s25 recall fixtures (fixtures/scan_recall25): what a command-line default selects before an inline range
is what the range runs, and a receive on a client of a library neither scanned nor installed is I/O."""
from __future__ import annotations

import ast

import pytest
from scanfixture import check_marked

from leapp_codemod.analysis.model.config_values import cli_defaults, ruled_out_statements

GROUP = "scan_recall25"


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def test_the_controller_a_command_line_default_picks_is_the_one_followed(tmp_path, monkeypatch):
    # `--controller` defaults to "mlp": the lookup controller built under `elif args.controller == "lookup"` is not
    # what the range's `ctrl.act(obs)` runs, though it is the last binding of `ctrl` before the loop
    found = check_marked(GROUP, tmp_path, monkeypatch, "cli_pick", "run.py:21-21")
    assert found == {("controllers.py", 14, "scalar-extraction")}


def test_a_receive_on_an_unread_library_client_is_io(tmp_path, monkeypatch):
    found = check_marked(GROUP, tmp_path, monkeypatch, "pair_link", "gripper_node.py:GripperNode.step")
    assert ("gripper_node.py", 16, "io-in-pipeline") in found


def test_command_line_defaults_rule_out_the_other_arms():
    tree = ast.parse('import argparse\np = argparse.ArgumentParser()\np.add_argument("--policy-type", default="a")\n'
                     'args = p.parse_args()\nif args.policy_type == "a":\n    x = 1\nelif args.policy_type == "b":\n'
                     '    x = 2\nelse:\n    x = 3\n')
    defaults = cli_defaults(tree)
    assert defaults == {"policy_type": frozenset({"a"})}
    dead = ruled_out_statements(tree, defaults)
    values = {node.value.value: id(node) in dead for node in ast.walk(tree)
              if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)}
    assert values == {1: False, 2: True, 3: True}


@pytest.mark.parametrize("entry", ["balance.py:run_episode.<locals>.control", "balance.py:22-27"])
def test_a_closure_step_reads_the_function_around_it(tmp_path, monkeypatch, entry):
    # the closure's simulator data, policy and kept last action are variables of the episode function: the
    # closure as an entry and a range inside it read them as a range reads the scope it is cut from
    found = check_marked(GROUP, tmp_path, monkeypatch, "closure_step", entry)
    assert ("balance.py", 26, "inplace-state") in found and ("balance.py", 11, "scalar-extraction") in found


def test_a_reset_under_a_flag_the_object_changes_between_calls_leaves_the_state(tmp_path, monkeypatch):
    # `if self.fresh:` takes the reset arm on the first call after `engage()` only: the blend after it reads
    # what the previous call left on every other call
    found = check_marked(GROUP, tmp_path, monkeypatch, "engaged_filter", "pilot.py:FilteredPilot.step")
    assert found == {("pilot.py", 21, "inplace-state")}


def test_calls_on_objects_unpacked_from_a_parameter_are_said_not_followed(tmp_path, monkeypatch):
    # `net, scaler = bundle` from a pickle: neither class is known, and "No hazards found" alone would claim
    # more than was seen
    from scanfixture import scan_copy
    result = scan_copy(GROUP, tmp_path, "bundle_unpack", "controller.py:act", monkeypatch)
    listed = {(nf.line, nf.text) for nf in result.not_followed}
    assert {(15, "scaler.transform(...)"), (16, "net.infer(...)")} <= listed
    assert all("unpacked from `bundle`" in nf.reason for nf in result.not_followed if nf.line in (15, 16))
