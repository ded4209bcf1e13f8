"""The scan pipeline, above the rules: loading, rule dispatch, suppressions, lint/cache/pool, post-processing.

* `load`      files -> parse -> index -> `Project` (+ suppressions)
* `entry`     the entry's function, receiver class and data parameters (entry mode)
* `dispatch`  rules on live nodes -> findings, state writes, library calls
* `post`      library findings at call sites, dedupe, patch targets
* `lint`      lint mode per file, cached, parallel
* `pipeline`  `analyze` (one loaded project), `scan` (cached), `scan_project` (the API `generate` and tests use)
"""
from __future__ import annotations

from leapp_codemod.scan.lint import lint_source
from leapp_codemod.scan.load import LoadedProject, load_project
from leapp_codemod.scan.options import ScanError, ScanOptions
from leapp_codemod.scan.pipeline import analyze, scan, scan_project

__all__ = ["LoadedProject", "ScanError", "ScanOptions", "analyze", "lint_source", "load_project", "scan", "scan_project"]
