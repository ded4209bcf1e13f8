"""Recorded inputs: what the entry received while the driver ran, saved so that `run --inputs`
can trace, export and validate without the driver (and without its simulator or robot).

The file is a NumPy `.npz` (a zip archive) holding:

* `meta.json` — format name and version, the entry, the input names, the input layout, how many
  calls were traced and checked, the state names, the tool/LEAPP/torch/NumPy versions, and for
  every stored array whether the entry received it as a torch tensor or a NumPy array;
* `traced/<i>/<input>.npy` and `checked/<i>/<input>.npy` — the inputs of every traced and checked call;
* `checked/<i>/state_before/<name>.npy` — the pipeline state before each checked call;
* the entry's constant parameters, as JSON in `meta.json` (`statics`).

A recording is plain arrays and JSON: NumPy reads every array with `allow_pickle=False`. Only with
`record --allow-pickle` does it also hold `objects.pickle.npy`, a uint8 array holding a pickle of
the application's instance as it was at the first traced call (a method entry needs it) and of
constant parameters JSON cannot hold. Loading that runs code from the file, so `run --inputs`
refuses it unless `--allow-pickle` is given again.

`meta.json` is read without NumPy (the parent process checks it before starting anything) and
checked field by field: a malformed one is refused in one line.
"""
from __future__ import annotations

import io
import json
import pickle
import struct
import zipfile
import zlib
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


def _json_statics(statics: dict) -> dict | None:
    """The constant parameters as JSON when they survive the round trip unchanged, else None."""
    try:
        data = json.loads(json.dumps(statics, allow_nan=False))
    except (TypeError, ValueError):
        return None
    return data if data == statics else None


def _objects(recorder, allow_pickle: bool) -> tuple[bytes | None, dict | None]:
    """(pickled instance and statics or None, JSON statics or None); refuses what needs a pickle."""
    statics = _json_statics(dict(recorder.statics))
    if not recorder.entry.is_method and statics is not None:
        return None, statics
    why = (f"{recorder.entry.attr} is a method: the {type(recorder.instance).__name__} instance"
           if recorder.entry.is_method else "the entry's constant parameters")
    if not allow_pickle:
        raise RecordingError(f"{why} can only be stored as a pickle; pass --allow-pickle (whoever replays the "
                             "recording runs code from it)")
    if recorder.entry.is_method and recorder.snapshot is None:
        raise RecordingError(f"the {type(recorder.instance).__name__} instance cannot be copied "
                             f"({recorder.snapshot_error}); a recording needs its starting state")
    try:
        return pickle.dumps({"instance": recorder.snapshot, "statics": dict(recorder.statics)}), statics
    except Exception as exc:  # noqa: BLE001 - any object may refuse to be pickled
        raise RecordingError(f"the application's instance cannot be pickled ({type(exc).__name__}: {exc}); "
                             "a recording needs its starting state") from None


