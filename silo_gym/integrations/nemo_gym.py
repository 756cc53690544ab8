"""Silo environments as NeMo Gym resources servers (``silo-gym export nemo-gym``; docs/hubs.md).

NeMo Gym's ``GymnasiumServer`` (``resources_servers.gymnasium``) serves ``/reset`` and ``/step``
for its ``gymnasium_agent``: the agent posts the data set row to ``/reset``, then after every
model reply posts the reply (an OpenAI Responses object) to ``/step``, which answers Gymnasium's
5-tuple; ``info["tool_outputs"]`` (``{"call_id", "output"}``) go back to the model as
``function_call_output`` items; a terminated or truncated step ends the rollout and its session.
A cookie session tells rollouts apart. Here:

- :class:`SiloGymnasiumServer` keeps one :class:`~silo_gym.hubs.session.HubEpisode` per session
  (its own world, its own run directory). ``/reset`` reads ``task_id``, ``seed`` and ``variant``
  from the row and starts the episode (the row's input already holds the instruction, so the
  reset observation is ``None``).
- ``/step`` runs the reply's ``function_call`` items in order (each call's arguments are the
  JSON text the model wrote; text that is not a JSON object is stepped as it is and becomes the
  ``invalid_action`` the trace records); a reply without calls is the final answer (its text),
  which ends and grades the episode, as does ``submit_answer`` or a limit. The ending step's
  reward is the verifier's (``result.json``'s) and its ``info`` holds ``result``, ``state_diff``,
  ``termination_reason``, ``passed``, ``run_dir`` and any reward components.
- ``/close`` (advertised by ``supports_explicit_close``) and a new ``/reset`` on a running
  session end its episode as ``agent_error``, graded and recorded.

Every session plays through ``HubEpisode``, the path all hubs share, so the same episode gives
``gym.make``'s rewards and run bytes. Calls run in a worker thread, one session's in order.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any, ClassVar

from fastapi import FastAPI, HTTPException, Request
from nemo_gym.base_resources_server import BaseResourcesServerConfig
from nemo_gym.openai_utils import NeMoGymResponse
from nemo_gym.server_utils import SESSION_ID_KEY
from pydantic import Field
from resources_servers.gymnasium import GymnasiumServer, extract_text

from ..hubs.session import HubEpisode
from ..jsonfmt import loads_strict

__all__ = ["SESSION_CLOSED", "SiloGymnasiumServer", "SiloResourcesServerConfig", "arguments_of"]

#: ``error`` of an episode whose NeMo Gym session was closed or reset before it ended.
SESSION_CLOSED = "The NeMo Gym session ended before the episode did."


class SiloResourcesServerConfig(BaseResourcesServerConfig):
    """The server's config (its YAML block): ``runs_dir`` (where each session's run is
    recorded; empty: not recorded), ``max_tool_calls`` and ``timeout_ms`` (``None``: the
    exported package's)."""

    runs_dir: str = ".silo/runs"
    max_tool_calls: int | None = None
    timeout_ms: int | None = None


def arguments_of(text: str | None) -> Any:
    """A function call's arguments: the JSON object the model wrote, or the text itself when it
    is not JSON (the silo env refuses it as ``invalid_action``, and the trace keeps it)."""
    if not text:
        return {}
    try:
        return loads_strict(text)
    except ValueError:
        return text


class SiloGymnasiumServer(GymnasiumServer):
    """One silo environment as a NeMo Gym resources server (module docs). Subclasses set
    ``ENVIRONMENT`` (and ``ENVIRONMENT_PATH`` for a bundled world) and the default limits."""

    ENVIRONMENT: ClassVar[str] = ""
    ENVIRONMENT_PATH: ClassVar[str | None] = None
    MAX_TOOL_CALLS: ClassVar[int] = 100
    TIMEOUT_MS: ClassVar[int] = 120000

    config: SiloResourcesServerConfig
    ray_enabled: ClassVar[bool] = False
    episodes: dict[str, Any] = Field(default_factory=dict)  # session id -> HubEpisode

    def setup_webserver(self) -> FastAPI:
        app = super().setup_webserver()
        app.post("/close")(self._close_endpoint)
        return app

    def _new_episode(self) -> HubEpisode:
        if not self.ENVIRONMENT:
            raise TypeError(f"{type(self).__name__} names no silo environment (set ENVIRONMENT).")
        config = self.config
        return HubEpisode(self.ENVIRONMENT, path=self.ENVIRONMENT_PATH, runs_dir=config.runs_dir or None,
                          max_tool_calls=config.max_tool_calls if config.max_tool_calls is not None
                          else self.MAX_TOOL_CALLS,
                          timeout_ms=config.timeout_ms if config.timeout_ms is not None else self.TIMEOUT_MS)

    async def reset(self, metadata: dict, session_id: str | None = None) -> tuple[str | None, dict]:
        """Start the session's episode from the row's ``task_id``, ``seed`` and ``variant``.

        Raises:
            HTTPException: 400 when the row has no ``task_id`` or names an unknown task or variant.
        """
        self._cleanup_session(session_id)
        task_id = metadata.get("task_id")
        if not isinstance(task_id, str):
            raise HTTPException(status_code=400, detail='The row has no "task_id": silo rows name their task.')
        hub = self._new_episode()
        try:
            start = await asyncio.to_thread(hub.reset, task_id=task_id, seed=metadata.get("seed"),
                                            variant=metadata.get("variant"))
        except Exception as exc:
            hub.env.close()
            raise HTTPException(status_code=400, detail=str(exc)) from exc
        self.episodes[str(session_id)] = hub
        info = start.info
        return None, {"task_id": info["task_id"], "variant": info["variant"], "run_id": info.get("run_id"),
                      "run_dir": info.get("run_dir"), "supports_explicit_close": True}

    async def step(self, action: NeMoGymResponse, metadata: dict,
                   session_id: str | None = None) -> tuple[str | None, float, bool, bool, dict]:
        """Run the reply's function calls in order, or its text as the final answer.

        Raises:
            HTTPException: 400 before ``/reset`` (or after the episode ended).
        """
        hub = self.episodes.get(str(session_id))
        if hub is None or not hub.running:
            raise HTTPException(status_code=400, detail="No running episode in this session: call /reset first.")
        return await asyncio.to_thread(self._play, hub, action)

    def _play(self, hub: HubEpisode, action: NeMoGymResponse) -> tuple[str | None, float, bool, bool, dict]:
        calls = [item for item in action.output if getattr(item, "type", None) == "function_call"]
        if not calls:
            return self._end(hub.answer(extract_text(action)).ending, hub)
        outputs = []
        for call in calls:
            step = hub.call(call.name, arguments_of(call.arguments))
            if step.done:
                return self._end(step.ending, hub)
            outputs.append({"call_id": call.call_id, "output": step.observation})
        info = hub.last.info if hub.last is not None else {}
        return None, 0.0, False, False, {"tool_outputs": outputs, "tool_calls": info.get("tool_calls"),
                                         "tool_errors": info.get("tool_errors")}

    @staticmethod
    def _end(ending: dict[str, Any] | None, hub: HubEpisode) -> tuple[str | None, float, bool, bool, dict]:
        assert ending is not None and hub.last is not None
        return None, hub.last.reward, bool(ending["terminated"]), bool(ending["truncated"]), dict(ending)

    async def _close_endpoint(self, request: Request) -> dict:
        session_id = request.session.get(SESSION_ID_KEY)
        await asyncio.to_thread(self._cleanup_session, session_id)
        return {"closed": True}

    def _cleanup_session(self, session_id: str | None) -> None:
        """End the session's running episode as ``agent_error`` (graded and recorded), let it go."""
        hub = self.episodes.pop(str(session_id), None)
        if hub is not None:
            hub.close(SESSION_CLOSED)
        super()._cleanup_session(session_id)


def package_path(app_file: str, environment: str, bundled: bool) -> str | None:
    """The bundled world's directory beside an exported server's ``app.py`` (None: shipped)."""
    return os.path.join(os.path.dirname(os.path.abspath(app_file)), "environment", environment) if bundled else None
