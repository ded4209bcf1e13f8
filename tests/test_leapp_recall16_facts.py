"""The LEAPP facts behind this round's recall rules (installed leapp 0.7.2, CPU): numbers formatted into text
(LCM109), an `except` fallback (LCM203), a table read at a counter index (LCM106) and an array made from a list of
traced values (LCM301) all leave constants of the tracing call in the export; the same steps written with traced
ops validate."""
from __future__ import annotations

import numpy as np
import pytest
import torch

pytest.importorskip("leapp")
from leapp_trace import trace  # noqa: E402

pytestmark = pytest.mark.e2e

SAMPLES = [[1.0, 2.0, 3.0, 4.0], [3.5, -4.0, 0.0, 1.0], [7.0, 0.5, 2.0, -1.0]]
VOCAB = {c: i for i, c in enumerate("0123456789.-, ")}
TABLE = np.linspace(0.0, 1.0, 40, dtype=np.float32).reshape(10, 4)


def test_token_ids_made_from_formatted_numbers_are_constants(tmp_path):
    torch.manual_seed(0)
    embed = torch.nn.Embedding(len(VOCAB), 4)

    def prompt_step(x):
        text = ", ".join(f"{v:.1f}" for v in x)
        ids = torch.tensor([VOCAB[c] for c in text[:8].ljust(8)])
        return embed(ids).sum(0) + x

    def tensor_step(x):
        return embed.weight[:4].sum(1) * x.sum() + x

    assert trace(tmp_path / "text", "prompt_step", prompt_step, SAMPLES) == {"prompt_step": False}
    assert trace(tmp_path / "tensor", "tensor_step", tensor_step, SAMPLES) == {"tensor_step": True}


def test_an_except_fallback_exports_the_path_the_first_call_ran(tmp_path):
    def fallback_step(x):
        m = x.reshape(2, 2) @ x.reshape(2, 2).T - 2.0   # not positive definite for the first sample
        try:
            return torch.linalg.cholesky(m).sum().reshape(1) + x
        except RuntimeError:
            return torch.tanh(m).sum().reshape(1) + x

    samples = [[0.1, 0.1, 0.1, 0.1], [2.0, 0.0, 0.0, 2.0], [3.0, 0.1, 0.2, 2.5]]
    assert trace(tmp_path / "fallback", "fallback_step", fallback_step, samples) == {"fallback_step": False}
    graph = (tmp_path / "fallback" / "fallback_step" / "log.txt").read_text()
    assert "torch.tanh" in graph and "cholesky" not in graph.split("Compiled graph module")[-1]


def test_a_table_row_picked_by_a_counter_is_a_constant(tmp_path):
    calls = {"t": 0}

    def lookup_step(x):
        calls["t"] += 1
        return x + torch.from_numpy(TABLE[calls["t"] % 10])

    assert trace(tmp_path / "table", "lookup_step", lookup_step, SAMPLES) == {"lookup_step": False}


def test_an_array_made_from_a_list_of_traced_values_leaves_the_trace(tmp_path):
    def listed_step(x):
        a = x.numpy()
        rows = []
        for part in ([a[0:2], a[2:4]], [a[2:4], a[0:2]]):
            rows.append(part[0])
        return torch.from_numpy(np.asarray(rows).sum(0))

    with pytest.raises(Exception, match="non-traced"):
        trace(tmp_path / "listed", "listed_step", listed_step, SAMPLES)
