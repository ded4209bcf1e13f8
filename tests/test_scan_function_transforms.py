"""LCM115 through the shapes code gives a torch.func transform: a `torch.func.vmap` held on an ensemble module and
called in its `forward` (reached through a model attribute that may hold either of two classes), a helper that
returns `vmap(fn)` called at once, a module-global `functorch.jacrev`; a loop over the members is no finding."""
from __future__ import annotations

from pathlib import Path

import pytest

from leapp_codemod.scan import scan_project

GLIDER = Path(__file__).resolve().parent.parent / "fixtures" / "scan_function_transforms"


def _transforms(entry: str):
    result = scan_project([str(GLIDER)], entry=entry)
    assert result.errors == [], result.errors
    return [f for f in result.findings if f.code == "LCM115"]


@pytest.mark.parametrize(("entry", "expected"), [
    ("glider.pilot:Pilot.choose", {("critics.py", 24)}),
    ("glider.pilot:Pilot.choose_safely", set()),
    ("glider.pilot:smooth", {("pilot.py", 30)}),
    ("glider.pilot:gradient_step", {("pilot.py", 35)}),
])
def test_calls_of_transformed_functions_on_pipeline_data(entry, expected):
    assert {(Path(f.path).name, f.line) for f in _transforms(entry)} == expected


def test_a_transform_kept_on_an_attribute_names_where_it_was_made():
    (finding,) = _transforms("glider.pilot:Pilot.choose")
    assert [(Path(r[0]).name, r[1]) for r in finding.related] == [("critics.py", 19)]
    assert "vmap" in finding.message
