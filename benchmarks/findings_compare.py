"""Record the JSON findings of one build of the tool on many trees, or compare them to a recorded set.

    # the findings of a reference build (e.g. another checkout's venv), stored outside the repository
    .venv/bin/python benchmarks/findings_compare.py record /tmp/findings-before --tool /path/to/leapp-codemod
    # this checkout's findings against that set: prints every difference, exit 1 if any
    .venv/bin/python benchmarks/findings_compare.py compare /tmp/findings-before
    .venv/bin/python benchmarks/findings_compare.py compare /tmp/findings-before --only fixtures/
    # the same for `generate` (the integration module it writes, its messages and exit code)
    .venv/bin/python benchmarks/findings_compare.py record /tmp/generate-before --generate --tool ...

Trees: every folder of `fixtures/`, `examples/`, the cases of a corpus folder (`--corpus`, default
../shared/corpus/cases when it exists) and the benchmark corpus (installed torch.nn,
torch.distributions, leapp; `--no-bench` to skip) and the installed RL libraries (stable_baselines3,
rsl_rl, skrl; `--no-packages` to skip). Each tree is copied to a scratch folder first (the
scanned tree is never touched) and scanned with `scan --format json --exit-zero --no-cache` in entry
mode (discovered entry), with `--entry` when the tree names one (`expected.toml` / `case.toml`), and
with `--all`. `--trees FILE` adds trees scanned in place as the held-out scoring kits scan them
(`entrypoints`, text `scan`, `scan --all`, `scan --entry`). A run's record is its exit code, stdout and
stderr, with the scratch folder and the tool's virtual environment replaced by placeholders.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _corpus import corpus_dirs, package_dir  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = REPO.parent.parent / "shared" / "corpus" / "cases"
TOGETHER = "bench/together"
PACKAGES = ("stable_baselines3", "rsl_rl", "skrl")
ENTRY = re.compile(r'^entry\s*=\s*"([^"]+)"', re.MULTILINE)


def listed_trees(listing: Path | None) -> dict[str, tuple[Path, str]]:
    """name -> (folder, entry) from a file of `name folder entry` lines (`entry` may be `-`)."""
    if listing is None:
        return {}
    found = {}
    for line in listing.read_text(encoding="utf-8").splitlines():
        parts = line.split()
        if len(parts) == 3 and not line.startswith("#"):
            found[f"listed/{parts[0]}"] = (Path(parts[1]), parts[2])
    return found


def listed_runs(name: str, entry: str) -> list[tuple[str, list[str]]]:
    """A listed tree's runs, as the held-out scoring kits run them (scanned in place, read-only)."""
    base = ["scan", "--no-cache", "."]
    out = [(f"{name}@entrypoints", ["entrypoints", ".", "--format", "json", "--limit", "0"]),
           (f"{name}@text", base), (f"{name}@all", base + ["--all", "--format", "json", "--exit-zero"])]
    if entry != "-":
        out.append((f"{name}@named", base + ["--entry", entry, "--format", "json"]))
    return out


def trees(corpus: Path | None, bench: bool, packages: bool = True) -> dict[str, Path]:
    """name -> folder to scan."""
    found: dict[str, Path] = {}
    for group in ("fixtures", "examples"):
        for path in sorted((REPO / group).iterdir()):
            if path.is_dir():
                found[f"{group}/{path.name}"] = path
    if corpus is not None and corpus.is_dir():
        for path in sorted(corpus.iterdir()):
            if path.is_dir():
                found[f"corpus/{path.name}"] = path
    if bench:
        for path in corpus_dirs():
            found[f"bench/{path.parent.name}.{path.name}" if path.parent.name == "torch" else f"bench/{path.name}"] = path
        found[TOGETHER] = corpus_dirs()[0]  # scanned in place (read-only), not copied
    if packages:
        for name in PACKAGES:
            found[f"package/{name}"] = package_dir(name)
    return found


def named_entry(tree: Path) -> str | None:
    for name in ("expected.toml", "case.toml"):
        path = tree / name
        if path.is_file():
            match = ENTRY.search(path.read_text(encoding="utf-8"))
            if match:
                return match.group(1)
    return None


def app_of(tree: Path) -> str:
    """The application `generate` is pointed at: the tree's package folder when it has one."""
    packages = sorted(p.name for p in tree.iterdir() if p.is_dir() and (p / "__init__.py").is_file())
    return packages[0] if packages else "."


def generate_runs(name: str, tree: Path) -> list[tuple[str, list[str]]]:
    """(run id, generate arguments) for one tree: the named entry, else the static ranking's."""
    if name.startswith(("bench/", "package/")):
        return []
    entry = named_entry(tree)
    chosen = ["--entry", entry] if entry else ["--static"]
    return [(f"{name}@generate", ["generate", app_of(tree), *chosen, "--force", "-o", "<out>"])]


def runs(name: str, tree: Path) -> list[tuple[str, list[str]]]:
    """(run id, scan arguments) for one tree."""
    base = ["scan", "--format", "json", "--exit-zero", "--no-cache", "-j", "1"]
    if name == TOGETHER:
        # in place, as benchmarks/scan_speed.py scans it: the integration search walks their common folder
        return [(f"{name}@all", base + ["--all", *map(str, corpus_dirs())])]
    if name.startswith(("bench/", "package/")):
        return [(f"{name}@all", base + ["--all", "."])]
    out = [(f"{name}@entry", base + ["."]), (f"{name}@all", base + ["--all", "."])]
    entry = named_entry(tree)
    if entry:
        out.append((f"{name}@named", base + ["--entry", entry, "."]))
    return out


