"""`generate`: from a scan of the application to one separate LEAPP integration module."""
from __future__ import annotations

from pathlib import Path

from leapp_codemod.generate.render import (
    OverwriteRefused,
    check_overwrite,
    render_body,
    with_header,
    write_module,
)
from leapp_codemod.generate.spec import IntegrationSpec, Options, SpecError, build_spec
from leapp_codemod.model import ScanResult

__all__ = ["GenerateError", "Options", "generate", "render_module", "scan_for"]


class GenerateError(Exception):
    """A one-line reason why nothing was written."""


def scan_for(opts: Options) -> ScanResult:
    try:
        from leapp_codemod.analysis.scanner import ScanError, scan_project
    except ImportError as exc:
        raise GenerateError(f"the scanner is not available ({exc})") from None
    try:
        return scan_project([str(opts.app)], entry=opts.entry)
    except ScanError as exc:
        raise GenerateError(str(exc)) from None


def render_module(scan: ScanResult, opts: Options) -> tuple[str, IntegrationSpec]:
    try:
        spec = build_spec(scan, opts)
    except SpecError as exc:
        raise GenerateError(str(exc)) from None
    return with_header(render_body(spec)), spec


def _inside(path: Path, tree: Path) -> bool:
    try:
        path.resolve().relative_to(tree.resolve())
    except ValueError:
        return False
    return True


def generate(opts: Options, *, force: bool = False, scan: ScanResult | None = None) -> IntegrationSpec:
    """Scan (unless given), render and write the integration module; returns what was rendered."""
    if not opts.app.exists():
        raise GenerateError(f"{opts.app}: no such application path")
    if opts.driver is not None and not opts.driver.is_file():
        raise GenerateError(f"{opts.driver}: driver script not found")
    app_tree = opts.app if opts.app.is_dir() else opts.app.parent
    if _inside(opts.output, app_tree):
        raise GenerateError(f"{opts.output}: refusing to write inside the application tree {app_tree}")
    scan = scan if scan is not None else scan_for(opts)
    text, spec = render_module(scan, opts)
    if not force:
        try:
            check_overwrite(opts.output)
        except OverwriteRefused as exc:
            raise GenerateError(str(exc)) from None
    write_module(opts.output, text)
    return spec
