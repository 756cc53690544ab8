"""pydantic models of Silo's file formats: the manifest, the task, ``result.json``, ``run.json``,
``state-diff.json``, the events of ``trace.jsonl`` and the validation report.

Each model validates what is loaded, with strict types (a ``"1"`` is not an integer, a ``1`` is not
a boolean):

- the manifest and the task run Silo's own rules first, with Silo's messages
  (:meth:`Manifest.from_raw`: the defaults of silo-format §2.3; :meth:`Task.from_file`: the
  ``task_invalid`` checks of §2.5 and the JSON form of §2.6), the same functions registration uses
  without pydantic (:mod:`silo_gym.formats`);
- the run artifacts and the report are read with :meth:`SiloFile.read` (or checked in memory with
  :meth:`SiloFile.from_json_value`), which raise ``invalid_json`` for a file that does not parse
  and ``file_invalid`` (naming the file and the field) for one that does not match its format;
  :meth:`SiloFile.first_problem` gives the first problem without raising (the run reader,
  :mod:`silo_gym.rundir`, names the file and trace line itself).

``to_json()`` gives the file's JSON value with its keys in the spec's order; files and
observations are always written from it by the canonical writer (:mod:`silo_gym.jsonfmt`), never
by ``model_dump_json``. :func:`json_schema` gives each format's JSON Schema (``silo-gym schema``).

pydantic is imported only with this module: ``import silo_gym`` does not import it.
"""

from __future__ import annotations

import os
from typing import Annotated, Any, ClassVar, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, model_validator
from typing_extensions import TypedDict

from .errors import SiloError
from .formats import (
    DEFAULT_ENTRYPOINT,
    VARIANT_LIMIT,
    check_task,
    display_path,
    manifest_json_form,
    read_json_file,
    task_json_form,
)
from .jsonfmt import dumps_compact

__all__ = [
    "DEFAULT_ENTRYPOINT",
    "SCHEMA_FORMATS",
    "TRACE_EVENTS",
    "AgentOutputEvent",
    "Check",
    "CollectionChange",
    "Counts",
    "Finding",
    "Manifest",
    "ModelStepEvent",
    "RunConfig",
    "RunEndEvent",
    "RunFile",
    "RunResultFile",
    "RunStartEvent",
    "ScalarChange",
    "SiloFile",
    "StateDiff",
    "Task",
    "ToolCallEvent",
    "ToolResultEvent",
    "TraceEvent",
    "ValidationReport",
    "VerifierResultEvent",
    "json_schema",
]

M = TypeVar("M", bound="SiloFile")

TerminationReason = Literal["completed", "max_tool_calls", "timeout", "agent_error"]
#: A safe name (silo-format §12.1) as a JSON Schema pattern; the loader also refuses device names.
_SAFE_NAME = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"
_NOT_BLANK = r"\S"  # non-empty after trimming
_TIMESTAMP = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$"
_Count = Annotated[int, Field(ge=0)]


