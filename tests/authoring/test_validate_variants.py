"""``validate``'s variant findings (silo_gym.validate_variants, docs/variants.md): one deliberately
broken environment per finding, next to a sound variant-capable one."""

from __future__ import annotations

from pathlib import Path

from silo_gym import ValidationReport, validate
from silo_gym.validate_variants import SAMPLE, VARIANT_FINDING_CODES, accepts_variant

from .helpers import NAME, write_env

#: A variant-capable environment: item I-1 (the task's entity) in every world, other items drawn.
VARIANT_ENVIRONMENT = """
import copy
import random

SEED = {"items": {"I-1": {"id": "I-1", "qty": 1}}, "log": []}


def create_state(variant=None):
    if variant is None:
        return copy.deepcopy(SEED)
    rng = random.Random(variant)
    items = {"I-1": {"id": "I-1", "qty": rng.randint(1, 9)}}
    for n in range(2, 2 + rng.randint(0, 3)):
        items[f"I-{n}"] = {"id": f"I-{n}", "qty": rng.randint(0, 9)}
    return {"items": items, "log": []}
"""

HOOKS = """

def render_instruction(task, state):
    return f"Keep the {state['items']['I-1']['qty']} units of I-1 where they are."


def task_preconditions(task, state):
    return [] if "I-1" in state["items"] else ["I-1 is missing."]


def world_problems(state):
    return [f"{i} has a negative quantity." for i, item in state["items"].items() if item["qty"] < 0]
"""

INIT = """
from silo_gym import bind_tools as _bind

from .environment import create_state
from .hooks import render_instruction, task_preconditions, world_problems
from .tools import tools
from .verifiers import verifiers


def bind_tools(state):
    return _bind(state, tools)
"""

TASK = (
    '{"id": "TASK-001", "title": "Keep it", "instruction": "Keep the 1 units of I-1 where they are.", '
    '"verifierId": "VER-001", "entities": ["I-1", "ghost-id"]}\n'
)


def variant_env(root: Path, environment: str = VARIANT_ENVIRONMENT, hooks: str = HOOKS, **files: str | None) -> ValidationReport:
    changes: dict[str, str | None] = {"__init__.py": INIT, "environment.py": environment, "hooks.py": hooks,
                                      "tasks/TASK-001.json": TASK}
    changes.update({name.replace("__", "/"): text for name, text in files.items()})
    write_env(root, changes)
    return validate(NAME, cwd=root)


def found(report: ValidationReport) -> list[tuple[str, str, str]]:
    return [(f.level, f.code, f.message) for f in report.findings]


def codes(report: ValidationReport) -> list[str]:
    return [f.code for f in report.findings]


def test_a_sound_variant_environment_has_no_finding(tmp_path: Path) -> None:
    report = variant_env(tmp_path)
    assert found(report) == []
    assert report.ok


def test_capability_is_a_parameter_named_variant() -> None:
    def old() -> None: ...

    def new(variant=None) -> None: ...

    def other(k=None) -> None: ...

    assert (accepts_variant(old), accepts_variant(new), accepts_variant(other), accepts_variant(len)) == (
        False, True, False, False)
    assert 0 in SAMPLE and len(set(SAMPLE)) == len(SAMPLE) >= 16


def test_same_k_two_worlds_in_one_process(tmp_path: Path) -> None:
    clocky = VARIANT_ENVIRONMENT.replace("rng = random.Random(variant)", "rng = random.Random()")
    report = variant_env(tmp_path, clocky)
    assert codes(report) == ["variant_nondeterministic"]
    (level, _, message), = found(report)
    assert level == "error" and not report.ok
    assert message.startswith("create_state(0) built two different worlds on two calls (first difference at "
                              "state.items")
    assert "random.Random(variant)" in message


