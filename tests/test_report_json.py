import json

from leapp_codemod import __version__
from leapp_codemod.model import Entrypoint, FileError, Finding, ScanResult
from leapp_codemod.report import render
from leapp_codemod.report.json_format import to_document

CONTRACT_FINDING_KEYS = {"path", "line", "column", "end_line", "end_column", "code", "category",
                         "severity", "message", "fix"}


def finding(path, line, message="`.item()` on pipeline data") -> Finding:
    return Finding(path, line, 4, line, 12, "LC101", "scalar-extraction", "error", message, "keep it a tensor",
                   "pkg.policy:Policy.step")


def entrypoint(qualname="Policy.step") -> Entrypoint:
    return Entrypoint("pkg.policy", qualname, "pkg/policy.py", 10, 7, ("named step", "takes a tensor"))


def test_document_has_exactly_the_contract_keys():
    doc = json.loads(render(ScanResult(files_analyzed=2), "json"))
    assert set(doc) == {"version", "findings", "resolved", "entrypoints", "entry", "entry_detail", "entry_note",
                        "errors", "files_analyzed", "libraries_followed", "leapp_support", "not_followed",
                        "bound_calls"}
    assert doc == {"version": __version__, "findings": [], "resolved": [], "entrypoints": [], "entry": None,
                   "entry_detail": None, "entry_note": "", "errors": [], "files_analyzed": 2, "libraries_followed": [],
                   "leapp_support": "", "not_followed": [], "bound_calls": []}


def test_findings_entrypoints_entry_errors_round_trip():
    chosen = entrypoint()
    result = ScanResult(
        findings=[finding("b.py", 1), finding("a.py", 9), finding("a.py", 2)],
        entrypoints=[chosen, entrypoint("Policy.act")], entry=chosen,
        errors=[FileError("bad.py", "invalid syntax")], files_analyzed=3,
        leapp_support="installed leapp 0.7.2",
    )
    doc = json.loads(render(result, "json"))
    assert [(f["path"], f["line"]) for f in doc["findings"]] == [("a.py", 2), ("a.py", 9), ("b.py", 1)]
    assert doc["findings"][0] == finding("a.py", 2).to_json()
    assert all(CONTRACT_FINDING_KEYS <= set(f) for f in doc["findings"])
    assert doc["entrypoints"] == [chosen.to_json(), entrypoint("Policy.act").to_json()]
    assert doc["entry"] == "pkg.policy:Policy.step"
    assert doc["errors"] == [{"path": "bad.py", "message": "invalid syntax"}]
    assert doc["files_analyzed"] == 3
    assert doc["leapp_support"] == "installed leapp 0.7.2"


def test_output_is_one_json_object_and_keeps_non_ascii():
    out = render(ScanResult(findings=[finding("políticas/ß.py", 1, "größe → tensor")], files_analyzed=1), "json")
    assert "größe → tensor" in out
    decoder = json.JSONDecoder()
    obj, end = decoder.raw_decode(out)
    assert out[end:] == "\n"
    assert obj["findings"][0]["path"] == "políticas/ß.py"


def test_to_document_is_plain_data():
    doc = to_document(ScanResult(findings=[finding("a.py", 1)], entry=entrypoint(), files_analyzed=1))
    assert json.loads(json.dumps(doc)) == doc
