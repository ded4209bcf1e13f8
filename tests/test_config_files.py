"""The project's config files are read for the static scan (Hydra `_target_`, config values) through one
reader that takes regular files only: a FIFO or a link named like a config is skipped, never waited on."""
from __future__ import annotations

import os
import threading

from leapp_codemod.analysis.model.config_values import read_values
from leapp_codemod.analysis.model.hydra_configs import read_targets
from leapp_codemod.source.config_files import config_texts


def _in_thread(fn, *args):
    box: list = []
    worker = threading.Thread(target=lambda: box.append(fn(*args)), daemon=True)
    worker.start()
    worker.join(10)
    assert not worker.is_alive(), f"{fn.__name__} blocked on a special file"
    return box[0]


def test_fifos_and_links_named_like_configs_are_skipped(tmp_path):
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "policy.yaml").write_text("policy:\n  _target_: app.nets.Policy\nmode: relative\n")
    os.mkfifo(tmp_path / "conf" / "pipe.yaml")
    outside = tmp_path.parent / f"{tmp_path.name}-outside.yaml"
    outside.write_text("mode: absolute\n")
    os.symlink(outside, tmp_path / "conf" / "linked.yaml")
    texts = _in_thread(lambda roots: list(config_texts(roots, (".yaml",))), [tmp_path])
    assert [p.name for p, _ in texts] == ["policy.yaml"]
    assert [t.target for t in _in_thread(read_targets, [tmp_path])] == ["app.nets.Policy"]
    assert _in_thread(read_values, [tmp_path])["mode"] == frozenset({"relative"})
