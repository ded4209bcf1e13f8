"""SARIF 2.1.0: one run whose driver lists every rule with its documentation."""
from __future__ import annotations

import json
import posixpath
from typing import Iterable
from urllib.parse import quote

from leapp_codemod import __version__
from leapp_codemod.model import Finding, ScanResult
from leapp_codemod.report import ruledocs
from leapp_codemod.report.positions import sorted_findings, span
from leapp_codemod.rules.base import Rule

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
TOOL_NAME = "leapp-codemod"
SRCROOT = "%SRCROOT%"
LEVELS = {"error": "error", "warning": "warning", "info": "note"}


def level(severity: str) -> str:
    return LEVELS.get(severity, "note")


def artifact_location(path: str) -> dict:
    """A relative path becomes a URI reference against %SRCROOT%; an absolute one a file: URI."""
    posix = path.replace("\\", "/")
    if posix.startswith("/") or (len(posix) > 1 and posix[1] == ":"):
        return {"uri": "file://" + ("" if posix.startswith("/") else "/") + quote(posix, safe="/:")}
    normalized = posixpath.normpath(posix) if posix else posix
    return {"uri": quote(normalized, safe="/"), "uriBaseId": SRCROOT}


def rule_descriptor(rule: Rule) -> dict:
    """A `reportingDescriptor` carrying the rule's documentation."""
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": " ".join(rule.summary.split())},
        "fullDescription": {"text": f"{ruledocs.prose(rule.what)}\n\n{ruledocs.prose(rule.why)}"},
        "help": {"text": ruledocs.explain(rule), "markdown": ruledocs.rule_markdown(rule)},
        "defaultConfiguration": {"level": level(rule.severity)},
        "properties": {
            "category": rule.category,
            "severity": rule.severity,
            "tags": ["leapp", rule.category],
        },
    }


def _placeholder_descriptor(finding: Finding) -> dict:
    """For a finding whose code no registered rule declares: still a valid `ruleIndex` target."""
    return {
        "id": finding.code,
        "shortDescription": {"text": f"{finding.code} ({finding.category})"},
        "defaultConfiguration": {"level": level(finding.severity)},
        "properties": {"category": finding.category, "severity": finding.severity,
                       "tags": ["leapp", finding.category]},
    }


def driver_rules(rules: Iterable[Rule], findings: Iterable[Finding]) -> list[dict]:
    """Every registered rule once, then a placeholder for each unknown code a finding uses."""
    descriptors = {}
    for rule in rules:
        descriptors.setdefault(rule.code, rule_descriptor(rule))
    for finding in findings:
        descriptors.setdefault(finding.code, _placeholder_descriptor(finding))
    return list(descriptors.values())


def result_object(finding: Finding, rule_index: int) -> dict:
    where = span(finding)
    text = finding.message if not finding.fix else f"{finding.message} Fix: {finding.fix}"
    location: dict = {
        "physicalLocation": {
            "artifactLocation": artifact_location(finding.path),
            "region": {"startLine": where.line, "startColumn": where.column,
                       "endLine": where.end_line, "endColumn": where.end_column},
        },
    }
    if finding.function:
        location["logicalLocations"] = [{"fullyQualifiedName": finding.function, "kind": "function"}]
    out = {
        "ruleId": finding.code,
        "ruleIndex": rule_index,
        "level": level(finding.severity),
        "message": {"text": text},
        "locations": [location],
        "properties": {"category": finding.category, "severity": finding.severity, "fix": finding.fix},
    }
    if finding.related:
        out["relatedLocations"] = [
            {"id": i, "message": {"text": note},
             "physicalLocation": {"artifactLocation": artifact_location(path),
                                  "region": {"startLine": line, "startColumn": column}}}
            for i, (path, line, column, note) in enumerate(finding.related, 1)]
    return out


def _invocation(result: ScanResult) -> dict:
    notifications = [
        {"level": "error", "message": {"text": f"could not analyze: {error.message}"},
         "locations": [{"physicalLocation": {"artifactLocation": artifact_location(error.path)}}]}
        for error in result.errors
    ] + [
        {"level": "warning", "descriptor": {"id": "not-followed"},
         "message": {"text": f"not followed: {nf.text} ({nf.reason}); its code was not analyzed"},
         "locations": [{"physicalLocation": {"artifactLocation": artifact_location(nf.path),
                                             "region": {"startLine": nf.line}}}]}
        for nf in result.not_followed
    ]
    return {
        "executionSuccessful": not (result.errors and result.files_analyzed == 0),
        "toolExecutionNotifications": notifications,
    }


def to_log(result: ScanResult, rules: Iterable[Rule]) -> dict:
    findings = sorted_findings(result.findings)
    descriptors = driver_rules(rules, findings)
    index = {descriptor["id"]: i for i, descriptor in enumerate(descriptors)}
    run_properties = {"filesAnalyzed": result.files_analyzed, "leappSupport": result.leapp_support}
    if result.not_followed:
        run_properties["notFollowed"] = [nf.to_json() for nf in result.not_followed]
    if result.bound_calls:
        run_properties["bound_calls"] = [r.to_json() for r in result.bound_calls]
    if result.entry is not None:
        run_properties["entry"] = result.entry.id
    return {
        "$schema": SARIF_SCHEMA_URI,
        "version": SARIF_VERSION,
        "runs": [{
            "tool": {"driver": {"name": TOOL_NAME, "version": __version__,
                                "semanticVersion": __version__, "rules": descriptors}},
            "invocations": [_invocation(result)],
            "columnKind": "unicodeCodePoints",
            "results": [result_object(f, index[f.code]) for f in findings],
            "properties": run_properties,
        }],
    }


def render_sarif(result: ScanResult, rules: Iterable[Rule]) -> str:
    return json.dumps(to_log(result, rules), indent=2, ensure_ascii=False) + "\n"
