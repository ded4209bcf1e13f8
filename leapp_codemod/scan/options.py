"""What a scan is asked to do, and the one error it raises for bad usage."""
from __future__ import annotations

from dataclasses import dataclass

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
