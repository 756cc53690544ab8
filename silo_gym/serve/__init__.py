"""Every Silo task as an MCP server (``silo-gym serve``; extra ``silo-gym[mcp]``).

:mod:`.episodes` holds one session's recorded episode and needs no MCP SDK; :mod:`.server` maps
it onto the official ``mcp`` SDK (stdio and streamable HTTP).
"""

from __future__ import annotations

from .episodes import SUBMIT_ANSWER, SUBMIT_ANSWER_TOOL, EpisodeSettings, ServedEpisode, check_servable

__all__ = ["SUBMIT_ANSWER", "SUBMIT_ANSWER_TOOL", "EpisodeSettings", "ServedEpisode", "check_servable"]
