"""What a scan is asked to do, and the one error it raises for bad usage."""
from __future__ import annotations

from dataclasses import dataclass

from leapp_codemod.observe.merge import ObservedInput
from leapp_codemod.source.parse import MAX_FILE_BYTES


class ScanError(Exception):
    """A usage-level problem (unknown entry, nothing to analyze): exit code 2."""


@dataclass(frozen=True)
class ScanOptions:
    entry: str | None = None
    all_functions: bool = False
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    only_paths: frozenset[str] | None = None   # report findings only in these display paths (lint)
    follow_libraries: bool = True              # analyze the installed packages the pipeline calls
    max_file_bytes: int = MAX_FILE_BYTES       # larger files are skipped with one line
    observed: ObservedInput | None = None      # a saved observation of the entry's first calls (`--driver`)
    follow_symlinks: bool = False              # read links that lead out of the scanned folder
    bind: tuple[tuple[str, str], ...] = ()     # (expression, "module:Class") the user bound a receiver to
