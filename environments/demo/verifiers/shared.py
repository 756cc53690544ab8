"""Answer parsing shared by the demo verifiers (demo-crm.md §9.1): the kit's helpers.

``$`` and ``,`` are deleted before numbers are read; only ASCII digits count (silo-format §14.6).
"""

from silo_gym.kit import final_number, mentions, numbers_in, show, states_number, untouched

__all__ = ["final_number", "mentions", "numbers_in", "show", "states_number", "untouched"]
