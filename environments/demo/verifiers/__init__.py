"""Verifier registry of the demo environment: one verifier per task, in id order (demo-crm.md §9)."""

from .ver_001 import ver_001
from .ver_002 import ver_002
from .ver_003 import ver_003
from .ver_004 import ver_004
from .ver_005 import ver_005
from .ver_006 import ver_006

verifiers = [
    ver_001,
    ver_002,
    ver_003,
    ver_004,
    ver_005,
    ver_006,
]
