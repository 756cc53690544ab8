"""The code-review findings of issue 19 (item 21), each kept as a test.

- ``env validate`` and ``reset`` read a ``task_preconditions`` hook the same way (a tuple of
  strings included);
- every code a ``SiloError`` is raised with is a declared code (``output_invalid`` was not);
- two stacked ``RecordRun``s each give their own run directory's files their own run id;
- a fresh environment load does not leave the previous load's modules in ``sys.modules``, and
  code of the superseded load still imports lazily;
- ``percent_one_decimal(a, 0)`` gives JavaScript's answer instead of ``ZeroDivisionError``;
- closing a collection's progress-reporting iterator closes its source.
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

import silo_gym
from silo_gym.errors import SILO_ERROR_CODES, SiloError
from silo_gym.jsonfmt import dumps_compact
from silo_gym.loader import open_environment
from silo_gym.rounding import percent_one_decimal
from silo_gym.wrappers import RecordRun

ROOT = Path(__file__).resolve().parents[1]

# --- task_preconditions returning a tuple ---------------------------------------------------------

TUPLE_HOOK = '''
from silo_gym import bind_tools as _bind

from .tools import tools
from .verifiers import verifiers


def create_state(variant=None):
    return {"now": "2026-09-15", "count": 0, "label": "start" if variant is None else f"v{variant}",
            "rows": [{"id": "A", "n": 1}, {"id": "B", "n": 2}]}


def task_preconditions(task, state):
    if state["label"] == "v3":
        return ("Variant three has no counter to bump.",)   # a tuple of strings
    return ()


def bind_tools(state):
    return _bind(state, tools)
'''


def test_validate_and_reset_read_a_tuple_from_task_preconditions_alike(tmp_path: Path, make_env_dir: Any,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    make_env_dir(tmp_path / ".silo" / "environments", "tuplehook", init=TUPLE_HOOK)
    monkeypatch.chdir(tmp_path)
    report = silo_gym.validate("tuplehook", cwd=tmp_path)
    codes = [f.code for f in report.findings]
    assert "variant_hook_failed" not in codes, report.findings
    assert report.ok
    env = silo_gym.SiloEnv("tuplehook", "TASK-001", cwd=tmp_path)
    _, info = env.reset(options={"variant": 2})
    assert info["variant"] == 2
    with pytest.raises(SiloError) as refused:
        env.reset(options={"variant": 3})
    assert refused.value.code == "variant_preconditions_unmet"
    assert "Variant three has no counter to bump." in str(refused.value)
    env.close()


NOT_STRINGS = TUPLE_HOOK.replace('("Variant three has no counter to bump.",)', '(3,)')


def test_validate_and_reset_refuse_a_hook_result_that_is_not_strings_alike(tmp_path: Path,
                                                                          make_env_dir: Any) -> None:
    make_env_dir(tmp_path / ".silo" / "environments", "badhook", init=NOT_STRINGS)
    report = silo_gym.validate("badhook", cwd=tmp_path)
    assert any(f.code == "variant_hook_failed" and "returned tuple, not a list of strings" in f.message
               for f in report.findings), report.findings
    env = silo_gym.SiloEnv("badhook", "TASK-001", cwd=tmp_path)
    with pytest.raises(SiloError) as refused:
        env.reset(options={"variant": 3})
    assert refused.value.code == "runtime_contract_invalid"
    assert "must return a list (or tuple) of str, got tuple" in str(refused.value)


# --- declared codes -------------------------------------------------------------------------------


def test_every_code_a_silo_error_is_raised_with_is_declared() -> None:
    raised: dict[str, str] = {}
    for path in sorted((ROOT / "silo_gym").rglob("*.py")):
        for code in re.findall(r'SiloError\(\s*"([a-z_]+)"', path.read_text(encoding="utf-8")):
            raised.setdefault(code, path.relative_to(ROOT).as_posix())
    assert "output_invalid" in raised and len(raised) > 20  # the scan finds what it should
    undeclared = {code: where for code, where in raised.items() if code not in SILO_ERROR_CODES}
    assert undeclared == {}


# --- stacked RecordRun ----------------------------------------------------------------------------


def test_two_stacked_record_runs_each_name_their_own_run(tmp_path: Path) -> None:
    inner_dir, outer_dir = tmp_path / "inner", tmp_path / "outer"
    env = RecordRun(RecordRun(gym.make("silo/demo-TASK-004"), runs_dir=inner_dir), runs_dir=outer_dir)
    env.reset(seed=0)
    env.step({"tool": "forecast_report", "input": {}})
    env.step({"answer": "The weighted pipeline is $507500"})
    env.close()
    (inner,), (outer,) = list(inner_dir.iterdir()), list(outer_dir.iterdir())
    assert inner.name != outer.name
    for run_dir in (inner, outer):
        run = json.loads((run_dir / "run.json").read_text())
        first = json.loads((run_dir / "trace.jsonl").read_text().splitlines()[0])
        assert run["runId"] == first["runId"] == run_dir.name
    # apart from the ids and the clock, both directories hold the same run
    assert (inner / "result.json").read_bytes() == (outer / "result.json").read_bytes()
    assert (inner / "state-diff.json").read_bytes() == (outer / "state-diff.json").read_bytes()
    from silo_gym.replay import replay_run

    for run_dir in (inner, outer):
        assert replay_run(run_dir).identical, run_dir


# --- module leak ----------------------------------------------------------------------------------


def _load_modules() -> set[str]:
    return {name for name in sys.modules if name.startswith("_silo_env_")}


def test_fresh_loads_do_not_pile_up_modules() -> None:
    open_environment("demo", fresh=True)
    one_load = _load_modules()
    for _ in range(8):
        open_environment("demo", fresh=True)
    after = _load_modules()
    demo_names = {name for name in after if name.startswith("_silo_env_demo_")}
    packages = {name.partition(".")[0] for name in demo_names}
    assert len(packages) == 1, sorted(packages)  # one demo load in sys.modules, the latest
    assert len(after) <= len(one_load) + 5


def test_an_env_of_a_superseded_load_still_imports_lazily() -> None:
    env = silo_gym.SiloEnv("demo", "TASK-001", variants=True)  # the cached load
    open_environment("demo", fresh=True)  # supersedes it: its modules leave sys.modules
    open_environment("demo", fresh=True)
    # the demo's create_state imports its variant generator on first use (a lazy relative import)
    observation, info = env.reset(options={"variant": 7})
    assert info["variant"] == 7 and isinstance(observation, str) and observation
    _, reward, terminated, _, _ = env.step({"answer": "x"})
    assert terminated and 0.0 <= float(reward) <= 1.0
    env.close()


def test_a_superseded_load_is_imported_again_as_the_same_objects() -> None:
    import importlib

    old = open_environment("project", fresh=True).module
    state = old.state
    open_environment("project", fresh=True)
    assert old.__name__ not in sys.modules and f"{old.__name__}.state" not in sys.modules
    again = importlib.import_module(f"{old.__name__}.state")
    assert again is state  # nothing ran again: the same module, its package back in sys.modules
    assert sys.modules[old.__name__] is old
    assert old.__spec__ is not None and old.__spec__.origin is not None and old.__spec__.origin.endswith("__init__.py")


# --- percent_one_decimal --------------------------------------------------------------------------


def test_percent_of_zero_is_what_javascript_gives() -> None:
    assert math.isnan(percent_one_decimal(0, 0))
    assert percent_one_decimal(3, 0) == math.inf
    assert percent_one_decimal(-3, 0) == -math.inf
    assert percent_one_decimal(3, -0.0) == -math.inf
    assert math.isnan(percent_one_decimal(math.nan, 0))
    assert dumps_compact([percent_one_decimal(0, 0), percent_one_decimal(1, 0)]) == "[null,null]"
    assert percent_one_decimal(1, 3) == 33.3  # unchanged elsewhere


# --- _with_progress closes its source -------------------------------------------------------------


def test_closing_a_progress_iterator_early_closes_its_source() -> None:
    from silo_gym.data.collect import _with_progress

    closed: list[bool] = []

    def source() -> Iterator[tuple[tuple[int, int, int], dict[str, Any]]]:
        try:
            for i in range(10):
                yield (0, 0, i), {"episode": i}
        finally:
            closed.append(True)

    inner = source()
    seen: list[int] = []
    wrapped = _with_progress(inner, lambda row: seen.append(row["episode"]))
    assert next(wrapped)[1] == {"episode": 0}
    wrapped.close()
    assert closed == [True] and seen == [0]
    assert inner.gi_frame is None  # finished, not suspended
