"""Fuzzing the inputs besides source code: `pyproject.toml` settings, recordings and their `meta.json`.

    .venv/bin/python benchmarks/fuzz_inputs.py [--inputs 10000] [--seed 0]

Inputs come from Hypothesis strategies run from a fixed seed (runs repeat), in three equal shares:

* configs: `[tool.leapp-codemod]` tables with known and unknown keys holding any TOML value (numbers
  with inf/nan/huge exponents, strings, arrays, nested tables, booleans), plus raw text and a `tool`
  that is not a table; read with `load_config` and used the way `scan` uses them (selectors checked,
  `max_file_bytes`, `per-file-ignores` matched);
* `meta.json`: a valid meta with fields replaced by any JSON value, or any JSON document, or bytes;
  checked with `read_meta` then `check_matches`, as `run --inputs` does before starting anything;
* recordings: zip archives with such a meta and random members, truncated or flipped bytes of a
  valid archive, or random bytes, through `read_meta` and (when it passes) `load`.

A "traceback" is any exception other than the one-line errors (`ConfigError`, `RecordingError`):
what the CLI would print as an internal error. Prints one JSON line of figures.
"""
from __future__ import annotations

import argparse
import io
import json
import math
import sys
import tempfile
import time
import traceback
import zipfile
from pathlib import Path

from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from leapp_codemod.config import KEYS, ConfigError, file_ignores, load_config
from leapp_codemod.runner.record import FORMAT, FORMAT_VERSION, RecordingError, check_matches, read_meta

JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                    max_leaves=12)
VALID_META = {"format": FORMAT, "version": FORMAT_VERSION, "entry": "app.policy:act", "inputs": ["obs"],
              "layout": "obs(1, 3)", "traced": 5, "checked": 3, "calls_seen": 8, "state": [], "is_method": False,
              "arrays": {}, "statics": {}, "pickled": False}


# ------------------------------------------------------------------------------------------- configs
def toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf") if math.isinf(value) else repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {toml_value(v)}" for k, v in value.items()) + "}"
    return '""'


TOML_VALUES = st.recursive(st.booleans() | st.integers(-10**30, 10**30) | st.floats() | st.text(max_size=12)
                           | st.sampled_from(["1e400", "-1e400", "0", "-0.0", "LCM101", "io", "*.py", ""]),
                           lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner,
                                                                                          max_size=3), max_leaves=8)
CONFIG_TEXT = st.one_of(
    st.dictionaries(st.sampled_from(sorted(KEYS)) | st.text(max_size=8), TOML_VALUES, max_size=5).map(
        lambda table: "[tool.leapp-codemod]\n" + "\n".join(f"{json.dumps(k)} = {toml_value(v)}"
                                                           for k, v in table.items()) + "\n"),
    TOML_VALUES.map(lambda v: f"tool = {toml_value(v)}\n"),
    TOML_VALUES.map(lambda v: f"[tool]\n\"leapp-codemod\" = {toml_value(v)}\n"),
    st.text(max_size=80),
)


def check_config(text: str, folder: Path) -> list[str]:
    from leapp_codemod.rules import unknown_selectors

    (folder / "pyproject.toml").write_text(text, encoding="utf-8", errors="surrogatepass")
    try:
        config = load_config(folder)
        assert 0 < config.max_file_bytes
        unknown_selectors(config.select + config.ignore + config.extend_select)
        for _, selectors in config.per_file_ignores:
            unknown_selectors(selectors)
        file_ignores(config, str(folder / "a.py"))
    except ConfigError as exc:
        if "\n" in str(exc):
            return [f"a ConfigError of more than one line: {exc!r}"]
    except Exception:  # noqa: BLE001
        return [traceback.format_exc()]
    return []