def _field_path(loc: tuple[int | str, ...]) -> str:
    """A pydantic error location as ``checks[0].passed``."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


_SHOWN = 80  # characters of a received value shown in a problem


def _received(value: Any) -> str:
    try:
        text = dumps_compact(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= _SHOWN else text[:_SHOWN] + "…"


def _problem(exc: ValidationError, show_value: bool) -> tuple[str, str]:
    """The first problem pydantic found: ``(field path, message)``; with ``show_value`` the
    message ends with the value received, ``(got "x")`` (not for a missing field)."""
    first = exc.errors(include_url=False)[0]
    where = _field_path(tuple(first["loc"])) or "(the whole file)"
    message = first["msg"]
    if show_value and first["type"] != "missing":
        message += f" (got {_received(first['input'])})"
    return where, message


class SiloFile(BaseModel):
    """Base of the file-format models: strict types, :meth:`read`, :meth:`to_json`."""

    model_config = ConfigDict(strict=True, extra="forbid", populate_by_name=True)

    #: The format's name in messages, e.g. ``result.json``.
    FILE: ClassVar[str] = "file"

    @classmethod
    def from_json_value(cls: type[M], value: Any, source: str = "<value>") -> M:
        """Validate a parsed JSON value.

        Raises:
            SiloError: ``file_invalid``: ``<source> is not a valid <format>: <field>: <problem>.``,
                details ``{path, format, field}`` (the first problem pydantic found).
        """
        try:
            return cls.model_validate(value)
        except ValidationError as exc:
            where, message = _problem(exc, show_value=False)
            raise SiloError(
                "file_invalid",
                f"{source} is not a valid {cls.FILE}: {where}: {message}.",
                {"path": source, "format": cls.FILE, "field": where},
            ) from exc

    @classmethod
    def first_problem(cls, value: Any) -> tuple[str, str] | None:
        """``None`` when a parsed JSON value matches the format, else its first problem as
        ``(field, message)``: ``("checks[0].passed", 'Input should be a valid boolean (got "yes")')``;
        the field is ``(the whole file)`` when the value is not even an object. Never raises."""
        try:
            cls.model_validate(value)
        except ValidationError as exc:
            return _problem(exc, show_value=True)
        return None

    @classmethod
    def read(cls: type[M], path: str | os.PathLike[str], project_root: str | os.PathLike[str] | None = None) -> M:
        """Read and validate one file; the path in messages is relative to ``project_root``
        (default: the current directory) when inside it.

        Raises:
            SiloError: ``invalid_json`` (file, line, column) or ``file_invalid`` (file, field).
            OSError: the file cannot be read.
        """
        value = read_json_file(path, project_root)
        return cls.from_json_value(value, display_path(path, project_root))

    def to_json(self) -> dict[str, Any]:
        """The file's JSON value, keys in the spec's order."""
        return self.model_dump(by_alias=True)


# --- environments ----------------------------------------------------------------------------------


class Manifest(SiloFile):
    """``silo.environment.json`` after its defaults (silo-format §2.3). Every key is optional in
    the file; a missing file, or a value that is not an object, takes every default, and a key of
    the wrong type takes its default (so a manifest never fails to load for its values)."""

    model_config = ConfigDict(frozen=True, extra="ignore")
    FILE: ClassVar[str] = "silo.environment.json"

    name: str = Field(min_length=1, description=(
        "Recorded only (trimmed; the directory name when missing or blank): an environment is found, "
        "registered and named by its directory name (silo-format §2.2)."))
    template: str | None = Field(None, description="The template it was scaffolded from (recorded only).")
    templateVersion: str | None = Field(None, description="The Silo format version of the template.")
    entrypoint: str = Field(DEFAULT_ENTRYPOINT, min_length=1,
                            description="The module exporting create_state, bind_tools and verifiers, "
                                        "relative to the environment directory.")
    tools: Annotated[tuple[str, ...], Field(strict=False)] = Field(
        (), description="Tool packs chosen at init, recorded only: nothing reads them. A value that is "
                        "not a list is replaced by [] and items that are not strings are dropped "
                        "(silo-format §2.3).")

    @model_validator(mode="before")
    @classmethod
    def _defaults(cls, data: Any, info: ValidationInfo) -> Any:
        context = info.context
        if isinstance(context, dict) and "manifest_directory" in context:
            return manifest_json_form(data, context["manifest_directory"])
        return data

    @classmethod
    def from_raw(cls, raw: Any, directory_name: str) -> Manifest:
        """The manifest of a parsed ``silo.environment.json`` (any JSON value; ``None`` when the
        file is missing) with the defaults of silo-format §2.3. Never raises for a wrong-typed key."""
        return cls.model_validate(raw, context={"manifest_directory": directory_name})

    def to_json(self) -> dict[str, Any]:
        """The manifest's JSON form, keys in the order ``init`` writes them."""
        return {
            "name": self.name,
            "template": self.template,
            "templateVersion": self.templateVersion,
            "entrypoint": self.entrypoint,
            "tools": list(self.tools),
        }


