"""Exporter parameters per attempt of the fallback ladder: each exporter receives only the keys of
the module's BACKEND_PARAMS that the installed leapp's exporter reads."""
from __future__ import annotations

from leapp_codemod.generate.backend_params import BackendParamError, accepted_keys


def for_attempt(module, backend: str) -> dict:
    """Point the module's filter at the installed leapp for `backend`; what this attempt receives."""
    params = getattr(module, "BACKEND_PARAMS", None)
    if not params:
        return {}
    try:
        keys = accepted_keys().for_backend(backend)
    except BackendParamError:
        keys = frozenset(module.BACKEND_PARAM_KEYS.get(backend, ()))
    module.BACKEND_PARAM_KEYS = {**module.BACKEND_PARAM_KEYS, backend: tuple(sorted(keys))}
    passed = module.backend_params(backend)
    return {"passed": passed, "not_accepted": [k for k in params if k not in passed]}
