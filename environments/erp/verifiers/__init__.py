"""The 18 ERP verifiers, registered in id order (erp-world.md §9)."""

from __future__ import annotations

from .ver_001 import ver_001
from .ver_002 import ver_002
from .ver_003 import ver_003
from .ver_004 import ver_004
from .ver_005 import ver_005
from .ver_006 import ver_006
from .ver_007 import ver_007
from .ver_008 import ver_008
from .ver_009 import ver_009
from .ver_010 import ver_010
from .ver_011 import ver_011
from .ver_012 import ver_012
from .ver_013 import ver_013
from .ver_014 import ver_014
from .ver_015 import ver_015
from .ver_016 import ver_016
from .ver_017 import ver_017
from .ver_018 import ver_018

__all__ = ["verifiers"]

verifiers = [ver_001, ver_002, ver_003, ver_004, ver_005, ver_006, ver_007, ver_008, ver_009,
             ver_010, ver_011, ver_012, ver_013, ver_014, ver_015, ver_016, ver_017, ver_018]  # fmt: skip
