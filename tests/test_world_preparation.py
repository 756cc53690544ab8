"""World preparation in one module (issue 23 item 4): ``silo_gym.world`` states the variant hook
contract once; ``reset`` prepares worlds through it and ``env validate`` judges hooks by its
rules."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from silo_gym import SiloError, env, validate_variants, world
from silo_gym.models import Task

TASK = Task.model_validate({"id": "T-1", "title": "t", "instruction": "Count the rows.",
                            "verifierId": "v", "difficulty": "easy"})


class _Module:
    """An entrypoint module's hooks, as attributes."""

    def __init__(self, **hooks: Any) -> None:
        self.__dict__.update(hooks)


class _Env:
    """What WorldPreparer reads of a loaded environment: ``create_state(variant)``."""

    def __init__(self, build: Any) -> None:
        self.build = build

    def create_state(self, variant: int | None = None) -> Any:
        return self.build(variant)


def _world(variant: int | None) -> dict[str, Any]:
    return {"now": "2026-01-01", "rows": [{"id": "R-1"}] * (1 if variant is None else 1 + variant % 3)}


def test_the_rules_are_one_set_shared_by_reset_and_validation() -> None:
    for name in ("hook_strings", "world_snapshot", "world_type_problem"):
        assert getattr(env, name) is getattr(world, name)
    assert validate_variants.hook_strings is world.hook_strings
    assert world.hook_strings(("a", "b")) == ["a", "b"]
    assert world.hook_strings(["a", 1]) is None and world.hook_strings("a") is None
    assert world.rendered_instruction("Do it.") == "Do it."
    assert world.rendered_instruction("  \n") is None and world.rendered_instruction(3) is None


def test_hooks_are_the_callable_attributes() -> None:
    def create_state(variant=None):  # type: ignore[no-untyped-def]
        return _world(variant)

    hooks = world.WorldHooks(_Module(create_state=create_state, render_instruction="not callable",
                                     world_problems=lambda state: []))
    assert hooks.variant_capable is True
    assert hooks.render_instruction is None and hooks.task_preconditions is None
    assert hooks.exported() == ["world_problems"]
    assert world.WorldHooks(_Module(create_state=lambda: {})).variant_capable is False


def _preparer(**hooks: Any) -> world.WorldPreparer:
    def create_state(variant=None):  # type: ignore[no-untyped-def]
        return _world(variant)

    return world.WorldPreparer("rows", _Env(_world), world.WorldHooks(_Module(create_state=create_state, **hooks)))


def test_a_drawn_variant_meets_the_preconditions_and_gets_its_instruction() -> None:
    preparer = _preparer(
        task_preconditions=lambda task, state: [] if len(state["rows"]) == 3 else ["needs three rows"],
        render_instruction=lambda task, state: f"Count the {len(state['rows'])} rows.",
    )
    prepared = preparer.prepare(TASK, None, True, np.random.default_rng(0))
    assert prepared.variant is not None and prepared.variant % 3 == 2
    assert prepared.task.instruction == "Count the 3 rows." and TASK.instruction == "Count the rows."
    assert prepared.snapshot.restore() == prepared.state
    canonical = preparer.prepare(TASK, None, False, np.random.default_rng(0))
    assert canonical.variant is None and canonical.task is TASK and preparer.hooks.canonical_exact is True


def test_a_hook_breaking_the_contract_refuses_the_world() -> None:
    preparer = _preparer(render_instruction=lambda task, state: " ")
    with pytest.raises(SiloError, match='must return a non-empty str for task "T-1", got str') as caught:
        preparer.prepare(TASK, 4, False, np.random.default_rng(0))
    assert caught.value.code == "runtime_contract_invalid"
    unmet = _preparer(task_preconditions=lambda task, state: ["no rows to count."])
    with pytest.raises(SiloError, match="does not meet the preconditions of task \"T-1\": no rows to count[.]$"):
        unmet.prepare(TASK, 4, False, np.random.default_rng(0))


