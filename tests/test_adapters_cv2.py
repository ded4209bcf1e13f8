"""cv2 adapters against OpenCV itself: bit-exact on uint8, float32 within round-off."""
from __future__ import annotations

import cv2 as opencv
import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from leapp_codemod.adapters import ADAPTERS, cv2, mismatch

pytestmark = pytest.mark.slow  # `make test-fast` leaves this module out

# uint8 results must be identical; float32 images in [-1, 1] agree to float32 round-off.
FLOAT_ATOL = 1e-6


SIDE = st.integers(1, 12)


def images(height=SIDE, width=SIDE):
    shape = st.tuples(height, width, st.sampled_from([0, 1, 2, 3, 4])).map(
        lambda s: s[:2] if s[2] == 0 else s)
    return st.sampled_from([np.uint8, np.float32]).flatmap(lambda d: hnp.arrays(
        d, shape, elements=st.integers(0, 255) if d == np.uint8 else st.floats(-1, 1, width=32)))


def check(got, expected):
    problem = mismatch(got, expected, 0, 0 if expected.dtype == np.uint8 else FLOAT_ATOL)
    assert problem is None, problem


@settings(max_examples=200, deadline=None)
@given(images(), st.integers(1, 24), st.integers(1, 24), st.sampled_from([opencv.INTER_NEAREST, opencv.INTER_LINEAR]))
def test_resize_nearest_and_linear_any_size(src, width, height, interpolation):
    check(cv2.resize(src, (width, height), interpolation=interpolation),
          opencv.resize(src, (width, height), interpolation=interpolation))


@settings(max_examples=200, deadline=None)
@given(images(), st.sampled_from([0.25, 0.5, 0.7, 1.5, 2.0, 3.0]), st.sampled_from([0.5, 1.0, 1.25, 2.0]),
       st.sampled_from([opencv.INTER_NEAREST, opencv.INTER_LINEAR]))
def test_resize_with_scale_factors(src, fx, fy, interpolation):
    try:
        expected = opencv.resize(src, None, fx=fx, fy=fy, interpolation=interpolation)
    except opencv.error:  # an empty output size
        with pytest.raises(ValueError, match="adapter cv2.resize: unsupported dsize"):
            cv2.resize(src, None, fx=fx, fy=fy, interpolation=interpolation)
        return
    try:
        got = cv2.resize(src, None, fx=fx, fy=fy, interpolation=interpolation)
    except ValueError as exc:
        # Documented refusal: an exact 2x LINEAR downscale is OpenCV's area path, matched only on whole tiles.
        assert "tile the whole image" in str(exc)
        assert interpolation == opencv.INTER_LINEAR and fx == fy == 0.5 and (src.shape[0] % 2 or src.shape[1] % 2)
        return
    check(got, expected)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 4), st.integers(1, 4), st.integers(1, 5), st.integers(1, 5), st.data(),
       st.sampled_from([opencv.INTER_AREA, opencv.INTER_LINEAR]))
def test_resize_area_integer_factors(fx, fy, out_w, out_h, data, interpolation):
    if interpolation == opencv.INTER_LINEAR:  # OpenCV turns an exact 2x LINEAR downscale into AREA
        fx = fy = 2
    src = data.draw(images(st.just(out_h * fy), st.just(out_w * fx)))
    check(cv2.resize(src, (out_w, out_h), interpolation=interpolation),
          opencv.resize(src, (out_w, out_h), interpolation=interpolation))


@settings(max_examples=200, deadline=None)
@given(images(st.integers(1, 10), st.integers(1, 10)), st.sampled_from([
    opencv.COLOR_BGR2RGB, opencv.COLOR_RGB2BGR, opencv.COLOR_BGR2GRAY, opencv.COLOR_RGB2GRAY,
    opencv.COLOR_GRAY2BGR, opencv.COLOR_GRAY2RGB]))
def test_cvt_color(src, code):
    channels = src.shape[2] if src.ndim == 3 else 1
    gray_in = code in (opencv.COLOR_GRAY2BGR, opencv.COLOR_GRAY2RGB)
    if gray_in != (channels == 1) or (not gray_in and channels == 2):
        with pytest.raises(ValueError, match="adapter cv2.cvtColor: unsupported src"):
            cv2.cvt_color(src, code)
        return
    check(cv2.cvt_color(src, code), opencv.cvtColor(src, code))