def save(path: Path, module, recorder, allow_pickle: bool = False) -> dict:
    """Write the recorder's calls to `path` (through `io_util.atomic_file`); returns the meta."""
    import numpy as np

    from leapp_codemod.io_util import atomic_file

    objects, statics = _objects(recorder, allow_pickle)
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
        for name, value in call.declared_before.items():
            put(f"checked/{i}/state_before/{name}", value)
    if objects is not None:
        buffer = io.BytesIO()
        np.lib.format.write_array(buffer, np.frombuffer(objects, dtype=np.uint8), allow_pickle=False)
        members[OBJECTS] = buffer.getvalue()
    meta = {"pickled": objects is not None, "statics": statics or {},"format": FORMAT, "version": FORMAT_VERSION, "entry": module.ENTRY, "inputs": list(module.INPUTS),
            "layout": recorder.layout, "traced": len(recorder.traced), "checked": len(recorder.checks),
            "calls_seen": recorder.calls_seen, "state": sorted(recorder.state_refs),
            "is_method": recorder.entry.is_method, "versions": _versions(), "arrays": kinds}
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_file(path, "w+b") as handle, zipfile.ZipFile(handle, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(META, json.dumps(meta, indent=1))
        for name, data in members.items():
            archive.writestr(name, data)
    return meta


_META_BYTES = 2**20
_FIELDS = {"entry": str, "inputs": list, "traced": int, "checked": int, "arrays": dict}


def read_meta(path: Path) -> dict:
    """The recording's meta, checked for format, version and the type of every field it uses (no NumPy)."""
    not_one = f"{path}: not a leapp-codemod recording (create one with `leapp-codemod record`)"
    try:
        with zipfile.ZipFile(path) as archive:
            if archive.getinfo(META).file_size > _META_BYTES:
                raise RecordingError(f"{path}: malformed recording: {META} is larger than {_META_BYTES} bytes")
            meta = json.loads(archive.read(META))
    except FileNotFoundError:
        raise RecordingError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise RecordingError(f"{path}: is a directory, not a recording") from None
    except (zipfile.BadZipFile, zipfile.LargeZipFile, KeyError, ValueError, OSError, EOFError,
            NotImplementedError, RecursionError):
        raise RecordingError(not_one) from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise RecordingError(not_one)
    if meta.get("version") != FORMAT_VERSION:
        raise RecordingError(f"{path}: recording format version {str(meta.get('version'))[:20]} is not supported "
                             f"(this leapp-codemod reads version {FORMAT_VERSION}); record it again")
    problem = _meta_problem(meta)
    if problem:
        raise RecordingError(f"{path}: malformed recording: {META} {problem}")
    return meta


def _meta_problem(meta: dict) -> str:
    for key, kind in _FIELDS.items():
        value = meta.get(key)
        if not isinstance(value, kind) or isinstance(value, bool):
            return f"field {key!r} must be {kind.__name__}, not {type(value).__name__}"
    if meta["traced"] < 0 or meta["checked"] < 0 or meta["traced"] + meta["checked"] > 10**6:
        return "holds an impossible number of calls"
    if not all(isinstance(n, str) and n.isidentifier() for n in meta["inputs"]):
        return "field 'inputs' must list input names"
    if not isinstance(meta.get("state", []), list) or not all(isinstance(n, str) for n in meta.get("state", [])):
        return "field 'state' must list state names"
    if not all(isinstance(k, str) and v in ("torch", "numpy") for k, v in meta["arrays"].items()):
        return "field 'arrays' must map array names to \"torch\" or \"numpy\""
    if not isinstance(meta.get("statics", {}), dict) or not isinstance(meta.get("layout", ""), str):
        return "fields 'statics' and 'layout' must be an object and a string"
    return ""


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


def load(path: Path, allow_pickle: bool = False) -> Recording:
    """The recorded calls as the entry received them (torch tensors or NumPy arrays). A pickled
    instance is loaded only with `allow_pickle`."""
    import numpy as np
    import torch

    from leapp_codemod.runner.values import layout

    meta = read_meta(path)
    kinds = meta["arrays"]

    def restore(data: np.ndarray, key: str):
        return torch.from_numpy(np.array(data)) if kinds.get(key) == "torch" else np.array(data)

    try:
        with np.load(path, allow_pickle=False) as archive:
            def call(group: str, i: int) -> dict:
                return {name: restore(archive[f"{group}/{i}/{name}"], f"{group}/{i}/{name}")
                        for name in meta["inputs"]}
            traced = [call("traced", i) for i in range(meta["traced"])]
            checked = [call("checked", i) for i in range(meta["checked"])]
            state_before = [{name: restore(archive[f"checked/{i}/state_before/{name}"],
                                           f"checked/{i}/state_before/{name}") for name in meta["state"]}
                            for i in range(meta["checked"])]
            objects = _unpickle(archive, path, allow_pickle)
    except KeyError as exc:
        raise RecordingError(f"{path}: incomplete recording (missing {exc.args[0]})") from None
    except (ValueError, OSError, zipfile.BadZipFile, EOFError, NotImplementedError, RuntimeError, zlib.error,
            struct.error) as exc:
        raise RecordingError(f"{path}: damaged recording ({type(exc).__name__}: {str(exc)[:120]})") from None
    for i, values in enumerate(traced + checked):
        got = layout(values)
        if got != meta["layout"]:
            raise RecordingError(f"{path}: call {i} has input shapes {got}, the recording declares {meta['layout']}")
    return Recording(meta, traced, checked, state_before, objects["instance"], objects["statics"])


def _unpickle(archive, path: Path, allow_pickle: bool) -> dict:
    if OBJECTS[:-4] not in archive.files:
        return {"instance": None, "statics": dict(archive_meta_statics(path))}
    if not allow_pickle:
        raise RecordingError(f"{path}: holds a pickled Python object (loading it runs code from the file); pass "
                             "--allow-pickle only for a recording you made or trust")
    try:
        objects = pickle.loads(archive[OBJECTS[:-4]].tobytes())
    except Exception as exc:  # noqa: BLE001 - a pickle can fail in any way
        raise RecordingError(f"{path}: cannot unpickle {OBJECTS} ({type(exc).__name__}: {str(exc)[:120]})") from None
    if not isinstance(objects, dict) or not {"instance", "statics"} <= set(objects):
        raise RecordingError(f"{path}: malformed recording: {OBJECTS} does not hold an instance and its statics")
    return objects


def archive_meta_statics(path: Path) -> dict:
    return read_meta(path).get("statics", {})


def has_pickle(path: Path) -> bool:
    try:
        with zipfile.ZipFile(path) as archive:
            return OBJECTS in archive.namelist()
    except (OSError, zipfile.BadZipFile, ValueError):
        return False


def saver(path: Path, module, recorder, done: dict, allow_pickle: bool = False):
    """The recorder's on_done hook in `record` mode: save the calls instead of exporting."""
    def save_calls() -> None:
        from leapp_codemod.runner import held_plan

        try:
            held_plan.settle(recorder)     # held fields that are no inputs are constants of the recording's instance
            if recorder.held:
                raise RecordingError(f"{module.ENTRY} reads inputs from fields of objects it holds (HELD: "
                                     f"{', '.join(recorder.held.values())}, changing between calls): `record` and "
                                     "`run --inputs` replay arguments only; run the driver instead")
            done["recorded"] = save(path, module, recorder, allow_pickle)
        except (RecordingError, OSError) as exc:
            done["error"] = RecordingError(str(exc))
    return save_calls
