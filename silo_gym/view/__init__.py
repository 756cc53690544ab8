"""The run viewer (``silo-gym view``; extra ``silo-gym[view]``): static HTML pages of runs.

:mod:`.model` turns run directories (and their replays) into plain data; :mod:`.render` writes
the pages with Jinja2 from ``templates/``.
"""

from __future__ import annotations

from .render import ViewResult, build_view, find_run_dirs

__all__ = ["ViewResult", "build_view", "find_run_dirs"]
