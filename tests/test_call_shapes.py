"""No call inside the pipeline is dropped silently (fixtures/scan_call_shapes): every call shape the step uses
to reach a helper either runs the helper through the scan (its hazard is reported) or is listed as not
followed. Each helper carries a hazard marked `# hazard: <shape>`; each call site is marked `# shape: <shape>`.
Shapes the scan can resolve from the code alone are required to be followed, not merely listed."""
from __future__ import annotations

from pathlib import Path

import pytest
from scanfixture import FIXTURES, marked_lines, scan_copy

APP = FIXTURES / "scan_call_shapes" / "shapes_app"
# Shapes whose callee the code names statically: a registry dict looked up by a field a dataclass sets in
# `__post_init__`, `getattr` of a property by a name every caller passes as a constant, a partial stored on
# another object, an item of a list another object holds, an item of a dict a method returns, what a selector
# returns, a property returning a function, a lambda in a module dict, a local partial.
RESOLVABLE = {"registry_field", "getattr_property", "partial_field", "held_list_item", "returned_dict_item",
              "selector_result", "property_callable", "lambda_registry", "local_partial"}
# Shapes no static reading can name: methods of a plugin module chosen by a setting (handed pipeline data or
# not), a getattr by a name from a setting.
UNRESOLVABLE = {"plugin_method", "plugin_no_data", "getattr_unknown_name"}


def _marks(kind: str) -> dict[str, tuple[str, int]]:
    return marked_lines(APP, kind)


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture
def result(tmp_path, monkeypatch):
    return scan_copy("scan_call_shapes", tmp_path, "shapes_app", "shapes.pipeline:Controller.step", monkeypatch)


def test_the_fixture_marks_every_shape():
    shapes = _marks("shape")
    assert set(shapes) == RESOLVABLE | UNRESOLVABLE
    assert set(_marks("hazard")) == RESOLVABLE


def test_every_call_shape_is_followed_or_listed(result):
    reported = {(Path(f.path).name, f.line) for f in result.findings}
    listed = {(Path(n.path).name, n.line) for n in result.not_followed}
    hazards = _marks("hazard")
    silent = [shape for shape, site in _marks("shape").items()
              if site not in listed and hazards.get(shape) not in reported]
    assert not silent, f"dropped silently: {silent}"


def test_shapes_the_code_names_are_followed_not_listed(result):
    reported = {(Path(f.path).name, f.line) for f in result.findings}
    listed = {(Path(n.path).name, n.line) for n in result.not_followed}
    shapes, hazards = _marks("shape"), _marks("hazard")
    assert {s for s in RESOLVABLE if hazards[s] not in reported} == set()
    assert {s for s in RESOLVABLE if shapes[s] in listed} == set()


def test_shapes_nothing_names_are_listed_with_a_reason(result):
    shapes = _marks("shape")
    listed = {(Path(n.path).name, n.line): n.reason for n in result.not_followed}
    for shape in UNRESOLVABLE:
        assert shapes[shape] in listed, shape
        assert listed[shapes[shape]]
