"""The LEAPP facts now live in `leapp_codemod.knowledge.leapp`; this name is kept for existing imports."""
from __future__ import annotations

from leapp_codemod.knowledge.leapp import ATOL, EXPORTERS, FORMAT_OF, FORMATS, RTOL, SIGNED_FOR

__all__ = ["ATOL", "EXPORTERS", "FORMATS", "FORMAT_OF", "RTOL", "SIGNED_FOR"]
