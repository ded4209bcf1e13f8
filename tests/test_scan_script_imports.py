"""Imports a script resolves by bare name (fixtures/scan_script_imports): a sibling file of a script inside a
package, and modules in folders the script puts on sys.path (from `__file__` or a constant path)."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest
from scanfixture import found, scan_copy

from leapp_codemod.analysis.model.index import ModuleIndex
from leapp_codemod.analysis.model.path_entries import PathEntries, path_entries
from leapp_codemod.scan.load import load_project


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def test_a_scripts_sibling_imported_by_bare_name_is_followed_not_a_same_named_file_elsewhere(tmp_path, monkeypatch):
    result = scan_copy("scan_script_imports", tmp_path, "sibling_app", "bench.loop:Loop.step", monkeypatch)
    assert ("smoother.py", 9, "LCM801") in found(result)    # bench/smoother.py, not third_party/legacy/
    assert not any("smooth" in n.text for n in result.not_followed)


def test_modules_in_folders_appended_to_sys_path_are_followed(tmp_path, monkeypatch):
    result = scan_copy("scan_script_imports", tmp_path, "appended_app", "play:Player.act", monkeypatch)
    hits = found(result)
    assert ("mixer.py", 5, "LCM801") in hits     # nets/, spelled Path(__file__).resolve().parent.parent / "nets"
    assert ("noise.py", 5, "LCM801") in hits     # extras, a constant relative to the working folder
    assert not any(name in n.text for n in result.not_followed for name in ("blend", "shake"))


def _entries(code: str, file: Path, cwd: Path) -> PathEntries:
    tree = ast.parse(code)
    return path_entries(ModuleIndex("m", "m.py", False, tree, imports={"sys": "sys"},
                                    globals={t.targets[0].id: t.value for t in tree.body
                                             if isinstance(t, ast.Assign) and isinstance(t.targets[0], ast.Name)}),
                        file, cwd)


@pytest.mark.parametrize("spelled, folder", [
    ("os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib')", "/r/a/lib"),
    ("os.path.dirname(os.path.dirname(__file__))", "/r/a"),
    ("str(Path(__file__).resolve().parent / 'vendor')", "/r/a/b/vendor"),
    ("HERE + '/x'", None),                    # string concatenation is not read
    ("'tools'", "/cwd/tools"),
    ("'/opt/pkgs'", "/opt/pkgs"),
    ("get_root()", None),
])
def test_the_folder_a_sys_path_call_spells(spelled, folder):
    found = _entries(f"sys.path.append({spelled})", Path("/r/a/b/s.py"), Path("/cwd"))
    assert found.last == ([Path(folder)] if folder else [])
    assert found.first == []


def test_an_insert_at_the_front_is_searched_before_the_root_and_an_append_after_it():
    found = _entries("BASE = os.path.dirname(__file__)\nsys.path.insert(0, BASE)\nsys.path.insert(1, 'late')",
                     Path("/r/s.py"), Path("/r"))
    assert found.first == [Path("/r")]
    assert found.last == [Path("/r/late")]


def test_a_sibling_named_like_a_standard_library_module_does_not_shadow_it(tmp_path):
    (tmp_path / "pkg").mkdir()
    for name, text in {"__init__.py": "", "random.py": "def seed(): pass\n",
                       "run.py": "import random\nfrom helper import f\n", "helper.py": "def f(): pass\n"}.items():
        (tmp_path / "pkg" / name).write_text(text)
    project = load_project([str(tmp_path)]).project
    run = next(m for name, m in project.modules.items() if name.endswith("run"))
    assert run.imports["random"] == "random"
    assert run.imports["f"].endswith("pkg.helper.f")


def test_a_closure_the_drivers_function_defines_is_followed_from_an_inline_range(tmp_path, monkeypatch):
    result = scan_copy("scan_script_imports", tmp_path, "closure_app", "rollout.py:16-17", monkeypatch)
    assert ("rollout.py", 13, "LCM801") in found(result)     # perturb's randn_like, defined at 12
    assert not any("perturb" in n.text for n in result.not_followed)


def test_script_level_modules_in_a_dict_literal_in_branches_and_moved_to_a_device_are_followed(tmp_path, monkeypatch):
    result = scan_copy("scan_script_imports", tmp_path, "dict_app", "replay.py:18-19", monkeypatch)
    hits = found(result)
    assert ("nets.py", 12, "LCM801") in hits   # parts["trunk"]: `trunk = Narrow()` in the else arm at 12
    assert ("nets.py", 17, "LCM801") in hits   # parts["head"]: Head().to(device) in the literal of ModuleDict(...).eval()
    assert ("nets.py", 22, "LCM801") in hits   # clip = Clip().cpu(), a script-level global
    assert not result.not_followed


def test_an_attribute_declared_as_a_class_of_an_absent_package_is_listed_not_duck_typed(tmp_path, monkeypatch):
    result = scan_copy("scan_script_imports", tmp_path, "annotated_app", "mixer:Mixer.step", monkeypatch)
    assert not result.findings                            # Jitter.smooth_step's rand is not what runs
    assert [n.line for n in result.not_followed] == [26]
    assert "absentlib.filters.LowPass" in result.not_followed[0].reason
