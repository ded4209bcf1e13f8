"""Library calls whose own code breaks a LEAPP trace inside: what the library does with the values it is handed,
known here whether or not the library is installed (the scan never reads or runs it). LCM112 and LCM113 match
calls against these tables; `tests/test_leapp_library_internals.py` holds the checks that established the LEAPP
facts (installed leapp 0.7.2, torch 2.13, CPU).

Plain data: importing this module imports nothing else."""
from __future__ import annotations

# --- torch.distributions: argument validation (LCM112) ---------------------------------------------------------
# A distribution checks its parameters when it is built (`constraint.check(value)`, then `if not valid.all():
# raise ValueError`) and the value handed to `log_prob`/`cdf`/`icdf` (`_validate_sample`), as long as validation
# is on, which it is by default (`Distribution._validate_args = __debug__`). Built on traced tensors, that `if`
# puts a traced tensor in a boolean context: LEAPP 0.7.2 logs "Attempted to use TracedTensor '_is_all_true' ...
# in a boolean context" (the tensor-branch signal) and records the branch the traced samples took, so the export
# never checks its arguments (an invalid scale no longer raises). Checked for Normal (loc or scale from data),
# MultivariateNormal, Categorical, Bernoulli, Beta, Independent(Normal), and `Normal(0, 1).log_prob(x)`; no record
# with `validate_args=False` or after `Distribution.set_default_validate_args(False)`; `.mean`/`.probs` of the
# distributions then compile and validate.
DISTRIBUTIONS_MODULE = "torch.distributions"
# The classes of `torch.distributions.__all__` (torch 2.13) that declare argument constraints of their own.
VALIDATING_DISTRIBUTIONS = frozenset({
    "Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Chi2", "ContinuousBernoulli", "Dirichlet",
    "Exponential", "FisherSnedecor", "Gamma", "GeneralizedPareto", "Geometric", "Gumbel", "HalfCauchy", "HalfNormal",
    "InverseGamma", "Kumaraswamy", "LKJCholesky", "Laplace", "LogNormal", "LogisticNormal",
    "LowRankMultivariateNormal", "Multinomial", "MultivariateNormal", "NegativeBinomial", "Normal",
    "OneHotCategorical", "OneHotCategoricalStraightThrough", "Pareto", "Poisson", "RelaxedBernoulli",
    "RelaxedOneHotCategorical", "StudentT", "Uniform", "VonMises", "Weibull", "Wishart",
})
# Methods of a distribution that validate the value they are handed (`_validate_sample`).
SAMPLE_CHECKING_METHODS = frozenset({"log_prob", "cdf", "icdf"})
# The keyword and the global switch that turn the checks off.
VALIDATE_KEYWORD = "validate_args"
VALIDATE_SWITCH = "set_default_validate_args"

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


def key_of(name: str) -> tuple[str, str]:
    """(top-level package, last name) of a dotted library name: `torchvision.transforms.v2.ToPILImage` ->
    ('torchvision', 'ToPILImage')."""
    parts = name.split(".")
    return parts[0], parts[-1]
