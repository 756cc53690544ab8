"""The files of an exported NeMo Gym resources server (``silo-gym export nemo-gym``; docs/hubs.md).

The output mirrors a NeMo Gym checkout, so it is copied over one's root: a resources server in
``resources_servers/silo_<env>/`` (``app.py`` with a ``GymnasiumServer`` subclass, its config in
``configs/``, example rows in ``data/example.jsonl`` with the tools in Responses format,
``requirements.txt``, ``tests/``) and its environment entry in ``environments/silo_<env>/``
(``manifest.yaml`` with ``determinism: seeded``, ``config.yaml``). The server class is a thin
subclass of :class:`silo_gym.integrations.nemo_gym.SiloGymnasiumServer`; a bundled world sits in
``resources_servers/silo_<env>/environment/<name>/``.
"""

from __future__ import annotations

import json
from string import Template
from typing import Any

from .description import HubDescription
from .package import BUNDLE_DIR

__all__ = ["example_rows", "nemo_gym_bundle", "nemo_gym_files", "nemo_gym_names"]


def nemo_gym_names(desc: HubDescription) -> dict[str, str]:
    """``name`` (the server and environment name), ``camel`` (class name stem)."""
    camel = "".join(part.capitalize() for part in desc.module.split("_") if part)
    return {"name": f"silo_{desc.module}", "camel": f"Silo{camel}"}


def nemo_gym_bundle(desc: HubDescription) -> str:
    return f"resources_servers/{nemo_gym_names(desc)['name']}/{BUNDLE_DIR}/{desc.environment}"


def example_rows(desc: HubDescription) -> list[dict[str, Any]]:
    """One row per task (seed 0, the canonical world): the instruction as the user message, the
    tools in Responses format, ``task_id``/``seed``/``variant`` for ``/reset``, the agent ref."""
    name = nemo_gym_names(desc)["name"]
    tools = [tool.responses() for tool in desc.tools]
    return [{"responses_create_params": {"input": [{"role": "user", "content": task.instruction}], "tools": tools},
             "task_id": task.id, "seed": 0, "variant": None,
             "agent_ref": {"type": "responses_api_agents", "name": f"{name}_gymnasium_agent"}}
            for task in desc.tasks]


_APP = Template('''\
"""NeMo Gym resources server for the silo environment "$environment" (exported by silo-gym $version).

Each session is one recorded silo episode: /reset starts the row's task, /step runs the model's
function calls (a reply without calls is the final answer), /close ends an unfinished episode.
"""

import json
from pathlib import Path

from silo_gym.integrations.nemo_gym import SiloGymnasiumServer, SiloResourcesServerConfig, package_path

SETTINGS = json.loads((Path(__file__).resolve().parent / "silo_env.json").read_text(encoding="utf-8"))


class ${camel}ResourcesServerConfig(SiloResourcesServerConfig):
    pass


class ${camel}ResourcesServer(SiloGymnasiumServer):
    config: ${camel}ResourcesServerConfig
    ENVIRONMENT = SETTINGS["environment"]
    ENVIRONMENT_PATH = package_path(__file__, SETTINGS["environment"], SETTINGS["bundled"])
    MAX_TOOL_CALLS = SETTINGS["maxToolCalls"]
    TIMEOUT_MS = SETTINGS["timeoutMs"]


if __name__ == "__main__":
    ${camel}ResourcesServer.run_webserver()
''')

_CONFIG = Template("""\
$name:
  resources_servers:
    $name:
      allowed_agents: [gymnasium_agent]
      entrypoint: app.py
      domain: agent
      verified: false
      description: The silo environment $environment - $count tool-use task(s), graded by Silo verifiers
      value: Train and evaluate tool-calling agents on a simulated business system with byte-stable run records
      runs_dir: .silo/runs

${name}_gymnasium_agent:
  responses_api_agents:
    gymnasium_agent:
      entrypoint: app.py
      resources_server:
        type: resources_servers
        name: $name
      model_server:
        type: responses_api_models
        name: policy_model
      datasets:
        - name: example
          type: example
          jsonl_fpath: $data_path
          license: $license
      # one step is one model reply; a reply may hold several tool calls
      max_steps: $max_steps

${name}_environment_server:
  environment_servers:
    legacy_agent:
      entrypoint: app.py
      agent_server:
        type: responses_api_agents
        name: ${name}_gymnasium_agent
""")

_MANIFEST = Template("""\
name: $name
version: $version
experimental: true
kind: environment
integration_profile: custom-gym-agent-loop
domain: agent
description: The silo environment $environment as a multi-step tool-use environment; the reward is the
  Silo verifier's, given when the episode ends.
modality: text
licensing: $license
authors:
- silo-gym
reward:
  range:
  - 0.0
  - 1.0
  higher_is_better: true
determinism: seeded
resources_server: $name
agent_server: gymnasium_agent
datasets:
- name: example
  type: example
  jsonl_fpath: $data_path
  num_repeats: 1
model_server: policy_model
session_model: episode
state: per_session
lifecycle: active
""")