def test_same_k_another_world_in_another_process(tmp_path: Path) -> None:
    # hash() of a string is stable within a process and changes between processes
    hashed = VARIANT_ENVIRONMENT.replace(
        '"qty": rng.randint(1, 9)}}', '"qty": hash(f"v{variant}") % 9 + 1}}'
    )
    report = variant_env(tmp_path, hashed)
    assert codes(report) == ["variant_nondeterministic"]
    message = report.findings[0].message
    assert message.startswith("create_state(") and "in another process" in message
    assert "never use hash() of a string" in message


def test_a_variant_without_the_task_entity_or_with_another_shape(tmp_path: Path) -> None:
    broken = VARIANT_ENVIRONMENT.replace(
        'items = {"I-1": {"id": "I-1", "qty": rng.randint(1, 9)}}',
        'items = {"I-1": {"id": "I-1", "qty": 1}} if variant % 2 else {}',
    ).replace('return {"items": items, "log": []}', 'return {"items": items, "log": {} if variant == 4 else []}')
    report = variant_env(tmp_path, broken, hooks=HOOKS.replace('return [] if "I-1"', 'return []  # if "I-1"'))
    messages = [m for _, code, m in found(report) if code == "variant_integrity"]
    assert messages[0] == 'Variant 0: "I-1", named by TASK-001, is missing.'
    assert 'Variant 4: "log" is object, in the canonical world array.' in messages
    # "ghost-id" is not in the canonical world either, so it is never asked for
    assert not any("ghost-id" in m for m in messages)
    assert not report.ok


def test_top_level_keys_must_match(tmp_path: Path) -> None:
    extra = VARIANT_ENVIRONMENT.replace('return {"items": items, "log": []}', 'return {"log": [], "items": items}')
    report = variant_env(tmp_path, extra)
    first = [m for _, code, m in found(report) if code == "variant_integrity"][0]
    assert first == "Variant 0: top-level keys ['log', 'items'] differ from the canonical world's ['items', 'log']."


def test_world_problems_of_variants_and_of_the_canonical_world(tmp_path: Path) -> None:
    negative = VARIANT_ENVIRONMENT.replace('"qty": rng.randint(0, 9)}', '"qty": -1}').replace(
        'SEED = {"items": {"I-1": {"id": "I-1", "qty": 1}}', 'SEED = {"items": {"I-1": {"id": "I-1", "qty": -5}}')
    report = variant_env(tmp_path, negative)
    messages = [m for level, code, m in found(report) if code == "variant_integrity" and level == "error"]
    assert messages[0] == "Canonical world: I-1 has a negative quantity."
    assert any(m.startswith("Variant ") and m.endswith(" has a negative quantity.") for m in messages[1:])
    # capped: eight findings, then how many more
    assert len(messages) == 9 and messages[-1].startswith("... and ") and messages[-1].endswith(
        " more variant_integrity findings.")


def test_preconditions_that_never_hold(tmp_path: Path) -> None:
    never = HOOKS.replace('return [] if "I-1" in state["items"] else ["I-1 is missing."]',
                          'return ["The shelf is locked."]')
    report = variant_env(tmp_path, hooks=never)
    assert found(report) == [(
        "error", "variant_preconditions_unmet",
        f'Task "TASK-001" met its preconditions in none of the {len(SAMPLE)} sampled variants: The shelf is locked.',
    )]


def test_preconditions_that_hold_sometimes_are_fine(tmp_path: Path) -> None:
    sometimes = HOOKS.replace('return [] if "I-1" in state["items"] else ["I-1 is missing."]',
                              'return [] if state["items"]["I-1"]["qty"] == 7 else ["Not seven."]')
    assert found(variant_env(tmp_path, hooks=sometimes)) == []


def test_rendered_canonical_instruction_must_match_the_task_file(tmp_path: Path) -> None:
    report = variant_env(tmp_path, hooks=HOOKS.replace("Keep the {", "Please keep the {"))
    assert found(report) == [(
        "warning", "variant_instruction_mismatch",
        "render_instruction(TASK-001) on the canonical world differs from the task file's instruction from "
        "character 0: 'Please keep the 1 units of I-1 where the' instead of 'Keep the 1 units of I-1 where they are.'.",
    )]
    assert report.ok


