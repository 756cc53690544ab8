"""Reward components: the verifier's checks as the named parts of an episode's reward.

Silo's reward is ``round2(passed checks / all checks)`` (silo-format §4.2), so the checks are its
parts. On the step that ends an episode the env's ``info`` carries them (docs/training.md,
"Reward components"):

- ``reward_components``: ``{label: {"passed": bool, "required": bool}}``, one entry per check in
  the verifier's order. A label a verifier used more than once gets ``" #2"``, ``" #3"``... on its
  later uses (the first keeps the label as written), so every check has an entry;
- ``required_fraction``: passed required checks / required checks (a verifier has at least one);
- ``optional_fraction``: passed optional checks / optional checks, ``1.0`` when there is none
  (nothing optional was missed; the value keeps one type for vector info batching).

:func:`components_reward` adds the parts back up under Silo's rounding rule and gives exactly the
reward ``result.json`` holds. The same three fields are columns of ``silo_gym.data.collect`` rows.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .rounding import round2
from .verifiers import VerifierCheck

__all__ = ["component_fields", "components_reward", "reward_components"]


def _parts(check: Any) -> tuple[str, bool, bool]:
    """``(label, passed, required)`` of a ``VerifierCheck`` or of its JSON form (a ``dict``)."""
    if isinstance(check, dict):
        return str(check["label"]), bool(check["passed"]), bool(check["required"])
    return str(check.label), bool(check.passed), bool(check.required)


def _free_label(label: str, taken: dict[str, Any]) -> str:
    """``label #2``, ``label #3``...: the first that ``taken`` does not hold."""
    n = 2
    while f"{label} #{n}" in taken:
        n += 1
    return f"{label} #{n}"


def reward_components(checks: Iterable[Any]) -> dict[str, dict[str, bool]]:
    """``{label: {"passed": ..., "required": ...}}`` for ``checks`` (``VerifierCheck`` objects or
    their JSON dicts ``{label, passed, detail, required}``), in order; a repeated label gets
    ``" #2"``, ``" #3"``... (the first free one), so there is one entry per check.
    """
    return component_fields(checks)["reward_components"]  # type: ignore[no-any-return]


def component_fields(checks: Iterable[Any]) -> dict[str, Any]:
    """``{"reward_components", "required_fraction", "optional_fraction"}`` for ``checks`` (module
    docs); fresh objects on every call."""
    components: dict[str, dict[str, bool]] = {}
    required = optional = required_passed = optional_passed = 0
    for check in checks:  # once per episode end: one pass, no ABC checks
        if type(check) is VerifierCheck:  # check()/optional() stored a bool already
            label, passed, is_required = check.label, check.passed, check.required
            if type(label) is not str:
                label = str(label)
        else:
            label, passed, is_required = _parts(check)
        if label in components:
            label = _free_label(label, components)
        components[label] = {"passed": passed, "required": is_required}
        if is_required:
            required += 1
            required_passed += passed
        else:
            optional += 1
            optional_passed += passed
    return {
        "reward_components": components,
        "required_fraction": required_passed / required if required else 0.0,
        "optional_fraction": optional_passed / optional if optional else 1.0,
    }


def components_reward(components: Mapping[str, Mapping[str, Any]]) -> float:
    """Silo's reward from the components: ``round2(passed / len(components))`` (silo-format §4.2),
    equal to ``result.json``'s ``reward`` for the same checks.

    Raises:
        ValueError: no components (a graded episode has at least one check).
    """
    if not components:
        raise ValueError("There are no reward components: a graded episode has at least one check.")
    passed = sum(1 for part in components.values() if part["passed"])
    return round2(passed / len(components))
