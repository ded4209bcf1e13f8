"""No call into an imported project name is dropped silently (fixtures/scan_import_shapes): every import shape the
step uses either runs the helper through the scan (its hazard is reported) or is listed as not followed with a
reason, in the JSON report too, and the summary counts the calls not followed. Each helper carries a hazard
marked `# hazard: <shape>`; each call site is marked `# shape: <shape>`."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from scanfixture import FIXTURES, marked_lines, scan_copy

from leapp_codemod.report.json_format import render_json
from leapp_codemod.report.text import summary_line

APP = FIXTURES / "scan_import_shapes" / "sprayer_app"
# Shapes whose callee the code names: an import inside the function, `importlib.import_module` with a constant,
# `from . import x` in the package, a module attribute chain, both arms of a conditional import, a class a setting
# picks from a dict of two (a module dict and one written at the pick), a conditional expression of two functions.
RESOLVABLE = {"local_import", "importlib_constant", "package_dot_import", "attribute_chain", "conditional_import",
              "config_class", "inline_config_class", "chosen_expression"}
# Every helper the resolvable shapes may run (a conditional import and a pick run any of their candidates).
CANDIDATES = {"conditional_import": {"conditional_import", "conditional_import_other"},
              "config_class": {"config_class_a", "config_class_b"},
              "inline_config_class": {"inline_config_class_a", "inline_config_class_b"},
              "chosen_expression": {"chosen_expression_a", "chosen_expression_b"}}
# Shapes no static reading can name: a name the project module lacks, a project module not among the files, a
# relative import above the scanned root, `import_module` of a setting, a class picked among five, a module global
# a factory from a missing module builds.
UNRESOLVABLE = {"missing_name", "missing_module", "beyond_root", "importlib_setting", "many_config_classes",
                "module_global"}
# Marked or listed as chosen at run time, with how.
MARKED = {"importlib_constant": "import_module", "conditional_import": "imports of `clamp`",
          "config_class": "classes picked by", "inline_config_class": "classes picked by"}


def _marks(kind: str) -> dict[str, tuple[str, int]]:
    return marked_lines(APP, kind)


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture
def result(tmp_path, monkeypatch):
    return scan_copy("scan_import_shapes", tmp_path, "sprayer_app", "sprayer.boom:BoomController.step", monkeypatch)


def test_the_fixture_marks_every_shape():
    assert set(_marks("shape")) == RESOLVABLE | UNRESOLVABLE | {"idle_unresolved", "shadowed_library"}
    expected = set().union(*(CANDIDATES.get(s, {s}) for s in RESOLVABLE))
    assert set(_marks("hazard")) == expected


def test_shapes_the_code_names_are_followed_every_candidate(result):
    reported = {(Path(f.path).name, f.line) for f in result.findings}
    listed = {(Path(n.path).name, n.line) for n in result.not_followed}
    shapes, hazards = _marks("shape"), _marks("hazard")
    missed = {h for s in RESOLVABLE for h in CANDIDATES.get(s, {s}) if hazards[h] not in reported}
    assert missed == set()
    assert {s for s in RESOLVABLE if shapes[s] in listed} == set()


def test_run_time_choices_are_marked_with_how(result):
    shapes = _marks("shape")
    how = {(Path(r.path).name, r.line): r.how for r in result.bound_calls}
    for shape, words in MARKED.items():
        assert words in how.get(shapes[shape], ""), shape


def test_shapes_nothing_names_are_listed_with_a_reason_in_json(result):
    shapes = _marks("shape")
    document = json.loads(render_json(result))
    listed = {(Path(n["path"]).name, n["line"]): n["reason"] for n in document["not_followed"]}
    for shape in UNRESOLVABLE:
        assert listed.get(shapes[shape]), shape
    assert "sprayer.gone" in listed[shapes["missing_module"]]
    assert "no_such_helper" in listed[shapes["missing_name"]]
    assert "above the scanned folder" in listed[shapes["beyond_root"]]
    assert "5 classes" in listed[shapes["many_config_classes"]]
    assert "build_smoother" in listed[shapes["module_global"]]
    assert not [n for n in document["not_followed"] if n["package"] == "beyond_root"]   # nothing to install


def test_the_summary_counts_the_calls_not_followed(result):
    assert f"; {len(result.not_followed)} calls not followed" in summary_line(result)
    assert len(result.not_followed) >= len(UNRESOLVABLE)


def test_a_step_made_only_of_unfollowed_calls_is_never_reported_clean(tmp_path, monkeypatch):
    idle = scan_copy("scan_import_shapes", tmp_path, "sprayer_app", "sprayer.boom:idle_step", monkeypatch)
    assert not idle.findings
    assert len(idle.not_followed) == 3   # two imports that do not resolve, a callable an `or` picks
    line = summary_line(idle)
    assert line.startswith("No hazards found in the code followed; 3 calls not followed")


def test_a_library_spelled_like_a_project_folder_is_not_listed(result):
    """`from json.decoder import py_scanstring` with a project folder `sprayer/compat/json/decoder.py`: the scan
    matches the import to that folder, finds no such name there, and knows the standard library is what runs."""
    listed = {(Path(n.path).name, n.line) for n in result.not_followed}
    assert _marks("shape")["shadowed_library"] not in listed