# ------------------------------------------------------------------------------------------ meta.json
def _meta_variants():
    replaced = st.tuples(st.sampled_from(sorted(VALID_META)), JSON).map(lambda kv: json.dumps({**VALID_META,
                                                                                              kv[0]: kv[1]}))
    dropped = st.sampled_from(sorted(VALID_META)).map(lambda k: json.dumps({x: v for x, v in VALID_META.items()
                                                                            if x != k}))
    return st.one_of(replaced, replaced, dropped, JSON.map(json.dumps), st.binary(max_size=60).map(
        lambda b: b.decode("latin-1")))


def archive(meta: str | bytes, members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as handle:
        handle.writestr("meta.json", meta)
        for name, data in members.items():
            handle.writestr(name, data)
    return buffer.getvalue()


def check_recording(data: bytes, folder: Path, deep: bool) -> list[str]:
    path = folder / "calls.npz"
    path.write_bytes(data)
    try:
        meta = read_meta(path)
        check_matches(meta, path, "app.policy:act", ("obs",), 5, 3)
        if deep:
            from leapp_codemod.runner.record import load
            load(path)
    except RecordingError as exc:
        if "\n" in str(exc):
            return [f"a RecordingError of more than one line: {exc!r}"]
    except Exception:  # noqa: BLE001
        return [traceback.format_exc()]
    return []


def _valid_archive() -> bytes:
    import numpy as np

    members = {}
    for group, count in (("traced", 5), ("checked", 3)):
        for i in range(count):
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, np.full((1, 3), float(i), dtype=np.float32))
            members[f"{group}/{i}/obs.npy"] = buffer.getvalue()
    meta = dict(VALID_META, arrays={k[:-4]: "numpy" for k in members})
    return archive(json.dumps(meta), members)


def recordings():
    valid = _valid_archive()
    cut = st.integers(0, len(valid)).map(lambda n: valid[:n])
    flipped = st.tuples(st.integers(0, len(valid) - 1), st.integers(1, 255)).map(
        lambda p: valid[:p[0]] + bytes([valid[p[0]] ^ p[1]]) + valid[p[0] + 1:])
    members = st.dictionaries(st.sampled_from(["traced/0/obs.npy", "checked/0/obs.npy", "objects.pickle.npy",
                                               "x"]), st.binary(max_size=40), max_size=3)
    built = st.tuples(_meta_variants(), members).map(lambda mm: archive(mm[0], mm[1]))
    return st.one_of(cut, flipped, built, st.binary(max_size=200))


# ------------------------------------------------------------------------------------------------ run
def run(inputs: int, shard_seed: int = 0, deep: bool = True) -> dict:
    figures = {"configs": 0, "meta_json": 0, "recordings": 0, "tracebacks": 0}
    failures: list[tuple[str, str]] = []
    started = time.monotonic()
    share = inputs // 3
    with tempfile.TemporaryDirectory(prefix="fuzz-inputs-") as tmp:
        folder = Path(tmp)

        def count(kind: str, sample, problems: list[str]) -> None:
            figures[kind] += 1
            figures["tracebacks"] += len(problems)
            failures.extend((repr(sample)[:300], p) for p in problems)

        jobs = (
            ("configs", CONFIG_TEXT, lambda text: count("configs", text, check_config(text, folder))),
            ("meta_json", _meta_variants(),
             lambda meta: count("meta_json", meta, check_recording(archive(meta, {}), folder, False))),
            ("recordings", recordings(), lambda data: count("recordings", data, check_recording(data, folder, deep))),
        )
        for kind, strategy, body in jobs:
            n = share + (inputs - 3 * share if kind == "recordings" else 0)
            test = settings(max_examples=n, database=None, deadline=None,
                            suppress_health_check=list(HealthCheck))(given(strategy)(body))
            seed(shard_seed)(test)()
    figures["inputs"] = figures["configs"] + figures["meta_json"] + figures["recordings"]
    figures["seconds"] = round(time.monotonic() - started, 1)
    for sample, problem in failures[:3]:
        print(f"--- input:\n{sample}\n--- traceback:\n{problem}", file=sys.stderr)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inputs", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(json.dumps(run(args.inputs, args.seed)))


if __name__ == "__main__":
    main()
