"""The files of an exported verifiers v1 taskset package (``silo-gym export verifiers``;
docs/hubs.md).

The layout is the one ``vf-init`` scaffolds: a distribution ``silo-<env>`` whose module
``silo_<env>`` exports one ``Taskset`` subclass through ``__all__`` (so ``vf-eval silo-<env>``
finds it), with the tool server in ``silo_<env>/toolset.py`` (run per rollout as ``python -m``).
The classes are thin subclasses of :mod:`silo_gym.integrations.verifiers_v1`'s, naming the
environment; a bundled world sits in ``silo_<env>/environment/<name>/``.
"""

from __future__ import annotations

import json
from string import Template

from .description import HubDescription
from .package import BUNDLE_DIR

__all__ = ["verifiers_bundle", "verifiers_files", "verifiers_names"]


def verifiers_names(desc: HubDescription) -> dict[str, str]:
    """``module`` (the import name), ``dist`` (= the taskset id), ``camel`` (class name stem)."""
    camel = "".join(part.capitalize() for part in desc.module.split("_") if part)
    return {"module": f"silo_{desc.module}", "dist": f"silo-{desc.slug}", "camel": f"Silo{camel}"}


def verifiers_bundle(desc: HubDescription) -> str:
    return f"{verifiers_names(desc)['module']}/{BUNDLE_DIR}/{desc.environment}"


_PYPROJECT = Template("""\
[build-system]
requires = ["setuptools>=68", "wheel"]
build-backend = "setuptools.build_meta"

[project]
name = "$dist"
version = "$version"
description = "The silo environment \\"$environment\\" as a verifiers v1 taskset (exported by silo-gym $version)"
readme = "README.md"
requires-python = ">=3.11"
dependencies = ["silo-gym[verifiers]==$version"]

[tool.setuptools]
packages = ["$module"]
include-package-data = false

[tool.setuptools.package-data]
$module = ["silo_env.json", "$bundle/**/*"]
""")

_INIT = Template('''\
"""The silo environment "$environment" as a verifiers v1 taskset: ``vf-eval $dist``."""

from .taskset import ${camel}Taskset

__all__ = ["${camel}Taskset"]
''')

_SETTINGS = '''\
"""This package's silo environment: its name, limits and tasks (silo_env.json), and where a
bundled world lives."""

import json
from pathlib import Path

from silo_gym.integrations.verifiers_v1 import package_path

SETTINGS = json.loads((Path(__file__).resolve().parent / "silo_env.json").read_text(encoding="utf-8"))
ENVIRONMENT: str = SETTINGS["environment"]
ENVIRONMENT_PATH = package_path(__file__, ENVIRONMENT, SETTINGS["bundled"])
'''

_TOOLSET = Template('''\
"""The per-rollout tool server: the live silo episode (run by verifiers as ``python -m $module.toolset``)."""

from silo_gym.integrations.verifiers_v1 import SiloToolset

from ._settings import ENVIRONMENT, ENVIRONMENT_PATH


class ${camel}Toolset(SiloToolset):
    """The tools of the silo environment "$environment", and submit_answer."""

    ENVIRONMENT = ENVIRONMENT
    ENVIRONMENT_PATH = ENVIRONMENT_PATH


if __name__ == "__main__":
    ${camel}Toolset.run()
''')

