"""GitHub Actions workflow commands: one annotation per finding.

`::error file=F,line=L,col=C,endLine=EL,endColumn=EC,title=CODE::message`. Escaping follows the
workflow-command rules: in the message `%`, CR and LF are percent-encoded; in property values
`:` and `,` are too.
"""
from __future__ import annotations

from leapp_codemod.model import Finding, ScanResult
from leapp_codemod.report.positions import sorted_findings, span

COMMANDS = {"error": "error", "warning": "warning", "info": "notice"}


def escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(value: str) -> str:
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def command(name: str, properties: dict[str, object], message: str) -> str:
    props = ",".join(f"{key}={escape_property(str(value))}" for key, value in properties.items())
    head = f"::{name} {props}" if props else f"::{name}"
    return f"{head}::{escape_data(message)}"


def finding_command(finding: Finding) -> str:
    where = span(finding)
    properties = {
        "file": finding.path, "line": where.line, "col": where.column,
        "endLine": where.end_line, "endColumn": where.end_column, "title": finding.code,
    }
    message = f"[{finding.category}] {finding.message}"
    if finding.fix:
        message += f"\nFix: {finding.fix}"
    return command(COMMANDS.get(finding.severity, "notice"), properties, message)


def render_github(result: ScanResult) -> str:
    lines = [finding_command(f) for f in sorted_findings(result.findings)]
    lines += [command("error", {"file": e.path, "title": "leapp-codemod"}, f"could not analyze: {e.message}")
              for e in result.errors]
    lines += [command("warning", {"file": n.path, "line": n.line, "title": "not followed"},
                      f"{n.text} was not followed ({n.reason}); its code was not analyzed")
              for n in result.not_followed]
    return "".join(line + "\n" for line in lines)
