"""Finding categories by what each stage does with them."""
from __future__ import annotations

# A finding in a plain function of these categories makes the function a FunctionPatch target.
PATCHABLE_CATEGORIES = frozenset({"unmapped-numpy", "foreign-library", "scalar-extraction", "tensor-branch",
                                  "numpy-negative-stride", "numpy-astype"})
# A flagged call of these categories is a library call `generate` patches through the binding it is looked up by.
LIBRARY_CATEGORIES = frozenset({"unmapped-numpy", "foreign-library"})
# Library hazards that change what the exported graph computes, reported at the application's call site.
# Shape guards, warnings and Python branches inside a library are its own business (read in
# Stable-Baselines3, sb3-contrib and rsl_rl: they test flags, spaces and shapes, which the export fixes
# anyway), and its ndarray round trips (`.cpu().numpy()`) are traced by LEAPP.
REPORTED_IN_LIBRARIES = frozenset({"scalar-extraction", "unmapped-numpy", "foreign-library", "numpy-negative-stride",
                                   "numpy-astype", "inplace-state", "random-in-pipeline"})
UNREPORTED_LIBRARY_CODES = frozenset({"LCM302"})
