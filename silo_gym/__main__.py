"""``python -m silo_gym`` is the ``silo-gym`` command line."""

import sys

from .cli import main

sys.exit(main())
