"""No silo_gym import pulls a trainer or torch unless an integration module is imported (issue 12)."""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import REPO_ROOT, subprocess_env

HEAVY = ("torch", "trl", "transformers", "skyrl_gym", "accelerate", "peft")

SCRIPT = """
import importlib, json, pkgutil, sys
import silo_gym
names = sorted(m.name for m in pkgutil.walk_packages(silo_gym.__path__, "silo_gym."))
# verifiers_v1 and nemo_gym need hub packages that make test's venv cannot hold (tests/hubs/venvs.py);
# verl and openrlhf need trainers that live in .venv-verl or only as source (make setup-verl)
skipped = {"silo_gym.__main__", "silo_gym.integrations.trl", "silo_gym.integrations.skyrl",
           "silo_gym.integrations.verifiers_v1", "silo_gym.integrations.nemo_gym",
           "silo_gym.integrations.verl", "silo_gym.integrations.openrlhf"}
for name in names:
    if name not in skipped:
        importlib.import_module(name)
after_core = sorted(m for m in %(heavy)r if m in sys.modules)
import silo_gym.integrations.trl
after_trl = sorted(m for m in %(heavy)r if m in sys.modules)
print(json.dumps({"modules": names, "core": after_core, "trl": after_trl}))
"""


def _run() -> dict[str, list[str]]:
    out = subprocess.run([sys.executable, "-c", SCRIPT % {"heavy": HEAVY}], cwd=REPO_ROOT, env=subprocess_env(),
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def test_no_silo_gym_module_but_the_integrations_imports_torch_or_a_trainer() -> None:
    found = _run()
    assert "silo_gym.integrations.trl" in found["modules"] and "silo_gym.data.sft" in found["modules"]
    assert found["core"] == []
    # the TRL adapter itself needs neither torch nor trl to build environments and rewards
    assert found["trl"] == []
