"""Source read from standard input (`scan -`), scanned as a file named by `--stdin-filename`."""
from __future__ import annotations

import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from leapp_codemod.source.files import module_name

STDIN = "-"
DEFAULT_NAME = "stdin.py"


@contextmanager
def stdin_as_file(text: str, filename: str | None) -> Iterator[Path]:
    """A temporary copy of `text` whose module name is the one `filename` would have on disk.

    The copy sits under the same package folders (empty `__init__.py` files), so an
    `--entry pkg.mod:fn` given with `--stdin-filename pkg/mod.py` names it as it would the real file.
    """
    name = Path(filename or DEFAULT_NAME)
    dotted, is_package = module_name(name.resolve()) if filename else (name.stem, False)
    packages = dotted.split(".") if is_package else dotted.split(".")[:-1]
    with tempfile.TemporaryDirectory(prefix="leapp-codemod-stdin-") as tmp:
        folder = Path(tmp)
        for package in packages:
            folder = folder / package
            folder.mkdir()
            (folder / "__init__.py").write_text("", encoding="utf-8")
        copy = folder / (name.name if name.suffix == ".py" else f"{name.name}.py")
        copy.write_text(text, encoding="utf-8")
        yield copy