def test_hooks_that_raise_return_the_wrong_type_or_write(tmp_path: Path) -> None:
    bad = HOOKS.replace(
        'return f"Keep the {state',
        'if len(state["items"]) > 3:\n        raise KeyError("shelf")\n    return f"Keep the {state',
    ).replace(
        'return [] if "I-1" in state["items"] else ["I-1 is missing."]',
        'return "fine"',
    ).replace(
        "def world_problems(state):\n",
        "def world_problems(state):\n    state['log'].append('checked')\n",
    )
    report = variant_env(tmp_path, hooks=bad)
    messages = [m for _, code, m in found(report) if code == "variant_hook_failed"]
    assert "world_problems(canonical world) changed the world it was given; hooks only read." in messages
    assert any(m.startswith("render_instruction(TASK-001, variant ") and m.endswith("raised KeyError: 'shelf'")
               for m in messages)
    assert "task_preconditions(TASK-001, variant 0) returned str, not a list of strings." in messages
    assert not report.ok


def test_a_variant_that_cannot_be_built(tmp_path: Path) -> None:
    fails = VARIANT_ENVIRONMENT.replace("rng = random.Random(variant)",
                                        'if variant >= 10:\n        raise ValueError("too far")\n    rng = random.Random(variant)')
    report = variant_env(tmp_path, fails)
    messages = [m for _, code, m in found(report) if code == "create_state_failed"]
    far = [k for k in SAMPLE if k >= 10]
    assert messages[:8] == [f"create_state({k}) raised ValueError: too far" for k in far[:8]]
    assert messages[8:] == [f"... and {len(far) - 8} more create_state_failed findings."]


def test_hooks_without_a_variant_parameter_are_reported(tmp_path: Path) -> None:
    plain = 'import copy\n\n\ndef create_state():\n    return {"items": {"I-1": {"id": "I-1", "qty": 1}}, "log": []}\n'
    report = variant_env(tmp_path, plain)
    assert found(report)[0] == (
        "warning", "variant_hooks_unused",
        "render_instruction, task_preconditions, world_problems are exported, but create_state() takes no "
        "variant parameter, so no variant is ever built; declare create_state(variant=None).",
    )
    assert report.ok


def test_an_environment_without_variants_gets_no_variant_finding(tmp_path: Path) -> None:
    write_env(tmp_path)
    assert validate(NAME, cwd=tmp_path).findings == []


def test_every_code_is_listed() -> None:
    assert set(VARIANT_FINDING_CODES) == {
        "variant_hooks_unused", "variant_instruction_mismatch", "variant_nondeterministic", "variant_integrity",
        "variant_hook_failed", "variant_preconditions_unmet",
    }


def test_the_crm_template_carries_the_variants(tmp_path: Path) -> None:
    import hashlib

    import orjson

    from silo_gym.loader import open_environment, open_environment_at, shipped_environments_dir
    from silo_gym.scaffold import init_environment

    init_environment("sales", template="crm", cwd=tmp_path)
    copy = open_environment("sales", cwd=tmp_path)
    demo = open_environment_at("demo", shipped_environments_dir() / "demo", fresh=True)
    assert accepts_variant(copy.module.create_state)
    for k in (0, 3, 999):
        assert hashlib.sha256(orjson.dumps(copy.module.create_state(k))).digest() == hashlib.sha256(
            orjson.dumps(demo.module.create_state(k))).digest()
    task = copy.task("TASK-001")
    assert copy.module.render_instruction(task, copy.module.create_state()) == task.instruction
    assert copy.module.task_preconditions(task, copy.module.create_state(3)) == []
    assert copy.module.world_problems(copy.module.create_state(3)) == []
