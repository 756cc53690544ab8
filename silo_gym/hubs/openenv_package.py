"""The files of an exported OpenEnv package (``silo-gym export openenv``; docs/hubs.md).

The layout is OpenEnv's own (``openenv init``): the package root is the Python package
``silo_<env>``, with ``openenv.yaml``, ``models.py``, ``client.py``, ``server/app.py`` and
``server/Dockerfile``, and a README whose front matter makes it a Hugging Face Space tagged
``openenv``. The package holds no logic of its own: the server and client are
:mod:`silo_gym.integrations.openenv`'s, from the pinned ``silo-gym``.
"""

from __future__ import annotations

import json
from string import Template

from .description import HubDescription
from .package import BUNDLE_DIR
from .session import DEFAULT_MAX_SESSIONS

__all__ = ["openenv_files", "openenv_names"]


def openenv_names(desc: HubDescription) -> dict[str, str]:
    """``package`` (the import name), ``dist`` (the distribution), ``client`` (the client class)."""
    camel = "".join(part.capitalize() for part in desc.module.split("_") if part)
    return {"package": f"silo_{desc.module}_env", "dist": f"openenv-silo-{desc.slug}", "client": f"Silo{camel}Env"}


_YAML = Template("""\
spec_version: 1
name: $package
type: space
runtime: fastapi
app: server.app:app
port: 8000
""")

_PYPROJECT = Template("""\
[build-system]
requires = ["setuptools>=68", "wheel"]
build-backend = "setuptools.build_meta"

[project]
name = "$dist"
version = "$version"
description = "The silo environment \\"$environment\\" as an OpenEnv environment (exported by silo-gym $version)"
readme = "README.md"
requires-python = ">=3.11"
dependencies = ["silo-gym[openenv]==$version"]

[project.scripts]
server = "$package.server.app:main"

[tool.setuptools]
packages = ["$package", "$package.server"]
package-dir = { "$package" = ".", "$package.server" = "server" }
include-package-data = false

[tool.setuptools.package-data]
$package = ["openenv.yaml", "silo_env.json", "README.md", "$bundle/**/*"]
""")

_INIT = Template('''\
"""The silo environment "$environment" for OpenEnv: ``$client`` is the client (see README.md)."""

from .client import $client
from .models import CallToolAction, ListToolsAction, SiloObservation, SiloState

__all__ = ["CallToolAction", "ListToolsAction", "SiloObservation", "SiloState", "$client"]
''')

_MODELS = '''\
"""The action, observation and state types (those of silo_gym.integrations.openenv)."""

from silo_gym.integrations.openenv import CallToolAction, ListToolsAction, SiloObservation, SiloState

__all__ = ["CallToolAction", "ListToolsAction", "SiloObservation", "SiloState"]
'''

_CLIENT = Template('''\
"""The WebSocket client of this environment's server."""

from silo_gym.integrations.openenv import SiloEnvClient


class $client(SiloEnvClient):
    """Client of the silo environment "$environment": ``reset(task_id=, seed=, variant=)``,
    ``list_tools()``, ``call_tool(name, arguments)``, ``submit_answer(answer)``."""


__all__ = ["$client"]
''')

_APP = Template('''\
"""The OpenEnv server of the silo environment "$environment" (exported by silo-gym $version).

``uvicorn server.app:app`` (OpenEnv's way) or ``python -m $package.server.app --port 8000``.
Settings: ``--max-concurrent-envs`` / ``SILO_MAX_CONCURRENT_ENVS`` (sessions at once, default
$max_sessions), ``--runs-dir`` / ``SILO_GYM_RUNS_DIR`` (where each session's run is recorded,
default ``.silo/runs``).
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

from silo_gym.integrations.openenv import DEFAULT_MAX_SESSIONS, create_silo_app

ROOT = Path(__file__).resolve().parent.parent
SETTINGS = json.loads((ROOT / "silo_env.json").read_text(encoding="utf-8"))


def build_app(max_concurrent_envs: int | None = None, runs_dir: str | None = None) -> Any:
    """The FastAPI app (one recorded silo episode per WebSocket session)."""
    sessions = max_concurrent_envs or int(os.environ.get("SILO_MAX_CONCURRENT_ENVS", DEFAULT_MAX_SESSIONS))
    path = str(ROOT / "$bundle" / SETTINGS["environment"]) if SETTINGS["bundled"] else None
    return create_silo_app(SETTINGS["environment"], path=path,
                           runs_dir=runs_dir or os.environ.get("SILO_GYM_RUNS_DIR") or ".silo/runs",
                           max_tool_calls=SETTINGS["maxToolCalls"], timeout_ms=SETTINGS["timeoutMs"],
                           max_concurrent_envs=sessions)


def __getattr__(name: str) -> Any:
    if name == "app":  # built on first use, so importing this module starts nothing
        globals()["app"] = built = build_app()
        return built
    raise AttributeError(name)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--max-concurrent-envs", type=int, default=None)
    parser.add_argument("--runs-dir", default=None)
    args = parser.parse_args(argv)
    import uvicorn

    uvicorn.run(build_app(args.max_concurrent_envs, args.runs_dir), host=args.host, port=args.port)


if __name__ == "__main__":
    main()
''')

