"""Moved to :mod:`silo_gym.authoring.validate_variants` (issue 23: world authoring is one concept, in one
folder). This old path keeps working: importing it gives that very module (so a name read or
patched here is the moved module's own), and its names are listed below for type checkers."""

from __future__ import annotations

import sys

from .authoring import validate_variants as _moved
from .authoring.validate_variants import (
    SAMPLE,
    VARIANT_FINDING_CODES,
    accepts_variant,
    check_variants,
)

__all__ = [
    "SAMPLE",
    "VARIANT_FINDING_CODES",
    "accepts_variant",
    "check_variants",
]

sys.modules[__name__] = _moved
