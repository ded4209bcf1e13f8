"""A command-line option's default (`--filter`, default "pass") decides which class the constructor binds to
`self.filter`: the step's `self.filter.apply(...)` runs the pass-through filter, not the smoothing one and its
state (fixtures/scan_cli_choice_binding). A switch (`action="store_true"`) would decide nothing: it often
selects the real robot, whose code is still the project's deploy code."""
from __future__ import annotations

import pytest
from scanfixture import check_marked, scan_variant

GROUP, APP, ENTRY = "scan_cli_choice_binding", "glider_app", "glider:Glider.act"


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def test_the_filter_the_options_default_does_not_pick_is_not_scanned(tmp_path, monkeypatch):
    found = check_marked(GROUP, tmp_path, monkeypatch, APP, ENTRY)
    assert found == {("glider.py", 37, "tensor-branch")}


def test_a_switch_left_off_still_leaves_both_filters_possible(tmp_path, monkeypatch):
    result = scan_variant(GROUP, tmp_path, monkeypatch, APP, ENTRY, "glider.py",
                          '''        parser.add_argument("--filter", choices=["pass", "smooth"], default="pass", help="action filter")
        args = parser.parse_args()
        self.net = torch.jit.load("glider.pt")
        if args.filter == "smooth":''',
                          '''        parser.add_argument("--smooth", action="store_true", help="smooth the actions")
        args = parser.parse_args()
        self.net = torch.jit.load("glider.pt")
        if args.smooth:''')
    assert (15, "inplace-state") in {(f.line, f.category) for f in result.findings}
