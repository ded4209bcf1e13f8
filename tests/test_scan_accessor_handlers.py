"""A method that installs, fetches or makes a handler (`set_feed_handler`, `register_fault_callback`,
`get_handler`) is no handler: what it stores is set once by its caller, not filled between the step's calls
(fixtures/scan_outside_inputs/installed_feed_arm)."""
from __future__ import annotations

import pytest
from scanfixture import scan_copy
from test_scan_provenance import _class

from leapp_codemod.analysis.model.class_state import callback_methods


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def test_an_installed_handler_is_not_filled_between_calls(tmp_path, monkeypatch):
    result = scan_copy("scan_outside_inputs", tmp_path, "installed_feed_arm", "feed_arm:ArmController.act",
                       monkeypatch)
    named = [f for f in result.findings if "set_feed_handler" in f.message
             or any("set_feed_handler" in r[-1] for r in f.related)]
    assert not named


def test_handler_names_without_the_accessors():
    methods = ["on_state", "handle_joy", "imu_callback", "lowstate_handler", "set_handler", "_set_cmd_callback",
               "register_callback", "get_handler", "add_done_callback", "make_handler"]
    source = "class Node:\n" + "".join(f"    def {m}(self, x):\n        self.v = x\n" for m in methods)
    assert callback_methods(_class(source)) == {"on_state", "handle_joy", "imu_callback", "lowstate_handler"}