_DOCKERFILE = Template("""\
# The OpenEnv server of the silo environment "$environment".
# silo-gym $version must be installable: from your package index, or put its wheel in wheels/.
FROM python:3.11-slim
WORKDIR /app/env
COPY . /app/env
RUN pip install --no-cache-dir --find-links /app/env/wheels /app/env
ENV SILO_GYM_RUNS_DIR=/data/runs
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=3s --start-period=10s --retries=3 \\
    CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/health')"
CMD ["python", "-m", "$package.server.app", "--host", "0.0.0.0", "--port", "8000"]
""")

_README = Template("""\
---
title: Silo $environment
emoji: 🧰
colorFrom: indigo
colorTo: gray
sdk: docker
pinned: false
app_port: 8000
tags:
  - openenv
  - silo
  - tool-use
---

# Silo environment "$environment" for OpenEnv

$summary

Each WebSocket session is one episode on its own world, recorded as a Silo run (`trace.jsonl`,
`result.json`, `state-diff.json`, `run.json`) under the server's runs directory. Tool calls are
OpenEnv's MCP actions: `ListToolsAction()` lists the tools, `CallToolAction(tool_name=...,
arguments=...)` calls one, and calling `submit_answer` with `{"answer": ...}` ends the episode.
The ending observation has `done=True`, the verifier's `reward` (the number in `result.json`),
`truncated` (a limit ended it), `termination_reason`, and `ending`/`metadata` with `result`,
`state_diff` and `run_dir`. A session that disconnects before the end is ended as `agent_error`,
graded and recorded.

Tasks: $tasks.$variants

## Run the server

```bash
pip install --find-links wheels .      # silo-gym $version from your index or wheels/
python -m $package.server.app --port 8000 --max-concurrent-envs 64
# or OpenEnv's way: uvicorn server.app:app --port 8000   (SILO_MAX_CONCURRENT_ENVS=64)
```

## Play an episode

```python
import asyncio
from $package import $client

async def main():
    async with $client(base_url="http://127.0.0.1:8000") as env:
        result = await env.reset(task_id="$first_task", seed=0)
        print(result.observation.instruction)
        tools = await env.list_tools()
        step = await env.call_tool(tools[0].name, {})
        print(step.observation.result, step.observation.is_error)
        end = await env.submit_answer("done")
        print(end.reward, end.observation.termination_reason, end.observation.ending["run_dir"])

asyncio.run(main())
```

Exported by `silo-gym export openenv --env $environment` (silo-gym $version).
""")


def openenv_files(desc: HubDescription) -> dict[str, str]:
    """The package's files (relative path -> text); a bundled world is copied by the caller to
    ``environment/<name>/``."""
    names = openenv_names(desc)
    values = {**names, "environment": desc.environment, "version": desc.silo_gym_version, "bundle": BUNDLE_DIR,
              "max_sessions": str(DEFAULT_MAX_SESSIONS), "first_task": desc.task_ids[0] if desc.task_ids else "",
              "tasks": ", ".join(f"`{t}`" for t in desc.task_ids) or "none",
              "variants": (" The world is variant-capable: `reset(variant=k)` plays variant k's world."
                           if desc.variant_capable else ""),
              "summary": f"{len(desc.tasks)} task(s) over {len(desc.tools) - 1} tool(s); the reward is the silo "
                         "verifier's, given when the episode ends."}
    return {
        "openenv.yaml": _YAML.substitute(values),
        "pyproject.toml": _PYPROJECT.substitute(values),
        "README.md": _README.substitute(values),
        "__init__.py": _INIT.substitute(values),
        "models.py": _MODELS,
        "client.py": _CLIENT.substitute(values),
        "silo_env.json": json.dumps(desc.settings(), indent=2) + "\n",
        "server/__init__.py": "",
        "server/app.py": _APP.substitute(values),
        "server/Dockerfile": _DOCKERFILE.substitute(values),
        "server/requirements.txt": f"silo-gym[openenv]=={desc.silo_gym_version}\n",
        "wheels/README.md": (f"Put the silo-gym {desc.silo_gym_version} wheel here when it is not on your package "
                             "index (`pip wheel --no-deps <silo-gym checkout> -w wheels`).\n"),
    }
