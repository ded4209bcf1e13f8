"""Big files: analyzed in segments of whole statements with their true line numbers (peak memory
bounded by the segment, not the file), skipped with one line beyond the configured limit."""
from __future__ import annotations

import ast
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from leapp_codemod.model import FileError
from leapp_codemod.source.files import SourceFile
from leapp_codemod.source.parse import SEGMENT_BYTES, WHOLE_FILE_BYTES, parse_segments

TOOL = [sys.executable, "-m", "leapp_codemod"]

TRICKY = textwrap.dedent('''\
    import numpy as np
    from math import pi


    DOC = """
    def not_code(x):
        return x[::-1]
    """


    @staticmethod
    def decorated(x):
        return np.flip(x, 0)


    if pi > 3:
        LIMIT = 1
    else:
        LIMIT = 2
    TABLE = [
    1, 2, 3,
    ]
    x = 1 + \\
    2


    def step(x):
        return x.numpy()[::-1]
    ''')


def source(path: Path) -> SourceFile:
    return SourceFile(path.resolve(), path.name, path.stem, False)


@pytest.mark.parametrize("segment", [1, 40, 120, 10_000])
def test_segments_hold_exactly_the_statements_of_the_file(tmp_path, segment):
    path = tmp_path / "tricky.py"
    path.write_text(TRICKY)
    parts = list(parse_segments(source(path), TRICKY, segment_bytes=segment))
    assert not any(isinstance(p, FileError) for p in parts)
    assert (len(parts) > 1) == (segment < len(TRICKY))
    whole = [ast.dump(s, include_attributes=True) for s in ast.parse(TRICKY).body]
    own: list[str] = []
    for part in parts:
        body = [ast.dump(s, include_attributes=True) for s in part.tree.body]
        imports = [s for s in own if s.startswith(("Import(", "ImportFrom("))]
        assert body[:len(imports)] == imports       # a segment starts with the imports before it
        own += body[len(imports):]
    assert own == whole                             # every statement once, at its true position


def test_a_syntax_error_in_a_late_segment_names_its_true_line(tmp_path):
    text = TRICKY + "\n\ndef broken(:\n    pass\n"
    path = tmp_path / "broken.py"
    path.write_text(text)
    parts = list(parse_segments(source(path), text, segment_bytes=40))
    assert isinstance(parts[-1], FileError)
    assert f"line {text.splitlines().index('def broken(:') + 1}" in parts[-1].message


def _big_module(path: Path, size: int, every: int = 4_000) -> list[int]:
    """A generated module of about `size` bytes (constant tables and small functions, as code
    generators write them); returns the lines of its hazards (one function in `every`, and the last)."""
    parts, total, k = ["import numpy as np\n\n\n"], 0, 0
    while total < size:
        hazard = "x.numpy()[::-1]" if k % every == 0 else "x * GAIN_%d[0]" % k
        block = (f"GAIN_{k} = [{', '.join(f'{i}.25' for i in range(24))}]\n\n\n"
                 f"def helper_{k}(x):\n    return {hazard}\n\n\n")
        parts.append(block)
        total += len(block)
        k += 1
    parts.append("def last(x):\n    return x.numpy()[::-1].astype(np.uint16)\n")
    text = "".join(parts)
    path.write_text(text)
    return [n for n, line in enumerate(text.splitlines(), 1) if "[::-1]" in line]


# `lint_source` on one file in a fresh interpreter, which reports how far its peak memory grew (a test
# worker's own peak is already high after other tests, so its growth would read as zero).
LINT_ONE = textwrap.dedent("""\
    import json, resource, sys
    from pathlib import Path
    from leapp_codemod.analysis.model.leapp_support import load_support
    from leapp_codemod.scan import ScanOptions, lint_source
    from leapp_codemod.source.files import SourceFile
    path, support = Path(sys.argv[1]), load_support()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    findings, errors, analyzed = lint_source(SourceFile(path, path.name, path.stem, False),
                                             ScanOptions(all_functions=True), support)
    print(json.dumps({"analyzed": analyzed, "errors": [str(e) for e in errors],
                      "grown_mib": (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024,
                      "findings": [[f.line, f.category] for f in findings]}))
    """)


@pytest.mark.slow
def test_a_module_above_the_whole_file_size_is_analyzed_in_segments_within_their_bound(tmp_path):
    """3 MiB: three segments of SEGMENT_BYTES. The peak grows by what one segment's analysis needs
    (~250 MiB), not the whole file's (~500 MiB at 3 MiB, ~2 GiB at 10 MiB); the hazards of the first,
    middle and last segments are found at their true lines."""
    path = tmp_path / "generated.py"
    lines = _big_module(path, 3 * 2**20)
    assert path.stat().st_size >= 3 * SEGMENT_BYTES and SEGMENT_BYTES < WHOLE_FILE_BYTES < path.stat().st_size
    proc = subprocess.run([sys.executable, "-c", LINT_ONE, str(path)], capture_output=True, text=True, timeout=600,
                          check=False)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["analyzed"] and report["errors"] == []
    found = {(line, category) for line, category in report["findings"]}
    assert sorted({line for line, category in found if category == "numpy-negative-stride"}) == lines
    assert (lines[-1], "numpy-astype") in found
    assert len(lines) > 3 and report["grown_mib"] < 384, f"peak grew by {report['grown_mib']:.0f} MiB"


def test_beyond_the_configured_limit_a_file_is_skipped_in_one_line(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.leapp-codemod]\nmax-file-mb = 0.01\n")
    (tmp_path / "small.py").write_text("def step(x):\n    return x.numpy()[::-1]\n")
    (tmp_path / "large.py").write_text("def step(x):\n    return x.numpy()[::-1]\n" + "# padding\n" * 2000)
    proc = subprocess.run(TOOL + ["scan", "--all", "--no-cache", "."], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 1 and "small.py:2" in proc.stdout and "large.py" not in proc.stdout
    skipped = [line for line in proc.stderr.splitlines() if "large.py" in line]
    assert skipped == ["leapp-codemod: large.py: file is 19 KiB, above the 10 KiB limit (max-file-mb); skipped"]


def test_entry_mode_says_a_big_file_is_not_followed(tmp_path):
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "__init__.py").write_text("")
    (tmp_path / "app" / "policy.py").write_text("def step(x):\n    return x.numpy()[::-1]\n")
    (tmp_path / "app" / "table.py").write_text("T = [\n" + "    1.0,\n" * (WHOLE_FILE_BYTES // 8) + "]\n")
    proc = subprocess.run(TOOL + ["scan", "app", "--entry", "app.policy:step", "--no-cache"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1 and "app/policy.py:2" in proc.stdout
    lines = [line for line in proc.stderr.splitlines() if "table.py" in line]
    assert len(lines) == 1 and lines[0].startswith("leapp-codemod: app/table.py: file is 2.3 MiB, above the 2 MiB ")
    assert lines[0].endswith("not followed from the entry (`scan --all` and `lint` analyze it in segments)")
