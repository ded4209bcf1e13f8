"""Ruff-style text.

The full form (`text`): a header naming the entrypoint analyzed and why, then per finding
`path:line:col: CODE [category] message`, the source line with a caret under the span and a
`help:` line carrying the fix, then a one-line summary. The concise form keeps only the first
line of each finding and no header; `statistics` replaces the findings by a count per code.

Files that could not be analyzed are counted in the summary; the command prints their messages
on standard error.
"""
from __future__ import annotations

import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from leapp_codemod.model import Finding, ScanResult, Severity
from leapp_codemod.report.positions import sorted_findings, span
from leapp_codemod.report.style import Style

TAB_WIDTH = 4
PLAIN = Style()


@dataclass(frozen=True)
class TextOptions:
    concise: bool = False
    statistics: bool = False
    quiet: bool = False           # findings only: no header, no summary
    header: bool = True
    all_functions: bool = False   # the scan checked every function (no entrypoint was looked for)
    show_resolved: bool = False   # list the findings a generated integration module resolves
    style: Style = field(default_factory=Style)


class SourceLines:
    """The lines of the files findings point into, read once each; `texts` overrides the disk (stdin)."""

    def __init__(self, texts: dict[str, str] | None = None) -> None:
        self._lines: dict[str, list[str] | None] = {
            path: text.splitlines() for path, text in (texts or {}).items()}

    def line(self, path: str, number: int) -> str | None:
        if path not in self._lines:
            try:
                self._lines[path] = Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError:
                self._lines[path] = None
        lines = self._lines[path]
        if lines is None or not 1 <= number <= len(lines):
            return None
        return lines[number - 1]


def render_text(result: ScanResult, options: TextOptions | None = None, sources: SourceLines | None = None) -> str:
    options = options or TextOptions()
    sources = sources or SourceLines()
    findings = sorted_findings(result.findings)
    blocks: list[str] = []
    if options.header and not (options.quiet or options.concise):
        blocks.append(header_line(result, options.all_functions, options.style))
        if result.observed_note:
            blocks[-1] += "\n" + result.observed_note
    if options.statistics:
        blocks.extend(statistics_lines(findings))
    elif options.concise:
        blocks.extend(finding_line(f, options.style) for f in findings)
    else:
        blocks.extend(finding_block(f, sources.line(f.path, span(f).line), options.style) for f in findings)
    if options.show_resolved and not options.statistics:
        blocks.extend(resolved_line(r, options.style) for r in getattr(result, "resolved", ()))
    if not options.quiet:
        if not options.concise and not options.statistics:
            blocks.append(bound_calls_block(result, options.style))
        blocks.append(not_followed_block(result, options.style, concise=options.concise or options.statistics))
        blocks.append("\n".join(f"keys not known: {line}" for line in getattr(result, "open_keys", ())))
        blocks.append(summary_line(result))
    separator = "\n" if options.concise or options.statistics else "\n\n"
    text = separator.join(b for b in blocks if b)
    return text + "\n" if text else ""


def header_line(result: ScanResult, all_functions: bool = False, style: Style = PLAIN) -> str:
    """Which entrypoint was analyzed and why, or what was done without one.

    The scan's own line (`ScanResult.entry_note`, which JSON carries too) when it wrote one, else a line
    of the same form (`entry: ID (why)`, or `entry: none …` and what was done) from `result.entry`.
    """
    note = getattr(result, "entry_note", "")
    if note:
        return note
    entry = result.entry
    if entry is not None:
        why = "; ".join(entry.reasons[:2]) or "highest score"
        return f"{style.paint('entry:', 'bold')} {style.paint(entry.id, 'cyan')} ({why})"
    if all_functions:
        return (f"{style.paint('entry:', 'bold')} none followed (--all); "
                "analyzed every function as pipeline code")
    return (f"{style.paint('entry:', 'bold')} no candidate found; analyzed every function as pipeline code "
            "instead; pass --entry MODULE:QUALNAME")