class Task(SiloFile):
    """A task (silo-format §2.6); ``instruction`` is the only text the agent receives. A task file
    may hold other keys; they are dropped. (The Python object is frozen.)"""

    model_config = ConfigDict(frozen=True, extra="ignore")
    FILE: ClassVar[str] = "task"

    id: str = Field(pattern=_SAFE_NAME, max_length=100,
                    description="The task's id: letters, digits, '.', '_' and '-', starting with a letter or digit.")
    title: str = Field(pattern=_NOT_BLANK, description="A short title for people.")
    instruction: str = Field(pattern=_NOT_BLANK, description="What the agent is asked to do; all it is shown.")
    verifier_id: str = Field(alias="verifierId", pattern=_NOT_BLANK,
                             description="The id of the verifier that grades the task.")
    difficulty: str = Field("unspecified", description="easy, medium, hard or any text.")
    entities: Annotated[tuple[str, ...], Field(strict=False)] = Field(
        (), description="The ids of the records the task concerns.")

    @model_validator(mode="before")
    @classmethod
    def _task_file_rules(cls, data: Any, info: ValidationInfo) -> Any:
        context = info.context
        if isinstance(context, dict) and "task_file" in context:
            environment, file_name = context["task_file"]
            return task_json_form(check_task(data, environment, file_name))
        return data

    @classmethod
    def from_file(cls, raw: Any, environment: str, file_name: str) -> Task:
        """The task of a parsed task file, checked by the rules of silo-format §2.5 and built as
        its JSON form (§2.6).

        Raises:
            SiloError: ``task_invalid`` with the messages and details of §2.5 (``file_name`` is
                the bare file name, e.g. ``TASK-001.json``).
        """
        return cls.model_validate(raw, context={"task_file": (environment, file_name)})

    @classmethod
    def from_raw(cls, raw: dict[str, Any]) -> Task:
        """The task of a task-file object that already passed the rules of silo-format §2.5
        (its JSON form, §2.6); the fields are still validated."""
        return cls.model_validate(task_json_form(raw))

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


# --- run artifacts ---------------------------------------------------------------------------------


class Check(SiloFile):
    """One verifier check in ``result.json`` (silo-format §6.2)."""

    FILE: ClassVar[str] = "check"

    label: str
    passed: bool
    detail: str
    required: bool


class RunResultFile(SiloFile):
    """``result.json`` (silo-format §6.2): thirteen keys, in this order."""

    FILE: ClassVar[str] = "result.json"

    passed: bool = Field(description="The verifier's verdict: every required check passed.")
    reward: float = Field(ge=0, le=1, description="The verifier's reward (silo-format §4.2).")
    requiredPassed: _Count
    requiredTotal: _Count
    failedRequired: list[str] = Field(description="Labels of the failed required checks, in check order.")
    checksPassed: _Count
    checksFailed: _Count
    toolCalls: _Count = Field(description="Executed calls, errors included; never refused calls.")
    toolErrors: _Count
    terminationReason: TerminationReason
    agentOutput: Any = Field(description="The agent's raw output (silo-format §5.4).")
    error: str | None
    checks: list[Check]


class RunConfig(SiloFile):
    """``config`` of ``run.json``, keys in this order. ``variant``, ``siloGymVersion`` and
    ``environmentHash`` came with environment variants and replay provenance: runs recorded
    before them lack them."""

    FILE: ClassVar[str] = "run.json config"

    maxToolCalls: _Count
    timeoutMs: _Count
    agentPath: str | None = Field(description="The agent spec string, or null.")
    variant: int | None = Field(None, ge=0, lt=VARIANT_LIMIT,
                                description="The environment variant played (0 <= k < 2**63), or null.")
    siloGymVersion: str | None = Field(None, description="silo_gym.__version__ of the recording.")
    environmentHash: str | None = Field(None, pattern=r"^sha256:[0-9a-f]{64}$",
                                        description="sha256 over the environment's data, tasks and tools.")

    def to_json(self) -> dict[str, Any]:
        """The config's JSON value; a key the loaded file did not have is left out."""
        optional = ("variant", "siloGymVersion", "environmentHash")
        return {k: v for k, v in self.model_dump(by_alias=True).items()
                if k not in optional or k in self.model_fields_set}


