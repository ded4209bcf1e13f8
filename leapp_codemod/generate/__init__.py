"""`generate`: from a scan of the application to one separate LEAPP integration module."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from leapp_codemod.analysis.inline.range import parse_inline_entry
from leapp_codemod.generate.guard import Merge, OverwriteRefused, merge, same_content, unified_diff
from leapp_codemod.generate.render import render_body, with_header, write_module
from leapp_codemod.generate.spec import IntegrationSpec, Options, SpecError, build_spec
from leapp_codemod.model import ScanResult

__all__ = ["GenerateError", "Options", "Plan", "generate", "plan", "render_module", "scan_for"]


class GenerateError(Exception):
    """A one-line reason why nothing was written."""


def scan_for(opts: Options) -> ScanResult:
    try:
        from leapp_codemod.scan import ScanError, scan_project
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
    return with_header(render_body(spec), opts.output.name), spec


def _inside(path: Path, tree: Path) -> bool:
    try:
        path.resolve().relative_to(tree.resolve())
    except ValueError:
        return False
    return True


@dataclass
class Plan:
    """What `generate` would write, and how it relates to the file already there."""

    spec: IntegrationSpec
    text: str
    existing: str | None
    merge: Merge = field(default_factory=lambda: Merge(""))

    @property
    def up_to_date(self) -> bool:
        """The file on disk already holds this content (layout aside): `generate --check` passes."""
        return self.existing is not None and same_content(self.existing, self.text)

    def diff(self, name: str) -> str:
        return unified_diff(name, self.existing, self.text)


def plan(opts: Options, *, force: bool = False, scan: ScanResult | None = None) -> Plan:
    """Scan (unless given) and render the module, carrying over what the user wrote in the existing one."""
    if not opts.app.exists():
        raise GenerateError(f"{opts.app}: no such application path")
    if opts.driver is not None and not opts.driver.is_file():
        raise GenerateError(f"{opts.driver}: driver script not found")
    app_tree = opts.app if opts.app.is_dir() else opts.app.parent
    if _inside(opts.output, app_tree):
        raise GenerateError(f"{opts.output}: refusing to write inside the application tree {app_tree}")
    scan = scan if scan is not None else scan_for(opts)
    if (scan.entry is not None and scan.entry.kind == "function" and scan.entry.id != opts.entry
            and not parse_inline_entry(opts.entry)):
        opts = replace(opts, entry=scan.entry.id)   # the module's own name, importable from the app root
    text, spec = render_module(scan, opts)
    existing = opts.output.read_text(encoding="utf-8", errors="replace") if opts.output.is_file() else None
    if existing is None or force:
        return Plan(spec, text, existing, Merge(text))
    try:
        merged = merge(str(opts.output), existing, text)
    except OverwriteRefused as exc:
        raise GenerateError(str(exc)) from None
    if merged.text != text:
        from leapp_codemod.generate.formatting import format_module
        merged = replace(merged, text=format_module(merged.text, opts.output.name))
    return Plan(spec, merged.text, existing, merged)


def write_plan(planned: Plan, output: Path) -> None:
    write_module(output, planned.text)


def generate(opts: Options, *, force: bool = False, scan: ScanResult | None = None) -> IntegrationSpec:
    """Scan (unless given), render and write the integration module; returns what was rendered."""
    planned = plan(opts, force=force, scan=scan)
    write_plan(planned, opts.output)
    return planned.spec
