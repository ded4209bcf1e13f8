"""The static view of the adapter registry: `leapp_codemod/data/adapters.json`, written from
`ADAPTERS` by `python -m leapp_codemod.adapters.table` and read by `generate`, which must not import
torch. A test keeps the file equal to the registry."""
from __future__ import annotations

import json
from pathlib import Path

from leapp_codemod.adapters import ADAPTERS
from leapp_codemod.io_util import write_atomic

TABLE = Path(__file__).resolve().parents[1] / "data" / "adapters.json"


def table_text() -> str:
    """The registry as the file holds it: name -> kind and documented domain, sorted by name."""
    entries = {name: {"kind": a.kind, "domain": a.domain} for name, a in sorted(ADAPTERS.items())}
    return json.dumps(entries, indent=1, sort_keys=True) + "\n"


if __name__ == "__main__":
    write_atomic(TABLE, table_text())
    print(f"wrote {len(ADAPTERS)} adapters to {TABLE}")
