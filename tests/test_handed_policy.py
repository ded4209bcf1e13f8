"""An object handed to an entry's parameter through helpers that pass it on (keyword hops), a
`functools.partial` or a lambda is bound to the class the driver builds (fixtures/scan_handed_policy), not
listed as "no caller passes a project class" nor guessed by the method name."""
from __future__ import annotations

from pathlib import Path

import pytest
from scanfixture import FIXTURES, marked_lines, scan_copy

APP = FIXTURES / "scan_handed_policy" / "parcel_line"
ENTRIES = {"keyword_hops": "sorter.step:pick_bin", "partial_binding": "sorter.step:grade_parcel",
           "lambda_wrapper": "sorter.step:route_parcel"}


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def test_the_fixture_marks_every_shape():
    assert set(marked_lines(APP, "shape")) - {"enclosing_parameter"} == set(ENTRIES) == set(marked_lines(APP, "hazard"))


@pytest.mark.parametrize("shape", sorted(ENTRIES))
def test_the_handed_class_is_followed(shape, tmp_path, monkeypatch):
    result = scan_copy("scan_handed_policy", tmp_path, "parcel_line", ENTRIES[shape], monkeypatch)
    reported = {(Path(f.path).name, f.line) for f in result.findings}
    hazards = marked_lines(APP, "hazard")
    assert hazards[shape] in reported
    assert not {site for name, site in hazards.items() if name != shape} & reported   # only the class handed
    call = marked_lines(APP, "shape")[shape]
    assert call not in {(Path(n.path).name, n.line) for n in result.not_followed}
    assert not [b for b in result.bound_calls if "duck typing" in b.how]


def test_a_range_parameter_names_the_enclosing_function_and_the_binding(tmp_path, monkeypatch):
    """The range inside `run_belt` calls `scorer.rank`: the value comes from an uninstalled package, bound in
    `main` and passed by keyword. The listing names `run_belt` (not the synthetic range function), the line
    that binds the value and the name to `--bind`; the TorchScript stage torch loads is a known object."""
    lines = (APP / "belt_loop.py").read_text().splitlines()
    start = next(i for i, line in enumerate(lines, 1) if line.strip().startswith("x = torch.as_tensor"))
    result = scan_copy("scan_handed_policy", tmp_path, "parcel_line", f"belt_loop.py:{start}-{start + 3}", monkeypatch)
    call = marked_lines(APP, "shape")["enclosing_parameter"]
    bound = marked_lines(APP, "bound")["enclosing_parameter"]
    listed = {(Path(n.path).name, n.line): n for n in result.not_followed}
    assert set(listed) == {call}                      # `stage(ranks)` is not listed
    entry = listed[call]
    assert "parameter of run_belt," in entry.reason and "<lines" not in entry.reason
    assert f"belt_loop.py:{bound[1]}" in entry.reason and "load_scorer" in entry.reason
    assert entry.receiver == "scorer"
