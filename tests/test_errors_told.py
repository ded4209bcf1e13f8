"""An error a library fails to re-raise: LEAPP's fatal() raises `type(error)(message)`, which for torch's
UnsupportedOperatorError (three constructor arguments) ends in a TypeError about its __init__. The runner
tells the error LEAPP meant to raise (the unsupported operator, from the exception chain), or, when the
chain does not hold it, what failed; never the TypeError's text."""
from __future__ import annotations

import io

import pytest

from leapp_codemod.runner.errors import full_text, one_line

torch = pytest.importorskip("torch")


class _Eigen(torch.nn.Module):
    def forward(self, x):
        return torch.linalg.eigh(x)[0]


def test_the_unsupported_operator_is_told_when_leapp_fails_to_re_raise_torchs_error():
    leapp_logging = pytest.importorskip("leapp.utils.logging")
    with pytest.raises(TypeError) as caught:
        try:
            torch.onnx.export(_Eigen(), (torch.eye(3),), io.BytesIO(), dynamo=False)
        except Exception as exc:  # noqa: BLE001 - what LEAPP's node compile does with any exporter error
            leapp_logging._get_logger().fatal(f"Error compiling model m: {exc}", error_type=type(exc), cause=exc)
    assert "missing 2 required positional arguments" in str(caught.value)     # torch's constructor, as LEAPP calls it
    text = full_text(caught.value)
    assert text.startswith("UnsupportedOperatorError: ") and "'aten::linalg_eigh'" in text
    assert "__init__" not in text and "TypeError" not in text
    assert one_line(caught.value).startswith("UnsupportedOperatorError: Exporting the operator 'aten::linalg_eigh'")


class UnsupportedOperatorError(Exception):
    def __init__(self, name, version, supported):
        super().__init__(f"operator {name}")


class OtherError(Exception):
    def __init__(self, a, b):
        super().__init__(a + b)


def test_without_the_error_in_the_chain_the_reason_says_what_failed_not_the_type_error():
    with pytest.raises(TypeError) as caught:
        UnsupportedOperatorError("message only")
    assert full_text(caught.value) == ("UnsupportedOperatorError: the torchscript ONNX exporter failed inside torch "
                                      "while reporting an unsupported operator")
    with pytest.raises(TypeError) as other:
        OtherError("x")
    assert "OtherError" in full_text(other.value) and "missing" not in full_text(other.value)
    plain = TypeError("unsupported operand type(s) for +: 'int' and 'str'")
    assert full_text(plain) == "TypeError: unsupported operand type(s) for +: 'int' and 'str'"   # other TypeErrors stay
