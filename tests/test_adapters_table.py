"""One adapter registry: the static table `generate` reads is the runtime registry `run` executes."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from leapp_codemod.adapters import ADAPTERS
from leapp_codemod.adapters.table import TABLE, table_text
from leapp_codemod.generate import adapters as static

pytestmark = pytest.mark.slow  # `make test-fast` leaves this module out


def test_the_static_table_is_the_runtime_registry():
    assert TABLE.read_text(encoding="utf-8") == table_text(), \
        "leapp_codemod/data/adapters.json is stale: run python -m leapp_codemod.adapters.table"
    assert static.registry() == {name: adapter.kind for name, adapter in ADAPTERS.items()}
    assert all(static.domain(name) == adapter.domain for name, adapter in ADAPTERS.items())


def test_the_static_view_imports_neither_torch_nor_numpy():
    code = ("import sys; from leapp_codemod.generate import adapters as a; names = a.registry(); "
            "print(len(names), 'torch' in sys.modules, 'numpy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == [str(len(ADAPTERS)), "False", "False"]
    assert len(json.loads(TABLE.read_text())) == len(ADAPTERS) > 50
