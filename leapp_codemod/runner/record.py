"""Recorded inputs: what the entry received while the driver ran, saved so that `run --inputs`
can trace, export and validate without the driver (and without its simulator or robot).

The file is a NumPy `.npz` (a zip archive) holding:

* `meta.json` — format name and version, the entry, the input names, the input layout, how many
  calls were traced and checked, the state names, the tool/LEAPP/torch/NumPy versions, and for
  every stored array whether the entry received it as a torch tensor or a NumPy array;
* `traced/<i>/<input>.npy` and `checked/<i>/<input>.npy` — the inputs of every traced and checked call;
* `checked/<i>/state_before/<name>.npy` — the pipeline state before each checked call;
* `objects.pickle.npy` — a uint8 array holding a pickle of the application's instance as it was at
  the first traced call (its state included) and the entry's constant parameters. Loading it runs
  pickle: replay only recordings you made.

`meta.json` is read without NumPy (the parent process checks it before starting anything).
"""
from __future__ import annotations

import io
import json
import pickle
import zipfile
from dataclasses import dataclass
from pathlib import Path

FORMAT = "leapp-codemod-calls"
FORMAT_VERSION = 1
META = "meta.json"
OBJECTS = "objects.pickle.npy"


class RecordingError(Exception):
    """A one-line reason a recording cannot be written or replayed."""


@dataclass
class Recording:
    meta: dict
    traced: list[dict]             # input name -> tensor/array, per traced call
    checked: list[dict]
    state_before: list[dict]       # per checked call
    instance: object
    statics: dict


def _versions() -> dict:
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for name in ("leapp-codemod", "leapp", "torch", "numpy"):
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = None
    return out


def _array_bytes(value) -> tuple[bytes, str]:
    import numpy as np
    import torch

    kind = "torch" if isinstance(value, torch.Tensor) else "numpy"
    if kind == "torch":
        value = value.detach().cpu().as_subclass(torch.Tensor)
        if value.dtype == torch.bfloat16:
            raise RecordingError("bfloat16 tensors cannot be stored in a recording")
        value = value.numpy()
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, np.ascontiguousarray(np.asarray(value)), allow_pickle=False)
    return buffer.getvalue(), kind


def save(path: Path, module, recorder) -> dict:
    """Write the recorder's calls to `path` atomically; returns the meta."""
    import numpy as np

    if recorder.entry.is_method and recorder.snapshot is None:
        raise RecordingError(f"the {type(recorder.instance).__name__} instance cannot be copied "
                             f"({recorder.snapshot_error}); a recording needs its starting state")
    try:
        objects = pickle.dumps({"instance": recorder.snapshot, "statics": dict(recorder.statics)})
    except Exception as exc:  # noqa: BLE001 - any object may refuse to be pickled
        raise RecordingError(f"the application's instance cannot be pickled ({type(exc).__name__}: {exc}); "
                             "a recording needs its starting state") from None
    members: dict[str, bytes] = {}
    kinds: dict[str, str] = {}

    def put(key: str, value) -> None:
        members[f"{key}.npy"], kinds[key] = _array_bytes(value)

    for i, call in enumerate(recorder.traced):
        for name, value in call.inputs.items():
            put(f"traced/{i}/{name}", value)
    for i, call in enumerate(recorder.checks):
        for name, value in call.inputs.items():
            put(f"checked/{i}/{name}", value)
        for name, value in call.state_before.items():
            put(f"checked/{i}/state_before/{name}", value)
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, np.frombuffer(objects, dtype=np.uint8), allow_pickle=False)
    members[OBJECTS] = buffer.getvalue()
    meta = {"format": FORMAT, "version": FORMAT_VERSION, "entry": module.ENTRY, "inputs": list(module.INPUTS),
            "layout": recorder.layout, "traced": len(recorder.traced), "checked": len(recorder.checks),
            "calls_seen": recorder.calls_seen, "state": sorted(recorder.state_refs),
            "is_method": recorder.entry.is_method, "versions": _versions(), "arrays": kinds}
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(META, json.dumps(meta, indent=1))
        for name, data in members.items():
            archive.writestr(name, data)
    tmp.replace(path)
    return meta


def read_meta(path: Path) -> dict:
    """The recording's meta, checked for format and version (no NumPy needed)."""
    try:
        with zipfile.ZipFile(path) as archive:
            meta = json.loads(archive.read(META))
    except FileNotFoundError:
        raise RecordingError(f"{path}: no such file") from None
    except (zipfile.BadZipFile, KeyError, ValueError, OSError):
        raise RecordingError(f"{path}: not a leapp-codemod recording (create one with `leapp-codemod record`)") \
            from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise RecordingError(f"{path}: not a leapp-codemod recording (create one with `leapp-codemod record`)")
    if meta.get("version") != FORMAT_VERSION:
        raise RecordingError(f"{path}: recording format version {meta.get('version')} is not supported "
                             f"(this leapp-codemod reads version {FORMAT_VERSION}); record it again")
    return meta


def check_matches(meta: dict, path: Path, entry: str, inputs: tuple[str, ...], traces: int, checks: int) -> None:
    """Refuse a recording made for another entry, other inputs, or with too few calls."""
    if meta.get("entry") != entry:
        raise RecordingError(f"{path}: recorded for {meta.get('entry')}, not for {entry}")
    if tuple(meta.get("inputs", ())) != tuple(inputs):
        raise RecordingError(f"{path}: records inputs ({', '.join(meta.get('inputs', ()))}) but {entry} takes "
                             f"({', '.join(inputs)}); regenerate or record again")
    if meta.get("traced", 0) + meta.get("checked", 0) < traces + checks or meta.get("traced", 0) < traces:
        raise RecordingError(f"{path}: holds {meta.get('traced')} traced + {meta.get('checked')} checked calls; "
                             f"{traces} + {checks} are needed (see --traces/--checks)")


def load(path: Path) -> Recording:
    """The recorded calls as the entry received them (torch tensors or NumPy arrays)."""
    import numpy as np
    import torch

    from leapp_codemod.runner.values import layout

    meta = read_meta(path)
    kinds = meta["arrays"]

    def restore(data: np.ndarray, key: str):
        return torch.from_numpy(np.array(data)) if kinds.get(key) == "torch" else np.array(data)

    with np.load(path, allow_pickle=False) as archive:
        def call(group: str, i: int) -> dict:
            return {name: restore(archive[f"{group}/{i}/{name}"], f"{group}/{i}/{name}") for name in meta["inputs"]}
        try:
            traced = [call("traced", i) for i in range(meta["traced"])]
            checked = [call("checked", i) for i in range(meta["checked"])]
            state_before = [{name: restore(archive[f"checked/{i}/state_before/{name}"],
                                           f"checked/{i}/state_before/{name}") for name in meta["state"]}
                            for i in range(meta["checked"])]
            objects = pickle.loads(archive[OBJECTS[:-4]].tobytes())
        except KeyError as exc:
            raise RecordingError(f"{path}: incomplete recording (missing {exc.args[0]})") from None
    for i, values in enumerate(traced + checked):
        got = layout(values)
        if got != meta["layout"]:
            raise RecordingError(f"{path}: call {i} has input shapes {got}, the recording declares {meta['layout']}")
    return Recording(meta, traced, checked, state_before, objects["instance"], objects["statics"])


def saver(path: Path, module, recorder, done: dict):
    """The recorder's on_done hook in `record` mode: save the calls instead of exporting."""
    def save_calls() -> None:
        try:
            done["recorded"] = save(path, module, recorder)
        except RecordingError as exc:
            done["error"] = exc
    return save_calls
