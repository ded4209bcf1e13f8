"""Library calls whose own code breaks a LEAPP trace inside: what the library does with the values it is handed,
known here whether or not the library is installed (the scan never reads or runs it). LCM112, LCM113 and LCM115 match
calls against these tables; `tests/test_leapp_library_internals.py` holds the checks that established the LEAPP
facts (installed leapp 0.7.2, torch 2.13, CPU).

Plain data: importing this module imports nothing else."""
from __future__ import annotations

# --- torch.distributions: argument validation (not reported) ------------------------------------------------
# A distribution checks its parameters when it is built and the value handed to `log_prob`/`cdf`/`icdf`, as long
# as validation is on (the default): `if not valid.all(): raise ValueError`. Built on traced tensors, LEAPP 0.7.2
# logs "Attempted to use TracedTensor '_is_all_true' ... in a boolean context" and records the branch the traced
# samples took. That branch is the one every valid input takes (the other side only raises), so the export
# validates and is right on valid inputs (tests/test_leapp_library_internals.py): like any `if bad: raise` guard
# (`source.guards.only_raises`), no hazard.

# --- results sized by values (LCM112) --------------------------------------------------------------------------
# `torch.nn.functional.one_hot(idx)` without `num_classes` (or with -1) sizes its result by `idx.max() + 1`,
# read inside torch's C++ code: LEAPP 0.7.2 records the width of the first sample, and the next sample whose
# largest index differs fails ("Reentering ... with new i/o"). With `num_classes=` given it traces and validates.
SIZED_BY_VALUES = {"torch.nn.functional.one_hot": ("num_classes", 1), "torch.one_hot": ("num_classes", 1)}

# --- conversions into untraced objects (LCM113) ----------------------------------------------------------------
# torchvision's `ToPILImage` transform and `to_pil_image` function turn a tensor or an ndarray into a PIL image
# (torchvision's published API: they return a `PIL.Image.Image`). PIL copies the numbers into its own native image
# (tests/test_leapp_pil_image.py: what comes back out is a constant of the export), so every transform after it
# (`Resize`, `CenterCrop` on the image, then `ToTensor`/`ToImage`) computes outside the trace. Known from the
# library's documented behaviour, not from running it (torchvision is not installed here): reported whether or
# not it is installed. Keyed by (top-level package, name), so every module path that re-exports it matches.
PIL_CONVERSIONS = frozenset({("torchvision", "ToPILImage"), ("torchvision", "to_pil_image")})
# Library callables that build one callable from a list of callables applied in order (a transform pipeline):
# calling the pipeline calls each of them (the first positional argument holds the list).
PIPELINE_BUILDERS = frozenset({("torchvision", "Compose"), ("torch", "Sequential"), ("torchvision", "RandomApply"),
                               ("torchvision", "RandomOrder"), ("torchvision", "RandomChoice")})

# --- function transforms (LCM115) -------------------------------------------------------------------------------
# `torch.vmap` (also `torch.func.vmap`, `functorch.vmap`) and the other torch.func transforms that return a new
# function (`grad`, `grad_and_value`, `jacrev`, `jacfwd`, `hessian`) run the function they wrap on functorch's
# own batched or gradient-tracking tensors. LEAPP 0.7.2 does not see through them: called on a traced tensor the
# transformed function answers a plain `torch.Tensor`, and `output_tensors` raises "received non-traced tensors"
# (checked with leapp 0.7.2 and torch 2.13: a plain `torch.vmap` over rows, `torch.func.vmap` over stacked
# weights, the stacked-ensemble idiom `vmap(functional_call(...))` and `jacrev` all raise; `functional_call`
# alone and a Python loop over the members trace and validate; tests/test_leapp_function_transform.py).
FUNCTION_TRANSFORMS = frozenset({("torch", "vmap"), ("functorch", "vmap"), ("torch", "grad"), ("functorch", "grad"),
                                 ("torch", "grad_and_value"), ("functorch", "grad_and_value"),
                                 ("torch", "jacrev"), ("functorch", "jacrev"), ("torch", "jacfwd"),
                                 ("functorch", "jacfwd"), ("torch", "hessian"), ("functorch", "hessian")})


def key_of(name: str) -> tuple[str, str]:
    """(top-level package, last name) of a dotted library name: `torchvision.transforms.v2.ToPILImage` ->
    ('torchvision', 'ToPILImage')."""
    parts = name.split(".")
    return parts[0], parts[-1]
