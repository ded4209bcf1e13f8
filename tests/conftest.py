"""Shared test settings."""
import os

from hypothesis import settings

# CI runs the property tests with a fixed derandomized search (reproducible runs); locally each run
# explores new examples.
settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    settings.load_profile("ci")
