"""Typed views (pydantic) of Silo's file formats: manifest, task, result, state diff, report.

The models are built by the lenient parsers of silo-format §2.3 and §2.6 (``Manifest.from_raw``,
``Task.from_raw``), which never raise ``ValidationError`` for a wrong-typed field. They are views
for Python users; files and observations are always written from ``to_json()`` dicts by the
canonical writer (``silo_gym.jsonfmt``), never by ``model_dump_json``.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "Check",
    "Finding",
    "Manifest",
    "RunResultFile",
    "ScalarChange",
    "CollectionChange",
    "StateDiff",
    "Task",
    "ValidationReport",
    "DEFAULT_ENTRYPOINT",
]

DEFAULT_ENTRYPOINT = "./__init__.py"


class Manifest(BaseModel):
    """``silo.environment.json`` after defaults (silo-format §2.3)."""

    model_config = ConfigDict(frozen=True)

    name: str
    template: str | None = None
    templateVersion: str | None = None
    entrypoint: str = DEFAULT_ENTRYPOINT
    tools: tuple[str, ...] = ()

    @classmethod
    def from_raw(cls, raw: Any, directory_name: str) -> Manifest:
        """Apply silo-format §2.3 defaults to a parsed manifest (any JSON value; non-objects = missing)."""
        if not isinstance(raw, dict):
            raw = {}
        name = raw.get("name")
        name = name.strip() if isinstance(name, str) and name.strip() else directory_name
        template = raw.get("template") if isinstance(raw.get("template"), str) else None
        version = raw.get("templateVersion") if isinstance(raw.get("templateVersion"), str) else None
        entry = raw.get("entrypoint")
        entry = entry if isinstance(entry, str) and entry.strip() else DEFAULT_ENTRYPOINT
        tools_raw = raw.get("tools")
        tools = tuple(t for t in tools_raw if isinstance(t, str)) if isinstance(tools_raw, list) else ()
        return cls.model_construct(
            name=name, template=template, templateVersion=version, entrypoint=entry, tools=tools
        )

    def to_json(self) -> dict[str, Any]:
        """The manifest's JSON form, keys in the order ``init`` writes them."""
        return {
            "name": self.name,
            "template": self.template,
            "templateVersion": self.templateVersion,
            "entrypoint": self.entrypoint,
            "tools": list(self.tools),
        }


class Task(BaseModel):
    """A task (silo-format §2.6). Frozen; ``instruction`` is the only text the agent receives."""

    model_config = ConfigDict(frozen=True)

    id: str
    title: str
    instruction: str
    verifier_id: str
    difficulty: str = "unspecified"
    entities: tuple[str, ...] = ()

    @classmethod
    def from_raw(cls, raw: dict[str, Any]) -> Task:
        """Build a task from a task file's object whose four required strings were checked (§2.5)."""
        difficulty = raw.get("difficulty")
        difficulty = difficulty.strip() if isinstance(difficulty, str) and difficulty.strip() else "unspecified"
        ents = raw.get("entities")
        entities = tuple(e for e in ents if isinstance(e, str)) if isinstance(ents, list) else ()
        return cls.model_construct(
            id=raw["id"],
            title=raw["title"],
            instruction=raw["instruction"],
            verifier_id=raw["verifierId"],
            difficulty=difficulty,
            entities=entities,
        )

    def to_json(self) -> dict[str, Any]:
        """The task's JSON form, keys ``id, title, instruction, verifierId, difficulty, entities``."""
        return {
            "id": self.id,
            "title": self.title,
            "instruction": self.instruction,
            "verifierId": self.verifier_id,
            "difficulty": self.difficulty,
            "entities": list(self.entities),
        }


class Check(BaseModel):
    """One verifier check in ``result.json`` (silo-format §6.2)."""

    label: str
    passed: bool
    detail: str
    required: bool


class RunResultFile(BaseModel):
    """``result.json`` (silo-format §6.2). Build with ``RunResultFile.model_validate(dict)``."""

    passed: bool
    reward: float
    requiredPassed: int
    requiredTotal: int
    failedRequired: list[str]
    checksPassed: int
    checksFailed: int
    toolCalls: int
    toolErrors: int
    terminationReason: Literal["completed", "max_tool_calls", "timeout", "agent_error"]
    agentOutput: Any = None
    error: str | None = None
    checks: list[Check] = Field(default_factory=list)


class ScalarChange(BaseModel):
    """A scalar entry of ``state-diff.json``; ``from_`` is unset when the key was absent."""

    model_config = ConfigDict(populate_by_name=True)

    field: str
    from_: Any = Field(default=None, alias="from")
    to: Any = None


class CollectionChange(BaseModel):
    """A collection entry of ``state-diff.json``: lists of ids."""

    added: list[str]
    removed: list[str]
    changed: list[str]


class StateDiff(BaseModel):
    """``state-diff.json`` (silo-format §6.3, §8)."""

    scalars: list[ScalarChange]
    collections: dict[str, CollectionChange]


class Finding(BaseModel):
    """A validation finding (silo-format §9.1)."""

    level: Literal["error", "warning"]
    code: str
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"level": self.level, "code": self.code, "message": self.message}


class ValidationReport(BaseModel):
    """The validation report (silo-format §9.1)."""

    environment: str
    ok: bool
    findings: list[Finding]
    counts: dict[str, int]

    def to_json(self) -> dict[str, Any]:
        return {
            "environment": self.environment,
            "ok": self.ok,
            "findings": [f.to_json() for f in self.findings],
            "counts": {k: self.counts.get(k, 0) for k in ("data", "tasks", "tools", "verifiers")},
        }
