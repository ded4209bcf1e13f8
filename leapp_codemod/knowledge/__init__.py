"""The knowledge layer: plain data the rest of the tool reads, each fact defined once.

Nothing here imports anything of the package (a test checks it): scan, generate, run and the generated
integration module can all read it.

* `leapp`       LEAPP facts: exporters and the formats they write, dtype fallbacks, tolerances.
* `categories`  what each stage does with a finding category.
* `vocab`       the NumPy/torch/Python API vocabularies the analysis and the rules match calls against.
* `io`          I/O, clock, logging and middleware names (what counts as I/O inside a pipeline).
* `draws`       random draws: functions, generator and distribution methods, in-place fills (LCM801).
* `libraries`   foreign native libraries and the packages the analysis models itself (never followed).
"""
