"""LEAPP facts several parts of the tool rely on, each defined once. Plain data: importing this module
imports nothing else (scan, generate, run and the generated module all read it)."""
from __future__ import annotations

# LEAPP exporters `run` tries, in the order of the fallback ladder, and the format each one writes.
FORMAT_OF = {"onnx": "onnx", "onnx-torchscript": "onnx", "pt2": "pt2", "jit-script": "jit", "jit-trace": "jit"}
EXPORTERS = tuple(FORMAT_OF)
FORMATS = tuple(dict.fromkeys(FORMAT_OF.values()))

# The signed dtype that holds every value of an unsigned dtype LEAPP cannot export.
SIGNED_FOR = {"uint16": "int32", "uint32": "int64", "uint64": "int64"}

# How close a replacement or an exported model must come to the original: |got - expected| <=
# ATOL + RTOL * |expected|, elementwise.
RTOL, ATOL = 1e-3, 1e-5