def normalize(text: str, scratch: Path, venv: Path) -> str:
    return text.replace(str(scratch), "<tree>").replace(str(venv), "<venv>")


def run_one(tool: list[str], venv: Path, run_id: str, args: list[str], tree: Path) -> dict:
    with tempfile.TemporaryDirectory(prefix="findings-") as tmp:
        scratch = Path(tmp) / "tree"
        if run_id.startswith("listed/"):
            scratch = tree  # in place: large trees, and every command leaves the tree as it was
        elif run_id.startswith(TOGETHER):
            scratch.mkdir()
        else:
            shutil.copytree(tree, scratch, ignore=shutil.ignore_patterns("__pycache__", ".leapp-codemod-cache"))
        env = {**os.environ, "LEAPP_CODEMOD_CACHE_DIR": str(Path(tmp) / "cache"), "PYTHONHASHSEED": "0"}
        out = Path(tmp) / "integration_out.py"
        args = [str(out) if a == "<out>" else a for a in args]
        proc = subprocess.run(tool + args, cwd=scratch, env=env, capture_output=True, text=True)
        written = out.read_text(encoding="utf-8") if out.is_file() else ""
        tmp_root = str(Path(tmp))
        return {"run": run_id, "rc": proc.returncode,
                "stdout": normalize(proc.stdout + written, scratch, venv).replace(tmp_root, "<tmp>"),
                "stderr": normalize(proc.stderr, scratch, venv).replace(tmp_root, "<tmp>")}


def record_all(tool: list[str], corpus: Path | None, bench: bool, only: str, jobs: int,
               generate: bool = False, packages: bool = True, listing: Path | None = None) -> dict[str, dict]:
    venv = Path(tool[0]).parent.parent
    plan = generate_runs if generate else runs
    work = [(run_id, args, tree) for name, tree in trees(corpus, bench, packages).items() if name.startswith(only)
            for run_id, args in plan(name, tree)]
    if not generate:
        work += [(run_id, args, tree) for name, (tree, entry) in listed_trees(listing).items()
                 if name.startswith(only) for run_id, args in listed_runs(name, entry)]
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        results = list(pool.map(lambda item: run_one(tool, venv, *item), work))
    return {r["run"]: r for r in results}


def file_name(run_id: str) -> str:
    return run_id.replace("/", "__") + ".json"


def differences(before: dict, after: dict) -> list[str]:
    lines = []
    for key in ("rc", "stdout", "stderr"):
        if before[key] != after[key]:
            lines.append(f"  {key}: before {str(before[key])[:300]!r}\n  {key}: after  {str(after[key])[:300]!r}")
    if before["stdout"] != after["stdout"]:
        try:
            old = json.loads(before["stdout"])["findings"]
            new = json.loads(after["stdout"])["findings"]
            gone = [f for f in old if f not in new]
            came = [f for f in new if f not in old]
            lines += [f"  - {f}" for f in gone[:10]] + [f"  + {f}" for f in came[:10]]
        except (ValueError, KeyError, TypeError):
            pass
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=("record", "compare"))
    parser.add_argument("store", type=Path, help="folder of recorded findings (outside the repository)")
    parser.add_argument("--tool", default=None, help="the leapp-codemod executable (default: next to this interpreter)")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--no-bench", action="store_true")
    parser.add_argument("--no-packages", action="store_true", help="skip the installed RL libraries")
    parser.add_argument("--trees", type=Path, default=None,
                        help="also these trees, scanned in place: a file of `name folder entry` lines "
                             "(entry `-`: none)")
    parser.add_argument("--only", default="", help="only trees whose name starts with this (fixtures/scan_)")
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--generate", action="store_true",
                        help="run `generate` (named entry, else --static) instead of `scan`; the record holds the module")
    parser.add_argument("--save", type=Path, default=None, help="compare: also store this build's runs here")
    opts = parser.parse_args()
    # the console script, as users run it (`python -m` would put the scanned folder first on sys.path)
    tool = [opts.tool or str(Path(sys.executable).parent / "leapp-codemod")]
    results = record_all(tool, opts.corpus, not opts.no_bench, opts.only, opts.jobs, opts.generate,
                          not opts.no_packages, opts.trees)
    target = opts.store if opts.mode == "record" else opts.save
    if target is not None:
        target.mkdir(parents=True, exist_ok=True)
        for run_id, result in results.items():
            (target / file_name(run_id)).write_text(json.dumps(result, indent=1), encoding="utf-8")
    if opts.mode == "record":
        print(f"recorded {len(results)} runs in {opts.store}")
        return 0
    changed = missing = 0
    for run_id, result in sorted(results.items()):
        path = opts.store / file_name(run_id)
        if not path.is_file():
            missing += 1
            print(f"NEW (not recorded): {run_id}")
            continue
        lines = differences(json.loads(path.read_text(encoding="utf-8")), result)
        if lines:
            changed += 1
            print(f"DIFFERENT: {run_id}")
            print("\n".join(lines))
    findings = sum(len(json.loads(r["stdout"]).get("findings", [])) for r in results.values()
                   if r["stdout"].startswith("{") and "@entrypoints" not in r["run"] and not opts.generate)
    print(f"{len(results)} runs ({findings} findings): {changed} different, {missing} not recorded")
    return 1 if changed or missing else 0


if __name__ == "__main__":
    sys.exit(main())
