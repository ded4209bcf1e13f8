"""How long `run` lets the driver run on after the export, to check the model on calls from the whole run.

Two durations, defined here only: the run-on budget (the driver's calls are sampled for up to `BUDGET`
seconds after the export; the first call past it ends the run) and the watchdog's grace (a driver that
no longer calls the entry, a server loop or a viewer left open, is stopped `GRACE` seconds past the
budget). `LEAPP_CODEMOD_RUN_ON=BUDGET` or `BUDGET:GRACE` (seconds) sets them for one run: the test suite
shortens them so its run-on checks do not wait half a minute.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass

ENV = "LEAPP_CODEMOD_RUN_ON"
BUDGET = 20.0       # seconds the driver may run on after the export
GRACE = 10.0        # seconds past the budget before a driver that no longer calls the entry is stopped


@dataclass(frozen=True)
class RunOn:
    budget: float = BUDGET
    grace: float = GRACE

    @property
    def watchdog(self) -> float:
        """Seconds after the export before the watchdog interrupts the driver."""
        return self.budget + self.grace


def from_environ(environ=os.environ) -> RunOn:
    """The durations `LEAPP_CODEMOD_RUN_ON` sets, or the defaults; ValueError (one line naming the variable
    and what it expects) for anything but one or two positive numbers of seconds."""
    value = environ.get(ENV, "").strip()
    if not value:
        return RunOn()
    budget, sep, grace = value.partition(":")
    try:
        durations = (float(budget), float(grace) if sep else GRACE)
    except ValueError:
        durations = ()
    if len(durations) != 2 or not all(math.isfinite(d) and d > 0 for d in durations):
        raise ValueError(f"{ENV}={value!r}: expected BUDGET or BUDGET:GRACE, positive seconds (the defaults are "
                         f"{BUDGET:g}:{GRACE:g})")
    return RunOn(*durations)
