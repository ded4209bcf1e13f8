"""`scan --all` of a whole tree (by default the dev virtualenv's site-packages): files, lines,
seconds, tracebacks and internal errors.

    .venv/bin/python benchmarks/scan_tree.py [TREE] [--jobs N]

Runs the installed CLI in a fresh process, cold (`--no-cache`), with the default excludes except
`site-packages` itself; prints one JSON line. A traceback is any "Traceback" on stderr or a crash
exit code (neither 0, 1 nor 2); internal errors are the one-line reports of a crashing rule.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path


def count_lines(tree: Path) -> tuple[int, int]:
    files = lines = 0
    for folder, dirs, names in os.walk(tree):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in names:
            if name.endswith(".py"):
                files += 1
                with open(os.path.join(folder, name), "rb") as handle:
                    lines += sum(1 for _ in handle)
    return files, lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", nargs="?", default=sysconfig.get_paths()["purelib"])
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    tree = Path(args.tree).resolve()
    files, lines = count_lines(tree)
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "pyproject.toml").write_text("[tool.leapp-codemod]\nexclude = []\n")
        started = time.monotonic()
        proc = subprocess.run([sys.executable, "-m", "leapp_codemod", "scan", "--all", "--no-cache", "--format",
                               "json", "-j", str(args.jobs), str(tree)], cwd=tmp, capture_output=True, text=True)
        seconds = time.monotonic() - started
    report = json.loads(proc.stdout) if proc.stdout.strip().startswith("{") else {}
    errors = report.get("errors", [])
    print(json.dumps({
        "tree": str(tree), "python_files": files, "lines": lines, "seconds": round(seconds, 1),
        "files_analyzed": report.get("files_analyzed"), "findings": len(report.get("findings", [])),
        "files_not_analyzed": len(errors), "exit_code": proc.returncode,
        "internal_errors": sum(1 for e in errors if "internal error" in e.get("message", "")),
        "tracebacks": proc.stderr.count("Traceback") + int(proc.returncode not in (0, 1, 2)),
        "not_analyzed_reasons": sorted({re.sub(r"line \d+: ", "", e["message"])[:80] for e in errors})[:12],
    }))


if __name__ == "__main__":
    main()
