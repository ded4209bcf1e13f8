"""LEAPP's NumPy tables come from the installed package's source, or from the bundled snapshot."""
from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from leapp_codemod.analysis.model import leapp_support
from leapp_codemod.analysis.model.leapp_support import extract_from_source, load_snapshot, load_support

TABLES = textwrap.dedent("""
    import numpy as np
    import torch
    _NUMPY_DTYPE_TO_NAME = dict((d, n) for s, n in {np.float32: "float32", np.uint8: "uint8"}.items() for d in (s,))
    NUMPY_UFUNC_TO_TORCH = {np.add: torch.add, np.absolute: torch.abs}
    NUMPY_FUNC_TO_TORCH = {np.concatenate: torch.cat, np.linalg.det: torch.det}
    class TracedNpArray:
        def reshape(self, *shape): ...
        def sum(self, axis=None): ...
""")


def test_tables_are_read_from_source_with_numpy_aliases():
    support = extract_from_source(TABLES, "9.9", "test")
    assert {"numpy.add", "numpy.absolute", "numpy.abs", "numpy.concatenate", "numpy.concat",
            "numpy.linalg.det"} <= support.numpy_functions
    assert "numpy.linalg.norm" not in support.numpy_functions
    assert support.traced_methods == {"reshape", "sum"}
    assert support.dtypes == {"float32", "uint8"}
    assert support.maps_numpy("numpy.asarray")  # global patch while a session is active


def test_source_without_tables_is_rejected():
    with pytest.raises(ValueError):
        extract_from_source("x = 1\n", "1", "test")


def test_bundled_snapshot_is_leapp_0_7_2_and_names_itself():
    snapshot = load_snapshot()
    assert snapshot.version == "0.7.2"
    assert "bundled snapshot of leapp 0.7.2" in snapshot.origin
    assert "numpy.linalg.norm" not in snapshot.numpy_functions
    assert {"numpy.concatenate", "numpy.arctan2", "numpy.flip"} <= snapshot.numpy_functions
    assert "uint16" not in snapshot.dtypes and "float32" in snapshot.dtypes


def test_installed_leapp_agrees_with_the_snapshot_when_it_is_0_7_2():
    installed = load_support()
    if installed.version != "0.7.2":
        pytest.skip(f"installed leapp is {installed.version}")
    snapshot = load_snapshot()
    assert installed.origin == "installed leapp 0.7.2"
    assert installed.numpy_functions == snapshot.numpy_functions
    assert installed.dtypes == snapshot.dtypes and installed.traced_methods == snapshot.traced_methods


def test_falls_back_to_the_snapshot_without_leapp(monkeypatch):
    load_support.cache_clear()
    monkeypatch.setattr(leapp_support, "_installed_leapp_dir", lambda: None)
    try:
        assert load_support().origin.startswith("bundled snapshot of leapp 0.7.2")
    finally:
        load_support.cache_clear()


def test_scan_without_leapp_says_so_once(tmp_path):
    (tmp_path / "a.py").write_text("def step(x):\n    return x.item()\n")
    (tmp_path / "b.py").write_text("def step(x):\n    return x.tolist()\n")
    hide_leapp = ("import importlib.util, sys\n"
                  "real = importlib.util.find_spec\n"
                  "importlib.util.find_spec = lambda name, *a: None if name == 'leapp' else real(name, *a)\n"
                  "from leapp_codemod.cli import main\n"
                  "sys.exit(main())\n")
    proc = subprocess.run([sys.executable, "-c", hide_leapp, "scan", "--all", "--no-cache", "a.py", "b.py"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.count("bundled snapshot of leapp 0.7.2") == 1
    assert "a.py:2" in proc.stdout and "b.py:2" in proc.stdout
    hook = subprocess.run([sys.executable, "-c", hide_leapp, "lint", "--no-cache", "a.py", "b.py"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert hook.returncode == 1 and "a.py:2" in hook.stdout
    assert "bundled snapshot" not in hook.stderr          # a pre-commit batch does not repeat the note



@pytest.mark.parametrize(("table", "reason"), [
    (None, "tables are unreadable: cannot read"),
    ("NUMPY_FUNC_TO_TORCH = {\n", "tables are unreadable: cannot parse"),
    ("X = 1\n", "tables are unreadable: "),
])
def test_installed_but_unreadable_tables_say_why(tmp_path, monkeypatch, table, reason):
    pkg = tmp_path / "leapp"
    pkg.mkdir()
    (pkg / "__init__.py").write_text('__version__ = "9.9"\n')
    if table is not None:
        (pkg / leapp_support.TABLE_FILE).parent.mkdir(parents=True, exist_ok=True)
        (pkg / leapp_support.TABLE_FILE).write_text(table)
    load_support.cache_clear()
    monkeypatch.setattr(leapp_support, "_installed_leapp_dir", lambda: pkg)
    try:
        origin = load_support().origin
    finally:
        load_support.cache_clear()
    assert origin.startswith(f"bundled snapshot of leapp 0.7.2 (leapp is installed at {pkg} but its {reason}")
    assert "not installed" not in origin