_TEST = Template('''\
"""The exported silo resources server, driven through NeMo Gym's own server classes and routes."""

import json
from pathlib import Path
from unittest.mock import MagicMock

from fastapi.testclient import TestClient

from nemo_gym.server_utils import ServerClient
from resources_servers.$name.app import ${camel}ResourcesServer, ${camel}ResourcesServerConfig

HERE = Path(__file__).resolve().parents[1]
ROWS = [json.loads(line) for line in (HERE / "data" / "example.jsonl").read_text().splitlines() if line.strip()]


def _client(tmp_path):
    config = ${camel}ResourcesServerConfig(host="", port=0, entrypoint="", name="$name", runs_dir=str(tmp_path))
    server = ${camel}ResourcesServer(config=config, server_client=MagicMock(spec=ServerClient))
    return TestClient(server.setup_webserver())


def _reply(output):
    return {"id": "resp", "object": "response", "created_at": 0.0, "status": "completed", "model": "test",
            "output": output, "parallel_tool_calls": False, "tool_choice": "auto", "tools": []}


def _text(text):
    return {"id": "msg", "type": "message", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}]}


def _call(name, arguments, call_id="call_1"):
    return {"type": "function_call", "call_id": call_id, "name": name, "arguments": json.dumps(arguments)}


def test_every_example_row_plays_to_a_graded_recorded_end(tmp_path):
    for row in ROWS:
        client = _client(tmp_path / row["task_id"])
        reset = client.post("/reset", json=row)
        assert reset.status_code == 200, reset.text
        assert reset.json()["info"]["supports_explicit_close"] is True
        body = {**row, "response": _reply([_call(row["responses_create_params"]["tools"][0]["name"], {})])}
        step = client.post("/step", json=body).json()
        assert step["terminated"] is False and step["info"]["tool_outputs"][0]["call_id"] == "call_1"
        end = client.post("/step", json={**row, "response": _reply([_text("done")])}).json()
        assert end["terminated"] is True and end["truncated"] is False
        result = json.loads((Path(end["info"]["run_dir"]) / "result.json").read_text())
        assert end["reward"] == result["reward"] and end["info"]["result"] == result


def test_close_ends_a_running_episode_as_agent_error(tmp_path):
    client = _client(tmp_path)
    assert client.post("/reset", json=ROWS[0]).status_code == 200
    assert client.post("/close", json={}).json() == {"closed": True}
    (run,) = tmp_path.iterdir()
    result = json.loads((run / "result.json").read_text())
    assert result["terminationReason"] == "agent_error"


def test_step_before_reset_is_refused(tmp_path):
    response = _client(tmp_path).post("/step", json={**ROWS[0], "response": _reply([_text("hi")])})
    assert response.status_code == 400
''')

_SERVER_README = Template("""\
# $name: the silo environment "$environment" for NeMo Gym

A `GymnasiumServer` resources server (use it with `gymnasium_agent`). $summary

- **Rows** (`data/example.jsonl`): one per task: the instruction as the user message, the tools
  in Responses format, and `task_id`, `seed`, `variant` for `/reset`. Tasks: $tasks.$variants
- **Steps**: each model reply's function calls run in order and come back as
  `function_call_output` items; a reply without calls is the final answer. Calling
  `submit_answer` or hitting a limit also ends the episode.
- **Reward**: the Silo verifier's, on the ending step (the number in the run's `result.json`);
  its `info` holds `result`, `state_diff`, `termination_reason`, `passed` and `run_dir`.
- **Runs**: every session is recorded as a Silo run directory under `runs_dir` (config,
  default `.silo/runs`). Determinism: seeded (the same row and calls give the same bytes).

```bash
gym env test +entrypoint=resources_servers/$name          # NeMo Gym's own test runner
gym env start --resources-server $name --model-type vllm_model
```

Exported by `silo-gym export nemo-gym --env $environment` (silo-gym $version).
""")

_TOP_README = Template("""\
# NeMo Gym files for the silo environment "$environment"

Copy these folders over the root of a NeMo Gym checkout (`cp -r resources_servers environments
<Gym>/`), then install silo-gym $version into the server's venv (`requirements.txt` names it;
put its wheel in `resources_servers/$name/wheels/` when it is not on your index).

- `resources_servers/$name/`: the resources server (see its README.md).
- `environments/$name/`: the environment entry (`manifest.yaml`, `config.yaml`).
""")


def nemo_gym_files(desc: HubDescription) -> dict[str, str]:
    """The files (relative path -> text) of the server and its environment entry."""
    names = nemo_gym_names(desc)
    name = names["name"]
    server = f"resources_servers/{name}"
    values = {**names, "environment": desc.environment, "version": desc.silo_gym_version,
              "count": str(len(desc.tasks)), "license": "MIT", "max_steps": str(desc.max_tool_calls + 1),
              "data_path": f"{server}/data/example.jsonl",
              "tasks": ", ".join(f"`{t}`" for t in desc.task_ids) or "none",
              "variants": (" The world is variant-capable: a row with `\"variant\": k` plays variant k's world "
                           "(render its instruction with `silo-gym` first)." if desc.variant_capable else ""),
              "summary": f"{len(desc.tasks)} task(s) over {len(desc.tools) - 1} tool(s)."}
    rows = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in example_rows(desc))
    return {
        "README.md": _TOP_README.substitute(values),
        f"{server}/app.py": _APP.substitute(values),
        f"{server}/configs/{name}.yaml": _CONFIG.substitute(values),
        f"{server}/data/example.jsonl": rows,
        f"{server}/requirements.txt": f"-e nemo-gym[dev] @ ../../\nsilo-gym=={desc.silo_gym_version}\n",
        f"{server}/README.md": _SERVER_README.substitute(values),
        f"{server}/silo_env.json": json.dumps(desc.settings(), indent=2) + "\n",
        f"{server}/tests/__init__.py": "",
        f"{server}/tests/test_app.py": _TEST.substitute(values),
        f"{server}/wheels/README.md": (f"Put the silo-gym {desc.silo_gym_version} wheel here when it is not on your "
                                       "package index.\n"),
        f"environments/{name}/manifest.yaml": _MANIFEST.substitute({**values, "version": "0.1.0"}),
        f"environments/{name}/config.yaml": _CONFIG.substitute(values),
    }