class RunFile(SiloFile):
    """``run.json`` (silo-format §6.4): twelve keys, in this order."""

    FILE: ClassVar[str] = "run.json"

    runId: str = Field(pattern=r"^run_[0-9]{14}_[0-9a-z]{4}$")
    environment: str
    taskId: str
    task: Task
    verifierId: str
    verifierName: str | None = Field(description="The verifier's name; null for a verifier object without one.")
    config: RunConfig
    startedAt: str = Field(pattern=_TIMESTAMP, description="UTC, ISO-8601 with milliseconds and Z.")
    finishedAt: str = Field(pattern=_TIMESTAMP)
    durationMs: _Count
    terminationReason: TerminationReason
    toolCallCount: _Count

    def to_json(self) -> dict[str, Any]:
        out = self.model_dump(by_alias=True)
        out["task"] = self.task.to_json()
        out["config"] = self.config.to_json()
        return out


class ScalarChange(SiloFile):
    """A scalar entry of ``state-diff.json``; ``from_`` is unset when the key was absent."""

    FILE: ClassVar[str] = "state-diff.json scalar"

    field: str
    from_: Any = Field(default=None, alias="from")
    to: str | int | float | bool

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"field": self.field}
        if "from_" in self.model_fields_set:
            out["from"] = self.from_
        out["to"] = self.to
        return out


class CollectionChange(SiloFile):
    """A collection entry of ``state-diff.json``: lists of ids."""

    FILE: ClassVar[str] = "state-diff.json collection"

    added: list[str]
    removed: list[str]
    changed: list[str]


class StateDiff(SiloFile):
    """``state-diff.json`` (silo-format §6.3, §8)."""

    FILE: ClassVar[str] = "state-diff.json"

    scalars: list[ScalarChange]
    collections: dict[str, CollectionChange]

    def to_json(self) -> dict[str, Any]:
        return {"scalars": [s.to_json() for s in self.scalars],
                "collections": {k: v.to_json() for k, v in self.collections.items()}}


# --- trace.jsonl events (silo-format §6.5) ---------------------------------------------------------


class TraceEvent(SiloFile):
    """The keys every trace event starts with. Each event type's model adds its own keys, in the
    order of silo-format §6.5; values an agent or a model chose (a call's ``tool`` and ``input``
    as received, a tool's ``output``, a model turn's messages) may be any JSON value."""

    FILE: ClassVar[str] = "trace event"

    seq: int = Field(ge=1, description="1 for the first event, rising by 1.")
    type: str
    at: str = Field(pattern=_TIMESTAMP, description="UTC, ISO-8601 with milliseconds and Z.")


class RunStartEvent(TraceEvent):
    FILE: ClassVar[str] = "run_start event"

    type: Literal["run_start"]
    runId: str
    environment: str
    task: Task
    config: RunConfig
    tools: list[str]


class ToolCallEvent(TraceEvent):
    FILE: ClassVar[str] = "tool_call event"

    type: Literal["tool_call"]
    callId: int = Field(ge=1, description="The call's position among the executed calls, from 1.")
    tool: Any = Field(description="The tool name as received (any value for an invalid action).")
    input: Any


class ToolResultEvent(TraceEvent):
    FILE: ClassVar[str] = "tool_result event"

    type: Literal["tool_result"]
    callId: int = Field(ge=1)
    tool: Any
    output: Any
    isError: bool
    durationMs: _Count


class ModelStepEvent(TraceEvent):
    """A model turn (our rule); what the policy reported is recorded as it was given."""

    FILE: ClassVar[str] = "model_step event"

    type: Literal["model_step"]
    messages: Any
    reply: Any
    usage: Any
    latencyMs: Any
    api: Literal["chat", "responses", "anthropic", "text"]
    model: Any