def test_gray_weights_are_exact_on_every_uint8_colour():
    values = np.arange(256, dtype=np.uint8)
    grid = np.stack(np.meshgrid(values, values, values, indexing="ij"), axis=-1).reshape(256 * 16, 256 * 16, 3)
    for code in (opencv.COLOR_BGR2GRAY, opencv.COLOR_RGB2GRAY):
        assert np.array_equal(cv2.cvt_color(grid, code), opencv.cvtColor(grid, code))


def test_flag_values_match_opencv():
    assert (cv2.INTER_NEAREST, cv2.INTER_LINEAR, cv2.INTER_AREA) == (
        opencv.INTER_NEAREST, opencv.INTER_LINEAR, opencv.INTER_AREA)
    assert (cv2.COLOR_BGR2RGB, cv2.COLOR_RGB2BGR, cv2.COLOR_BGR2GRAY, cv2.COLOR_RGB2GRAY, cv2.COLOR_GRAY2BGR,
            cv2.COLOR_GRAY2RGB) == (opencv.COLOR_BGR2RGB, opencv.COLOR_RGB2BGR, opencv.COLOR_BGR2GRAY,
                                    opencv.COLOR_RGB2GRAY, opencv.COLOR_GRAY2BGR, opencv.COLOR_GRAY2RGB)


def test_torch_input_gives_torch_output_of_the_same_dtype():
    src = torch.arange(48, dtype=torch.uint8).reshape(4, 4, 3)
    out = cv2.resize(src, (2, 2), interpolation=cv2.INTER_AREA)
    assert isinstance(out, torch.Tensor) and out.dtype == torch.uint8
    assert np.array_equal(out.numpy(), opencv.resize(src.numpy(), (2, 2), interpolation=opencv.INTER_AREA))


@pytest.mark.parametrize("call, adapter, argument", [
    (lambda: cv2.resize(np.zeros((6, 6), np.uint8), (4, 4), interpolation=cv2.INTER_AREA), "cv2.resize", "dsize"),
    (lambda: cv2.resize(np.zeros((4, 4), np.uint8), (8, 8), interpolation=cv2.INTER_AREA), "cv2.resize", "dsize"),
    (lambda: cv2.resize(np.zeros((2, 3), np.uint8), None, fx=0.5, fy=0.5), "cv2.resize", "dsize"),
    (lambda: cv2.resize(np.zeros((4, 4), np.uint8), (2, 2), interpolation=opencv.INTER_CUBIC), "cv2.resize",
     "interpolation"),
    (lambda: cv2.resize(np.zeros((4, 4), np.uint16), (2, 2)), "cv2.resize", "src"),
    (lambda: cv2.resize(np.zeros((4, 4, 5), np.uint8), (2, 2)), "cv2.resize", "src"),
    (lambda: cv2.resize(np.zeros((4, 4), np.uint8), (2, 2), np.zeros((2, 2), np.uint8)), "cv2.resize", "dst"),
    (lambda: cv2.cvt_color(np.zeros((4, 4, 3), np.uint8), opencv.COLOR_BGR2HSV), "cv2.cvtColor", "code"),
    (lambda: cv2.cvt_color(np.zeros((4, 4, 3), np.float64), opencv.COLOR_BGR2RGB), "cv2.cvtColor", "src"),
])
def test_out_of_domain_inputs_are_refused(call, adapter, argument):
    with pytest.raises(ValueError, match=rf"adapter {adapter}: unsupported {argument}"):
        call()


def test_registry_names():
    assert ADAPTERS["cv2.resize"].function is cv2.resize
    assert ADAPTERS["cv2.cvtColor"].function is cv2.cvt_color


@pytest.mark.parametrize("interpolation", [opencv.INTER_NEAREST, opencv.INTER_LINEAR])
def test_resize_to_the_same_size_through_scale_factors_is_a_copy(interpolation):
    # 2 * 1.25 rounds (half to even) back to 2 rows: OpenCV copies instead of sampling at scale 0.8.
    src = np.array([[0.0], [1.0]], dtype=np.float32)
    check(cv2.resize(src, None, fx=0.7, fy=1.25, interpolation=interpolation),
          opencv.resize(src, None, fx=0.7, fy=1.25, interpolation=interpolation))
