"""The adapter registry: well-formed entries, real original names, light imports, FunctionPatch use."""
from __future__ import annotations

import importlib
import json
import subprocess
import sys

import numpy as np
import pytest

from leapp_codemod.adapters import (
    ADAPTERS,
    CLASS,
    CONSTRUCTOR,
    FUNCTION,
    METHOD,
    Adapter,
)

pytestmark = pytest.mark.slow  # `make test-fast` leaves this module out


def resolve(dotted: str):
    """The object a dotted name refers to, importing the longest importable module prefix."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(dotted)


def test_entries_are_well_formed():
    assert len(ADAPTERS) >= 60
    for key, adapter in ADAPTERS.items():
        assert isinstance(adapter, Adapter) and adapter.name == key
        assert callable(adapter.function) and callable(adapter.check_domain)
        assert adapter.kind in (FUNCTION, METHOD, CONSTRUCTOR, CLASS)
        assert len(adapter.domain) > 10, key


@pytest.mark.parametrize("name", sorted(ADAPTERS))
def test_every_name_exists_in_the_original_library(name):
    if name.startswith("sklearn."):
        pytest.importorskip("sklearn")
    assert callable(resolve(name))


def test_importing_the_adapters_imports_no_third_party_library_it_replaces():
    script = ("import json, sys, leapp_codemod.adapters; "
              "top = {m.split('.')[0] for m in sys.modules}; "
              "print(json.dumps(sorted(top & {'cv2', 'sklearn', 'scipy', 'leapp'})))")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == []


def test_check_domain_refuses_what_the_function_refuses():
    cases = {
        "numpy.linalg.norm": ((np.ones((2, 2)),), {"ord": "nuc"}),
        "numpy.pad": ((np.ones(2), 1), {"mode": "median"}),
        "cv2.resize": ((np.zeros((4, 4), np.uint8), (3, 3)), {"interpolation": 3}),
        "scipy.spatial.transform.Rotation.from_euler": (("xyzx", [0, 0, 0, 0]), {}),
    }
    for name, (args, kwargs) in cases.items():
        for call in (ADAPTERS[name].check_domain, ADAPTERS[name].function):
            with pytest.raises(ValueError, match=f"adapter {name}"):
                call(*args, **kwargs)