class AgentOutputEvent(TraceEvent):
    FILE: ClassVar[str] = "agent_output event"

    type: Literal["agent_output"]
    output: str = Field(description="The text form of the answer (silo-format §5.4).")


class RunEndEvent(TraceEvent):
    FILE: ClassVar[str] = "run_end event"

    type: Literal["run_end"]
    terminationReason: TerminationReason
    error: str | None
    toolCalls: _Count
    toolErrors: _Count
    durationMs: _Count
    traceback: str | None = Field(None, description="The agent's traceback when it raised (our rule).")


class VerifierResultEvent(TraceEvent):
    FILE: ClassVar[str] = "verifier_result event"

    type: Literal["verifier_result"]
    verifierId: str
    passed: bool
    reward: float = Field(ge=0, le=1)
    checks: list[Check]


#: The model of each trace event type, in the order events come in a trace (silo-format §6.5).
TRACE_EVENTS: dict[str, type[TraceEvent]] = {
    "run_start": RunStartEvent,
    "tool_call": ToolCallEvent,
    "tool_result": ToolResultEvent,
    "model_step": ModelStepEvent,
    "agent_output": AgentOutputEvent,
    "run_end": RunEndEvent,
    "verifier_result": VerifierResultEvent,
}


# --- validation ------------------------------------------------------------------------------------


class Finding(SiloFile):
    """A validation finding (silo-format §9.1)."""

    FILE: ClassVar[str] = "finding"

    level: Literal["error", "warning"]
    code: str
    message: str


class Counts(TypedDict):
    """``counts`` of the validation report (silo-format §9.1)."""

    data: int
    tasks: int
    tools: int
    verifiers: int


class ValidationReport(SiloFile):
    """The validation report (silo-format §9.1), as ``env validate --json`` prints it."""

    FILE: ClassVar[str] = "validation report"

    environment: str
    ok: bool = Field(description="True when no finding has level error.")
    findings: list[Finding]
    counts: Counts


#: ``silo-gym schema <format>`` -> the model and the title of its schema.
SCHEMA_FORMATS: dict[str, tuple[type[SiloFile], str]] = {
    "manifest": (Manifest, "silo.environment.json"),
    "task": (Task, "Silo task file (tasks/<id>.json)"),
    "result": (RunResultFile, "result.json"),
    "run": (RunFile, "run.json"),
    "report": (ValidationReport, "Silo validation report (silo-gym env validate --json)"),
    "state-diff": (StateDiff, "state-diff.json"),
}


def json_schema(format_name: str) -> dict[str, Any]:
    """The JSON Schema (Draft 2020-12) of a file format for editors: ``manifest``, ``task``,
    ``result``, ``run``, ``report`` or ``state-diff`` (see :data:`SCHEMA_FORMATS`).

    The schema says what a well-formed file holds; the loader is more forgiving where the spec
    says so (a manifest key of the wrong type takes its default, a task's ``entities`` that is not
    a list counts as ``[]``).

    Raises:
        KeyError: an unknown format name.
    """
    model, title = SCHEMA_FORMATS[format_name]
    body = model.model_json_schema(by_alias=True, mode="validation")
    if model is Manifest:
        body.pop("required", None)  # every key has a default (silo-format §2.3)
    body["title"] = title
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **_plain_descriptions(body)}


def _plain_descriptions(node: Any) -> Any:
    """Descriptions as one line of plain text (no reST quotes); no generated property titles."""
    if isinstance(node, dict):
        out: dict[str, Any] = {k: " ".join(v.replace("``", "").split()) if k == "description" and isinstance(v, str)
                               else _plain_descriptions(v) for k, v in node.items()}
        properties = out.get("properties")
        if isinstance(properties, dict):
            for prop in properties.values():  # pydantic's "Maxtoolcalls" says nothing the key does not
                if isinstance(prop, dict):
                    prop.pop("title", None)
        return out
    if isinstance(node, list):
        return [_plain_descriptions(v) for v in node]
    return node
