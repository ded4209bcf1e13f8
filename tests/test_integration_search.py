"""The search for generated integration modules under the scanned paths' common folder reads each file's
first bytes before its other checks; it must find exactly what the full walk and the header test find."""
from __future__ import annotations

import os
import threading
from pathlib import Path

from leapp_codemod.knowledge.leapp import GENERATED_HEADER
from leapp_codemod.resolved import discover_integrations, is_generated
from leapp_codemod.source.files import python_paths

HEADER = GENERATED_HEADER + "0" * 64 + "\n"


def _tree(root: Path) -> dict[str, Path]:
    files = {
        "kept": root / "app" / "integration.py",
        "plain": root / "app" / "policy.py",
        "excluded": root / "build" / "old_integration.py",
        "not_python": root / "app" / "integration.txt",
    }
    for name, path in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text((HEADER if name != "plain" else "") + "X = 1\n", encoding="utf-8")
    (root / "app" / "alias.py").symlink_to(files["kept"])              # the same module twice
    (root / "app" / "dangling.py").symlink_to(root / "gone.py")           # a link to nothing
    outside = root.parent / f"{root.name}-outside"
    outside.mkdir()
    (outside / "far.py").write_text(HEADER, encoding="utf-8")
    (root / "app" / "far.py").symlink_to(outside / "far.py")              # a link out of the folder
    os.mkfifo(root / "app" / "pipe.py")                                   # never opened
    return files


def test_the_search_finds_what_the_walk_and_the_header_test_find(tmp_path):
    root = tmp_path / "project"
    files = _tree(root)
    expected = sorted(p for p in python_paths(str(root)) if is_generated(p))
    found: list = []
    search = threading.Thread(target=lambda: found.append(discover_integrations(root)), daemon=True)
    search.start()
    search.join(timeout=30)
    assert found, "the search blocked (a FIFO named like a module was opened)"
    assert found[0] == expected == [files["kept"].resolve()]


def test_the_scanned_files_count_even_outside_the_folder(tmp_path):
    root = tmp_path / "project"
    _tree(root)
    outside = (tmp_path / "project-outside" / "far.py").resolve()
    assert outside in discover_integrations(root, files=[outside])
    assert outside not in discover_integrations(root)
