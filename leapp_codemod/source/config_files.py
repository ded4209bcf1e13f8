"""The project's config files (YAML, TOML, JSON) read as text for the static scan: one walk, one reader.

Only regular files are read, opened without blocking and capped in size (a FIFO named `x.yaml` does not hang a
scan); symlinked files are not followed, folders that hold no project config (virtualenvs, outputs, caches) are
skipped, and the walk stops after a fixed number of files.
"""
from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from leapp_codemod.source.parse import read_regular_text

MAX_FILES = 4000
MAX_BYTES = 512 * 1024
SKIP_DIRS = frozenset({".git", ".venv", "venv", "node_modules", "__pycache__", ".leapp-codemod-cache", "outputs",
                       "wandb", "site-packages", ".tox", "build", "dist"})


def config_texts(roots: list[Path], extensions: tuple[str, ...],
                 skip_files: frozenset[str] = frozenset()) -> Iterator[tuple[Path, str]]:
    """(path, text) of every readable config file below `roots` whose name ends with one of `extensions`."""
    seen = 0
    for root in roots:
        for folder, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
            for name in sorted(files):
                if not name.endswith(extensions) or name in skip_files:
                    continue
                seen += 1
                if seen > MAX_FILES:
                    return
                path = Path(folder) / name
                text = read_regular_text(path, MAX_BYTES)
                if text is not None:
                    yield path, text
