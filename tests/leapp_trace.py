"""Trace a one-input function under LEAPP on a few samples and compile it to ONNX with LEAPP's validation (shared
by the tests that check a LEAPP fact a rule relies on). Imports leapp and torch only when called."""
from __future__ import annotations


def trace(tmp_path, graph, step, samples):
    """{graph: passed LEAPP's validation} after tracing `step(x)` once per sample, x a float32 tensor."""
    import leapp
    import torch

    leapp.start(graph, save_path=str(tmp_path), max_cached_io=4)
    try:
        for values in samples:
            x = leapp.annotate.input_tensors(graph, {"x": torch.tensor(values, dtype=torch.float32)})
            leapp.annotate.output_tensors(graph, {"y": step(x)}, export_with="onnx")
    finally:
        leapp.stop()
    return leapp.compile_graph(validate=True, strict=False, visualize=False)


def trace_payload(tmp_path, graph, step, payloads):
    """{graph: passed LEAPP's validation}, or the exception LEAPP raised, after declaring each payload whole as the
    input `x` (an array, a list, a deque, a dict ...) and tracing `step(x)` once per payload."""
    import leapp

    leapp.start(graph, save_path=str(tmp_path), max_cached_io=4)
    try:
        try:
            for value in payloads:
                x = leapp.annotate.input_tensors(graph, {"x": value})
                leapp.annotate.output_tensors(graph, {"y": step(x)}, export_with="onnx")
        finally:
            leapp.stop()
        return leapp.compile_graph(validate=True, strict=False, visualize=False)
    except Exception as exc:   # LEAPP raises plain Exception for what it refuses
        return exc
