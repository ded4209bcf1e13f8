"""`cv2.resize` and `cv2.cvtColor` in torch, matching OpenCV's arithmetic.

resize (uint8 or float32 images, (H, W) or (H, W, C) with C in 1..4):
- INTER_NEAREST: source index floor(dst_index * (1 / inv_scale)), clamped; OpenCV's convention, not
  pixel-centre (that is INTER_NEAREST_EXACT, refused).
- INTER_LINEAR: pixel-centre sampling, x = (dx + 0.5) * scale - 0.5, in float32 for uint8 images and
  for float32 images one pixel wide or high, in double for other float32 images. Horizontal weights are
  clamped at the borders, vertical weights are not (only the row indices are), as in OpenCV. uint8 uses
  OpenCV's fixed point (11-bit weights, ((b0 * (h0 >> 4)) >> 16) + ((b1 * (h1 >> 4)) >> 16) + 2) >> 2),
  evaluated exactly in float64 with floor. An exact 2x downscale becomes INTER_AREA, as in OpenCV.
- INTER_AREA: integer downscale factors only (each output pixel is the mean of a whole block); other
  ratios are refused. uint8: 2x2 blocks with 1, 3 or 4 channels round half up ((sum + 2) >> 2), every
  other block rounds sum * float32(1 / area) half to even, as OpenCV's vectorised and scalar paths do.
cvtColor: COLOR_BGR2RGB / COLOR_RGB2BGR (3 or 4 channels in, 3 out), COLOR_BGR2GRAY / COLOR_RGB2GRAY
(3 or 4 channels; uint8 with OpenCV's 15-bit weights 3735/19235/9798 and round half up, float32 with
0.114/0.587/0.299), COLOR_GRAY2BGR / COLOR_GRAY2RGB ((H, W) or (H, W, 1) in, 3 channels out).
The dst argument and every other code or flag are refused. This module does not import OpenCV; the
flag values are OpenCV's stable constants.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch

from ._core import Adapter, check_dtype, finish, is_numpy_input, refuse, to_tensor

INTER_NEAREST, INTER_LINEAR, INTER_AREA = 0, 1, 3
COLOR_BGR2RGB = COLOR_RGB2BGR = 4
COLOR_BGR2GRAY, COLOR_RGB2GRAY = 6, 7
COLOR_GRAY2BGR = COLOR_GRAY2RGB = 8
RESIZE = "cv2.resize"
CVT = "cv2.cvtColor"
_INTERPOLATIONS = {INTER_NEAREST: "INTER_NEAREST", INTER_LINEAR: "INTER_LINEAR", INTER_AREA: "INTER_AREA"}


def _shape(x: Any) -> tuple[int, ...]:
    return tuple(x.shape) if isinstance(x, torch.Tensor) else np.shape(x)


def _image(name: str, src: Any) -> np.dtype:
    dtype = check_dtype(name, "src", src, ("uint8", "float32"))
    shape = _shape(src)
    if len(shape) not in (2, 3) or (len(shape) == 3 and not 1 <= shape[2] <= 4) or 0 in shape:
        raise refuse(name, "src", f"shape {shape} (expected (H, W) or (H, W, C) with C in 1..4)")
    return dtype


# ---------------------------------------------------------------------------------- resize ----
def _plan(src_shape: tuple[int, ...], dsize: Any, fx: float, fy: float) -> tuple[int, int, float, float]:
    """(dst_w, dst_h, inv_scale_x, inv_scale_y) as cv::resize derives them."""
    height, width = src_shape[:2]
    if dsize is not None and tuple(int(v) for v in dsize) != (0, 0):
        dst_w, dst_h = (int(v) for v in dsize)
        return dst_w, dst_h, dst_w / width, dst_h / height
    dst_w, dst_h = round(width * fx), round(height * fy)  # saturate_cast<int>: round half to even
    return dst_w, dst_h, float(fx), float(fy)


def check_resize(src: Any, dsize: Any = None, dst: Any = None, fx: float = 0, fy: float = 0,
                 interpolation: int = INTER_LINEAR) -> None:
    _image(RESIZE, src)
    if dst is not None:
        raise refuse(RESIZE, "dst", "an output buffer is not supported")
    if interpolation not in _INTERPOLATIONS:
        raise refuse(RESIZE, "interpolation", f"{interpolation!r} (supported: INTER_NEAREST, INTER_LINEAR, "
                                              "INTER_AREA)")
    if dsize is not None and (len(tuple(dsize)) != 2 or any(int(v) < 0 for v in dsize)):
        raise refuse(RESIZE, "dsize", f"{dsize!r} (a (width, height) pair)")
    if (dsize is None or tuple(int(v) for v in dsize) == (0, 0)) and not (fx > 0 and fy > 0):
        raise refuse(RESIZE, "fx/fy", "positive fx and fy are required when dsize is empty")
    dst_w, dst_h, inv_x, inv_y = _plan(_shape(src), dsize, fx, fy)
    if dst_w <= 0 or dst_h <= 0:
        raise refuse(RESIZE, "dsize", f"empty output size {(dst_w, dst_h)}")
    scales = _integer_scales(inv_x, inv_y)
    area = interpolation == INTER_AREA or (interpolation == INTER_LINEAR and scales == (2, 2))
    if area and _area_fast(_shape(src), dst_w, dst_h, inv_x, inv_y) is None:
        raise refuse(RESIZE, "dsize", f"INTER_AREA from {_shape(src)[1::-1]} to {(dst_w, dst_h)}: only integer "
                                      "downscale factors that tile the whole image are supported")


def _integer_scales(inv_x: float, inv_y: float) -> tuple[int, int] | None:
    """(sx, sy) when both source/destination ratios are integers to double precision, as cv::resize tests."""
    scale_x, scale_y = 1.0 / inv_x, 1.0 / inv_y
    ix, iy = round(scale_x), round(scale_y)
    exact = abs(scale_x - ix) < np.finfo(np.float64).eps and abs(scale_y - iy) < np.finfo(np.float64).eps
    return (ix, iy) if exact and ix >= 1 and iy >= 1 else None


def _area_fast(src_shape: tuple[int, ...], dst_w: int, dst_h: int, inv_x: float, inv_y: float):
    """The integer block size when cv::resize takes its fast area path and the blocks tile the image."""
    scales = _integer_scales(inv_x, inv_y)
    height, width = src_shape[:2]
    if scales is None or scales[0] * dst_w != width or scales[1] * dst_h != height:
        return None
    return scales


def _nearest_index(dst: int, src: int, inv_scale: float) -> np.ndarray:
    step = 1.0 / inv_scale
    return np.array([min(math.floor(d * step), src - 1) for d in range(dst)], dtype=np.int64)


def _linear_taps(dst: int, src: int, inv_scale: float, clamp_weights: bool, double_coords: bool = False):
    """Source indices (i0, i1) and float32 weights of i1, computed as OpenCV does: the source coordinate
    in float32, or in double (OpenCV's float32 images with both sides longer than one pixel)."""
    scale = 1.0 / inv_scale
    i0, i1, w = [], [], []
    for d in range(dst):
        if double_coords:
            x = (d + 0.5) * scale - 0.5
            s = math.floor(x)
            f = np.float32(x - s)
        else:
            f = np.float32((d + 0.5) * scale - 0.5)
            s = math.floor(f)
            f = np.float32(f - np.float32(s))
        if clamp_weights and s < 0:
            f, s = np.float32(0), 0
        if clamp_weights and s >= src - 1:
            f, s = np.float32(0), src - 1
        i0.append(min(max(s, 0), src - 1))
        i1.append(min(max(s + 1, 0), src - 1))
        w.append(f)
    return np.array(i0), np.array(i1), np.array(w, dtype=np.float32)


def _fixed(weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """OpenCV's 11-bit weights: saturate_cast<short>(w * 2048) rounds half to even."""
    one = np.float32(1)
    return (np.rint((one - weights) * np.float32(2048)).astype(np.float64),
            np.rint(weights * np.float32(2048)).astype(np.float64))


def _rows(t: torch.Tensor, index: np.ndarray, axis: int) -> torch.Tensor:
    return torch.index_select(t, axis, torch.from_numpy(np.ascontiguousarray(index, dtype=np.int64)))


def _along(weights: np.ndarray, axis: int, ndim: int, dtype: torch.dtype) -> torch.Tensor:
    shape = [1] * ndim
    shape[axis] = -1
    return torch.from_numpy(np.ascontiguousarray(weights)).to(dtype).reshape(shape)


def _linear(t: torch.Tensor, dst_w: int, dst_h: int, inv_x: float, inv_y: float, uint8: bool) -> torch.Tensor:
    height, width = t.shape[:2]
    double_coords = not uint8 and height > 1 and width > 1
    x0, x1, wx = _linear_taps(dst_w, width, inv_x, clamp_weights=True, double_coords=double_coords)
    y0, y1, wy = _linear_taps(dst_h, height, inv_y, clamp_weights=False, double_coords=double_coords)
    if uint8:
        v = t.to(torch.float64)
        ax0, ax1 = _fixed(wx)
        by0, by1 = _fixed(wy)
        rows = _rows(v, x0, 1) * _along(ax0, 1, v.ndim, v.dtype) + _rows(v, x1, 1) * _along(ax1, 1, v.ndim, v.dtype)
        top = torch.floor(_along(by0, 0, v.ndim, v.dtype) * torch.floor(_rows(rows, y0, 0) / 16) / 65536)
        bottom = torch.floor(_along(by1, 0, v.ndim, v.dtype) * torch.floor(_rows(rows, y1, 0) / 16) / 65536)
        return torch.floor((top + bottom + 2) / 4)
    one = np.float32(1)
    rows = _rows(t, x0, 1) * _along(one - wx, 1, t.ndim, t.dtype) + _rows(t, x1, 1) * _along(wx, 1, t.ndim, t.dtype)
    top = _rows(rows, y0, 0) * _along(one - wy, 0, t.ndim, t.dtype)
    return top + _rows(rows, y1, 0) * _along(wy, 0, t.ndim, t.dtype)


def _area(t: torch.Tensor, fx: int, fy: int, uint8: bool) -> torch.Tensor:
    height, width = t.shape[:2]
    rest = tuple(t.shape[2:])
    blocks = t.reshape(height // fy, fy, width // fx, fx, *rest)
    channels = rest[0] if rest else 1
    if uint8:
        total = torch.sum(blocks.to(torch.float64), dim=(1, 3))
        if (fx, fy) == (2, 2) and channels in (1, 3, 4):
            return torch.floor((total + 2) / 4)
        return torch.round(total.to(torch.float32) * float(np.float32(1.0 / (fx * fy))))
    return torch.sum(blocks, dim=(1, 3)) * float(np.float32(1.0 / (fx * fy)))


def resize(src: Any, dsize: Any = None, dst: Any = None, fx: float = 0, fy: float = 0,
           interpolation: int = INTER_LINEAR) -> Any:
    check_resize(src, dsize, dst, fx, fy, interpolation)
    dtype = np.dtype(np.uint8) if _image(RESIZE, src) == np.uint8 else np.dtype(np.float32)
    uint8 = dtype == np.uint8
    t = to_tensor(src)
    dst_w, dst_h, inv_x, inv_y = _plan(tuple(t.shape), dsize, fx, fy)
    factors = _area_fast(tuple(t.shape), dst_w, dst_h, inv_x, inv_y)
    if (dst_w, dst_h) == (t.shape[1], t.shape[0]):
        out = t.clone()  # cv::resize copies when the size does not change, whatever fx/fy say
    elif interpolation == INTER_NEAREST:
        out = _rows(_rows(t, _nearest_index(dst_w, t.shape[1], inv_x), 1),
                    _nearest_index(dst_h, t.shape[0], inv_y), 0)
    elif interpolation == INTER_AREA or factors == (2, 2):
        out = _area(t, factors[0], factors[1], uint8)
    else:
        out = _linear(t, dst_w, dst_h, inv_x, inv_y, uint8)
    if out.ndim == 3 and out.shape[2] == 1:  # OpenCV returns single-channel images as (H, W)
        out = out.reshape(out.shape[0], out.shape[1])
    return finish(out, is_numpy_input(src), dtype)


# -------------------------------------------------------------------------------- cvtColor ----
_CODES = {COLOR_BGR2RGB: "COLOR_BGR2RGB/COLOR_RGB2BGR", COLOR_BGR2GRAY: "COLOR_BGR2GRAY",
          COLOR_RGB2GRAY: "COLOR_RGB2GRAY", COLOR_GRAY2BGR: "COLOR_GRAY2BGR/COLOR_GRAY2RGB"}


def check_cvt_color(src: Any, code: int, dst: Any = None, dstCn: int = 0, *args: Any, **kwargs: Any) -> None:
    _image(CVT, src)
    if code not in _CODES:
        raise refuse(CVT, "code", f"{code!r} (supported: {', '.join(_CODES.values())})")
    if dst is not None or args or kwargs:
        raise refuse(CVT, "dst", "output buffers and extra arguments are not supported")
    shape = _shape(src)
    channels = shape[2] if len(shape) == 3 else 1
    if code == COLOR_GRAY2BGR and channels != 1:
        raise refuse(CVT, "src", f"shape {shape} for a GRAY2BGR conversion (one channel expected)")
    if code != COLOR_GRAY2BGR and channels not in (3, 4):
        raise refuse(CVT, "src", f"shape {shape} for a colour conversion (3 or 4 channels expected)")
    if dstCn not in (0, 3):
        raise refuse(CVT, "dstCn", f"{dstCn!r} (only 0 or 3)")


def cvt_color(src: Any, code: int, dst: Any = None, dstCn: int = 0, *args: Any, **kwargs: Any) -> Any:
    check_cvt_color(src, code, dst, dstCn, *args, **kwargs)
    dtype = _image(CVT, src)
    t = to_tensor(src)
    if code == COLOR_BGR2RGB:
        out = _rows(t, np.array([2, 1, 0]), 2)
    elif code == COLOR_GRAY2BGR:
        out = t.reshape(t.shape[0], t.shape[1], 1).expand(t.shape[0], t.shape[1], 3).contiguous()
    else:
        first, last = (0, 2) if code == COLOR_BGR2GRAY else (2, 0)  # channel index of blue, of red
        blue, green, red = t[..., first], t[..., 1], t[..., last]
        if dtype == np.uint8:
            v = [c.to(torch.float64) for c in (blue, green, red)]
            out = torch.floor((v[0] * 3735 + v[1] * 19235 + v[2] * 9798 + 16384) / 32768)
        else:
            out = blue * float(np.float32(0.114)) + green * float(np.float32(0.587)) + red * float(np.float32(0.299))
    return finish(out, is_numpy_input(src), dtype)


cvt_color.__name__ = cvt_color.__qualname__ = "cvtColor"

ADAPTERS = {
    RESIZE: Adapter(RESIZE, resize, "src uint8 or float32, (H, W) or (H, W, C) with C in 1..4; dsize (w, h) or "
                    "fx/fy; INTER_NEAREST, INTER_LINEAR (any ratio), INTER_AREA (integer downscale factors "
                    "only); no dst", check_resize),
    CVT: Adapter(CVT, cvt_color, "src uint8 or float32; COLOR_BGR2RGB/RGB2BGR and BGR2GRAY/RGB2GRAY from 3 or "
                 "4 channels, GRAY2BGR/GRAY2RGB from (H, W) or (H, W, 1); no dst", check_cvt_color),
}