_TASKSET = Template('''\
"""The taskset of the silo environment "$environment": tasks x seeds x variants (see README.md)."""

import verifiers.v1 as vf
from silo_gym.integrations.verifiers_v1 import SiloTask, SiloTaskset, SiloTasksetConfig

from ._settings import ENVIRONMENT, ENVIRONMENT_PATH, SETTINGS
from .toolset import ${camel}Toolset


class ${camel}Task(SiloTask):
    """One rollout: the tool server plays it live, finalize records it, the reward is the verifier's."""

    ENVIRONMENT = ENVIRONMENT
    ENVIRONMENT_PATH = ENVIRONMENT_PATH
    TOOLSET = ${camel}Toolset


class ${camel}Taskset(SiloTaskset, vf.Taskset[${camel}Task, SiloTasksetConfig]):
    """Rows of the silo environment "$environment" (``--env.taskset.seeds``, ``.variants``, ``.infinite``)."""

    ENVIRONMENT = ENVIRONMENT
    ENVIRONMENT_PATH = ENVIRONMENT_PATH
    TASK = ${camel}Task
    TASK_IDS = tuple(SETTINGS["taskIds"])
    VARIANT_CAPABLE = SETTINGS["variantCapable"]
    MAX_TOOL_CALLS = SETTINGS["maxToolCalls"]
    TIMEOUT_MS = SETTINGS["timeoutMs"]
''')

_README = Template("""\
# $dist: the silo environment "$environment" for verifiers

A verifiers v1 taskset package (Prime's Environments Hub format). $summary

- **Tasks**: $tasks. Each row is a task, a seed and a variant: `--env.taskset.seeds N` rows per
  task, `--env.taskset.task-ids '[...]'` to choose tasks.$variants
- **Tools**: the environment's own, with their JSON Schemas, plus `submit_answer`
  (`{"answer": ...}`), served per rollout by `$module.toolset` (tool names unprefixed).
- **Reward**: `silo`, the silo verifier's reward (the number in the run's `result.json`).
  **Metrics**: `passed`, one `check/<label>` per check, `tool_calls`, `tool_errors`,
  `tool_error_rate`.
- **Runs**: every rollout is recorded as a Silo run directory (`trace.jsonl`, `result.json`,
  `state-diff.json`, `run.json`) under `--env.taskset.task.runs-dir` (default `.silo/runs`);
  `trace.info["silo"]["run_dir"]` names it.

## Evaluate

```bash
pip install --find-links wheels .          # silo-gym $version from your index or wheels/
vf-eval $dist -m MODEL --client.base-url http://127.0.0.1:8000/v1 --client.api-key-var KEY \\
    --env.agent.harness.id null --env.agent.runtime.type subprocess --no-push -n 6
```

`--env.agent.harness.id null` is verifiers' plain chat loop and `--env.agent.runtime.type
subprocess` runs it on this machine; any other harness and runtime work the same way.

Exported by `silo-gym export verifiers --env $environment` (silo-gym $version).
""")


def verifiers_files(desc: HubDescription) -> dict[str, str]:
    """The package's files (relative path -> text)."""
    names = verifiers_names(desc)
    module = names["module"]
    values = {**names, "environment": desc.environment, "version": desc.silo_gym_version,
              "bundle": f"{BUNDLE_DIR}", "tasks": ", ".join(f"`{t}`" for t in desc.task_ids) or "none",
              "variants": (" The world is variant-capable: `--env.taskset.variants true` draws a variant world "
                           "per row from its seed, and `--env.taskset.infinite true` makes the rows endless."
                           if desc.variant_capable else ""),
              "summary": f"{len(desc.tasks)} task(s) over {len(desc.tools) - 1} tool(s); rewards come from the silo "
                         "verifier when the episode ends."}
    return {
        "pyproject.toml": _PYPROJECT.substitute(values),
        "README.md": _README.substitute(values),
        f"{module}/__init__.py": _INIT.substitute(values),
        f"{module}/_settings.py": _SETTINGS,
        f"{module}/toolset.py": _TOOLSET.substitute(values),
        f"{module}/taskset.py": _TASKSET.substitute(values),
        f"{module}/silo_env.json": json.dumps(desc.settings(), indent=2) + "\n",
        "wheels/README.md": (f"Put the silo-gym {desc.silo_gym_version} wheel here when it is not on your package "
                             "index (`pip wheel --no-deps <silo-gym checkout> -w wheels`).\n"),
    }
