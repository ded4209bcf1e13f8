"""A module named like its package (`rover/rover/rover.py`, how ROS 2 Python packages name their node): it is
`rover.rover`, and its `from rover.sensing.lidar import ...` reaches the package's module, not this file
(fixtures/scan_package_same_name). The package's `__init__.py` is `rover`, though from the workspace root its
folder also spells `rover.rover`: a regular package's name wins over such another name."""
from __future__ import annotations

import pytest
from scanfixture import check_marked

from leapp_codemod.source.roots import assign_names


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def test_the_helper_the_node_imports_from_its_own_package_is_followed(tmp_path, monkeypatch):
    found = check_marked("scan_package_same_name", tmp_path, monkeypatch, "ws", "rover.rover:RoverNode.tick")
    assert found == {("rover/rover/sensing/lidar.py", 5, "tensor-branch")}


def test_a_package_name_wins_over_another_files_other_name(tmp_path):
    init, node = tmp_path / "a", tmp_path / "b"
    names = assign_names([(init, ("rover", "rover.rover")), (node, ("rover.rover", "ws.rover.rover.rover"))])
    assert names == [("rover", ()), ("rover.rover", ("ws.rover.rover.rover",))]
    # two package names alike still give way to a name no other file has
    assert assign_names([(init, ("util", "a.util")), (node, ("util", "b.util"))]) == \
        [("a.util", ()), ("b.util", ())]
