"""Property: any program the Python grammar accepts goes through `scan --all` and entry mode (and
the reporters) without an exception escaping. A small count here (derandomized under the "ci"
profile); benchmarks/fuzz_scan.py runs 10,000."""
from __future__ import annotations

import sys
import warnings
from pathlib import Path

import hypothesmith
import pytest
from hypothesis import HealthCheck, given, settings

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from fuzz_scan import check_program, first_function  # noqa: E402

pytestmark = pytest.mark.slow  # `make test-fast` leaves this module out


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(hypothesmith.from_grammar())
def test_generated_programs_never_raise(tmp_path_factory, text):
    folder = tmp_path_factory.mktemp("fz")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert check_program(text, folder) == []


@pytest.mark.parametrize("text", [
    "class A:\n    def f(self, x):\n        return x[::-1]\n",
    "async def g(*a, **k):\n    return [y async for y in a]\n",
    "match x:\n    case [1, *rest]:\n        pass\n",
    "lambda: (yield)\n",
    "def f(x):\n    global x\n",
])
def test_edge_programs_and_the_entry_they_offer(tmp_path, text):
    assert check_program(text, tmp_path) == []
    assert first_function("class A:\n    def f(self): pass\n") == "A.f"
