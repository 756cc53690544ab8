"""State of the orders world."""

from typing import Any

State = dict[str, Any]