def finding_line(finding: Finding, style: Style = PLAIN) -> str:
    """`path:line:col: CODE [category] message`, the column 1-based."""
    where = span(finding)
    message = " ".join(finding.message.split())
    location = style.paint(f"{finding.path}:{where.line}:{where.column}:", "bold")
    seen = f" ({finding.seen})" if finding.seen else ""
    return f"{location} {style.severity(finding.code, finding.severity)} [{finding.category}] {message}{seen}"


def finding_block(finding: Finding, source_line: str | None, style: Style = PLAIN) -> str:
    """The finding's line, the source line with a caret under the span, and `= help: <fix>`."""
    where = span(finding)
    lines = [finding_line(finding, style)]
    gutter_width = len(str(where.line))
    bar = style.paint(" " * (gutter_width + 1) + "|", "blue")
    if source_line is not None:
        shown, start, width = caret_span(source_line, where.column,
                                         where.end_column if where.end_line == where.line else None)
        number = style.paint(f"{where.line} |", "blue")
        carets = style.severity("^" * width + f" {finding.code}", finding.severity)
        lines += [bar, f"{number} {shown}".rstrip(), f"{bar} {' ' * start}{carets}", bar]
    for path, line, column, note in finding.related:
        lines.append(f"{' ' * (gutter_width + 1)}= {style.paint('note', 'cyan')}: {path}:{line}:{max(1, column)}: {note}")
    fix = " ".join(finding.fix.split())
    if fix:
        lines.append(f"{' ' * (gutter_width + 1)}= {style.paint('help', 'cyan')}: {fix}")
    return "\n".join(lines)


def caret_span(line: str, column: int, end_column: int | None) -> tuple[str, int, int]:
    """The line as displayed (tabs expanded) and the display offset and width of the caret.

    Columns are 1-based character columns; `end_column` is just past the span, or None when the
    span runs on to later lines (the caret then reaches the end of this line).
    """
    shown: list[str] = []
    offsets = [0]
    for char in line.rstrip("\r\n"):
        piece = " " * (TAB_WIDTH - offsets[-1] % TAB_WIDTH) if char == "\t" else char
        shown.append(piece)
        offsets.append(offsets[-1] + sum(_width(c) for c in piece))
    last = len(offsets) - 1
    first = min(max(column - 1, 0), last)
    stop = last if end_column is None else min(max(end_column - 1, first), last)
    while stop > first and "".join(shown[stop - 1:stop]).isspace():
        stop -= 1
    return "".join(shown), offsets[first], max(1, offsets[stop] - offsets[first])


def _width(char: str) -> int:
    if unicodedata.combining(char):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def statistics_lines(findings: list[Finding]) -> list[str]:
    """One line per code, most frequent first: `count  CODE  name  severity`."""
    from leapp_codemod.rules import get_rule
    counts = Counter(f.code for f in findings)
    severities = {f.code: f.severity for f in findings}
    rows = []
    for code, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        rule = get_rule(code)
        rows.append((str(count), code, rule.name if rule else "", severities[code]))
    if not rows:
        return []
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    return [f"{row[0].rjust(widths[0])}\t{row[1].ljust(widths[1])}\t{row[2].ljust(widths[2])}\t{row[3]}"
            .rstrip() for row in rows]


def resolved_line(resolution, style: Style = PLAIN) -> str:
    """A finding a generated module resolves: its line, then `(resolved by FILE)`."""
    return f"{finding_line(resolution.finding, style)} {style.paint(f'(resolved by {resolution.by})', 'cyan')}"


def bound_calls_block(result: ScanResult, style: Style = PLAIN) -> str:
    """The calls on receivers bound at run time and how each was resolved (a config, duck typing, --bind)."""
    resolved = getattr(result, "bound_calls", ())
    if not resolved:
        return ""
    lines = [f"{style.paint('followed at run time:', 'bold')} {plural(len(resolved), 'call')} whose receiver is "
             "chosen when the program runs"]
    for r in resolved:
        lines.append(f"  {r.path}:{r.line}  {r.text} -> {', '.join(r.targets)}  ({r.how})")
    return "\n".join(lines)