def test_a_world_shared_with_the_previous_episode_is_refused() -> None:
    preparer = _preparer()
    first = preparer.prepare(TASK, None, False, np.random.default_rng(0))
    same = world.WorldPreparer("rows", _Env(lambda variant: first.state), preparer.hooks)
    with pytest.raises(SiloError, match="returned objects of the previous episode's world"):
        same.prepare(TASK, None, False, np.random.default_rng(0), previous=first.state)


def _kit_preparer(build: Any, parts: Any = None) -> tuple[world.WorldPreparer, Any]:
    from silo_gym import kit

    maker = kit.StateMaker(kit.CanonicalWorld(build), ".unused:generate", package=__package__)
    if parts is not None:
        maker.canonical_parts = parts
    return world.WorldPreparer("rows", _Env(maker), world.WorldHooks(_Module(create_state=maker))), maker


def test_a_kit_world_keeps_its_canonical_texts_as_the_snapshot_of_every_canonical_reset() -> None:
    preparer, maker = _kit_preparer(lambda: {"now": "2026-01-01", "rows": {"R-1": {"id": "R-1", "n": 2.5}}})
    assert preparer.hooks.canonical_parts is not None
    first = preparer.prepare(TASK, None, False, np.random.default_rng(0))
    assert preparer.hooks.canonical_snapshot is first.snapshot and preparer.hooks.canonical_parts is None
    assert first.snapshot.parts == maker.canonical_parts() == {"now": b'"2026-01-01"',
                                                              "rows": b'{"R-1":{"id":"R-1","n":2.5}}'}
    second = preparer.prepare(TASK, None, False, np.random.default_rng(0), previous=first.state)
    assert second.snapshot is first.snapshot and second.state is not first.state
    assert second.snapshot.restore() == second.state


def test_canonical_texts_that_are_not_the_world_are_never_used() -> None:
    lie = {"now": b'"2026-01-01"', "rows": b"{}"}  # the world has a row these texts lack
    preparer, _ = _kit_preparer(lambda: {"now": "2026-01-01", "rows": {"R-1": {"id": "R-1"}}}, lambda: lie)
    first = preparer.prepare(TASK, None, False, np.random.default_rng(0))
    second = preparer.prepare(TASK, None, False, np.random.default_rng(0))
    assert preparer.hooks.canonical_snapshot is None and second.snapshot is not first.snapshot
    assert second.snapshot.parts is not None and second.snapshot.parts["rows"] == b'{"R-1":{"id":"R-1"}}'

    def broken() -> Any:
        raise RuntimeError("no texts")

    raising, _ = _kit_preparer(lambda: {"now": "2026-01-01"}, broken)
    assert raising.prepare(TASK, None, False, np.random.default_rng(0)).snapshot.restore() == {"now": "2026-01-01"}
    assert raising.hooks.canonical_snapshot is None


def test_a_world_is_built_with_the_cyclic_collector_held_off() -> None:
    import gc

    seen: list[bool] = []

    def build(variant: int | None) -> dict[str, Any]:
        seen.append(gc.isenabled())
        return _world(variant)

    preparer = world.WorldPreparer("rows", _Env(build), world.WorldHooks(_Module(create_state=build)))
    assert gc.isenabled()
    prepared = preparer.prepare(TASK, None, False, np.random.default_rng(0))
    assert seen == [False] and gc.isenabled()
    assert prepared.snapshot.restore() == prepared.state
    big, _ = world.world_snapshot({"rows": [{"id": i} for i in range(20_000)]})
    assert big is not None and big.parts is not None
    runs: list[tuple[str, int]] = []

    def count(phase: str, info: dict[str, Any]) -> None:
        runs.append((phase, info["generation"]))

    gc.callbacks.append(count)
    try:
        import orjson

        orjson.loads(big.parts["rows"])
        assert runs  # parsing that many dicts runs the collector ...
        runs.clear()
        assert len(big.restore()["rows"]) == 20_000
        # ... but not while the snapshot is restored: only the pause's young collection on entry
        assert runs == [("start", 1), ("stop", 1)]
    finally:
        gc.callbacks.remove(count)