def not_followed_block(result: ScanResult, style: Style = PLAIN, concise: bool = False) -> str:
    """The calls in the pipeline the scan could not resolve (their code was not analyzed) and how to bind them."""
    missing = getattr(result, "not_followed", ())
    if not missing:
        return ""
    lines = [] if concise else [f"{style.paint('not followed:', 'bold')} {plural(len(missing), 'call')} in the "
                                "pipeline whose code was not analyzed (findings there are unknown)"]
    for nf in missing:
        lines.append(f"{'' if concise else '  '}{nf.path}:{nf.line}: not followed: {nf.text}  ({nf.reason})")
    if not concise:
        lines += _not_followed_help(missing, style)
    return "\n".join(lines)


def _not_followed_help(missing, style: Style) -> list[str]:
    """How to let the scan follow the listed calls: install the packages it could not read; bind the
    receivers whose class is chosen at run time (a class for an object, a function for a bare callable)."""
    help_ = style.paint('help', 'cyan')
    lines = []
    packages = sorted({getattr(nf, "package", "") for nf in missing} - {""})
    if packages:
        lines.append(f"  = {help_}: {', '.join(packages)} {'is' if len(packages) == 1 else 'are'} neither scanned "
                     "nor installed here: install into the environment the scan runs in and it follows the calls")
    bindable = [nf for nf in missing if nf.receiver and not getattr(nf, "package", "")]
    if bindable or not packages:
        example = bindable[0] if bindable else None
        receiver = example.receiver if example else "self.x"
        called = example is not None and example.text == f"{receiver}(...)"   # `policy(obs)`: the callable itself
        kind = "FUNCTION" if called else "CLASS"
        lines.append(f"  = {help_}: name the {kind.lower()}: --bind {receiver}=MODULE:{kind} "
                     "(or [tool.leapp-codemod.bind] in pyproject.toml), or watch it run: scan --driver SCRIPT")
    return lines


def summary_line(result: ScanResult) -> str:
    """`Found 3 hazards (2 errors, 1 warning) in 2 files; 12 files analyzed.` or `No hazards found; ...`,
    with `; 2 inputs filled outside the step (info)` for the boundary inputs found (severity info: no code falls
    out of the trace, the boundary declares them), `; 2 resolved by leapp_integration.py` when a generated
    module resolves some; with calls not followed, never a bare "No hazards found": `No hazards found in the
    code followed; 2 calls not followed; ...`."""
    analyzed = f"{plural(result.files_analyzed, 'file')} analyzed"
    missing = len(getattr(result, "not_followed", ()))
    hazards = [f for f in result.findings if f.severity != Severity.INFO]
    notes = len(result.findings) - len(hazards)
    found = _found(hazards)
    if not hazards and getattr(result, "entry_note", "").startswith("entry: no confident entry"):
        found = "No hazards found from a guessed entry (no candidate feeds data to a model; pass --entry)"
    if missing:
        found = f"{found}{' in the code followed' if not hazards else ''}; {plural(missing, 'call')} not followed"
    parts = [found]
    if notes:
        parts.append(f"{notes} {'input' if notes == 1 else 'inputs'} filled outside the step (info)")
    resolved = Counter(r.by for r in getattr(result, "resolved", ()))
    parts += [f"{count} resolved by {by}" for by, count in sorted(resolved.items())]
    followed = getattr(result, "libraries_followed", ())
    parts.append(analyzed + (f" (and the code of installed {', '.join(followed)} it runs)" if followed else ""))
    if result.errors:
        unreadable = len({error.path for error in result.errors})
        parts.append(f"{plural(unreadable, 'file')} could not be analyzed")
    return "; ".join(parts) + "."


def _found(findings: list[Finding]) -> str:
    if not findings:
        return "No hazards found"
    by_severity = Counter(f.severity for f in findings)
    order = ["error", "warning"] + sorted(set(by_severity) - {"error", "warning"})
    counts = ", ".join(plural(by_severity[s], s) for s in order if by_severity[s])
    files = len({f.path for f in findings})
    return f"Found {plural(len(findings), 'hazard')} ({counts}) in {plural(files, 'file')}"


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"
