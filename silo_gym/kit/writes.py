"""Write tools on a world's records: read the actor, make the change, write the one audit entry, return
the record's summary.

A world declares ``WRITES = kit.Writes(ACTOR, AUDIT)`` once and, per collection, ``ITEM =
WRITES.on(WORK_ITEMS, "workItemId", work_item_summary)``; then each write tool is a decorated
function holding only its own rules::

    @ITEM.change("The work item, for example WI-003.")
    def unassign_work_item(state, acting, item, args):
        '''Remove the assignee from a work item. ... (the tool's description)'''
        ...  # read the other inputs, check, change
        return f"Unassigned {item['id']} from {previous}."  # the audit entry's detail

The tool's name is the function's and its description the docstring's (:func:`doc_summary`); its input
schema is the record id, the declared parameters and the actor's key last (silo-format §3.1); the audit
entry's action is the tool's name and its entity type the collection's label in snake case (``"Work
item"`` -> ``work_item``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

from .actors import Actor
from .collections import Collection, Record
from .ledger import AuditLog
from .params import Args, Param, String, params_schema
from .tools import WRITE, Filter, KitTool, doc_summary, get_tool, kit_tool, list_tool

__all__ = ["ChangeFn", "CreateFn", "Detail", "RecordTools", "Writes", "set_given", "transition"]

State = dict[str, Any]

#: What a write returns for its audit entry: the detail, or ``(detail, extra)`` where ``extra``
#: holds result fields that follow the record's summary (``{"updated": ..., **extra}``).
Detail = str | tuple[str, Mapping[str, Any]]
#: ``change(state, acting, record, args) -> Detail``: reads its other inputs, checks, changes ``record``.
ChangeFn = Callable[[State, Record, Record, Args], Detail]
#: ``create(state, acting, args) -> (record, Detail)``: reads its inputs, checks, builds the new record
#: (its id from ``Collection.new_id``); the tool stores it.
CreateFn = Callable[[State, Record, Args], tuple[Record, Detail]]


class Writes:
    """The write tools of one world: who acts and where their changes are logged.

    Args:
        actor: who acts; its key is the last property of every write tool's input, and is read first.
        log: the audit log each write tool appends its one entry to (its last state change).
    """

    def __init__(self, actor: Actor, log: AuditLog) -> None:
        self.actor = actor
        self.log = log

    def schema(self, params: Mapping[str, Param]) -> dict[str, Any]:
        """The input schema of ``params`` (in that order) followed by the actor's required key."""
        actor = self.actor
        return params_schema({**params, actor.key: String(actor.description, required=True)}, actor.contract)

    def audit(
        self, state: State, acting: Record, action: str, entity_type: str, entity_id: str, detail: str
    ) -> None:
        """Append the audit entry of a hand-written write tool."""
        self.log.record(state, acting, action, entity_type, entity_id, detail)

    def on(self, collection: Collection, id_key: str, show: Callable[[State, Record], Any]) -> RecordTools:
        """The tools of one collection: the record's id is ``input[id_key]`` and a write's result shows
        it as ``show(state, record)``."""
        return RecordTools(self, collection, id_key, show)


class _Run:
    """What the run of a :meth:`RecordTools.change` or :meth:`RecordTools.create` tool shares: the
    bound methods it calls, looked up once (a step's hot path), and its last two steps."""

    __slots__ = ("read_actor", "log", "action", "entity", "show")

    def __init__(self, tools: RecordTools, action: str) -> None:
        self.read_actor = tools.writes.actor.read
        self.log = tools.writes.log.record
        self.action = action
        self.entity = tools.entity
        self.show = tools.show

    def logged(self, state: State, acting: Record, record: Record, detail: Detail, key: str) -> Any:
        """Write the one audit entry, then return ``{key: the record's summary, **extra}``."""
        text, extra = (detail, None) if isinstance(detail, str) else detail
        self.log(state, acting, self.action, self.entity, record["id"], text)
        out = {key: self.show(state, record)}
        if extra:
            out.update(extra)
        return out


class _Change(_Run):
    """The run of a :meth:`RecordTools.change` tool."""

    __slots__ = ("read_id", "require", "change")

    def __init__(self, tools: RecordTools, action: str, change: ChangeFn) -> None:
        super().__init__(tools, action)
        self.read_id = partial(tools.writes.actor.contract.read_string, field=tools.id_key)
        self.require = tools.collection.require
        self.change = change

    def __call__(self, state: State, args: Args) -> Any:
        acting = self.read_actor(state, args)
        record = self.require(state, self.read_id(args))
        return self.logged(state, acting, record, self.change(state, acting, record, args), "updated")


class _Create(_Run):
    """The run of a :meth:`RecordTools.create` tool."""

    __slots__ = ("create", "add")

    def __init__(self, tools: RecordTools, action: str, create: CreateFn) -> None:
        super().__init__(tools, action)
        self.create = create
        self.add = tools.collection.add

    def __call__(self, state: State, args: Args) -> Any:
        acting = self.read_actor(state, args)
        record, detail = self.create(state, acting, args)
        self.add(state, record)
        return self.logged(state, acting, record, detail, "created")


class RecordTools:
    """The tools of one collection (made by :meth:`Writes.on`): :meth:`list` pages through its
    records, :meth:`get` reads one, :meth:`create` adds one and :meth:`change` changes one."""

    def __init__(
        self, writes: Writes, collection: Collection, id_key: str, show: Callable[[State, Record], Any]
    ) -> None:
        self.writes = writes
        self.collection = collection
        self.id_key = id_key
        self.show = show
        self.entity = collection.label.lower().replace(" ", "_")

    def get(self, id_description: str) -> Callable[[Callable[[State, Record], Any]], KitTool]:
        """Decorator: a read tool showing one record, named and described by the function
        ``show(state, record)``: :func:`~silo_gym.kit.get_tool` on ``id_key`` (``not_found`` with the
        collection's message)."""

        def wrap(fn: Callable[[State, Record], Any]) -> KitTool:
            return get_tool(
                name=fn.__name__,
                description=doc_summary(fn),
                collection=self.collection,
                id_key=self.id_key,
                id_description=id_description,
                show=fn,
                contract=self.writes.actor.contract,
            )

        return wrap

    def change(
        self, id_description: str, params: Mapping[str, Param] | None = None
    ) -> Callable[[ChangeFn], KitTool]:
        """Decorator: a write tool changing one existing record, named and described by the function.

        Its input is ``id_key`` (required, described by ``id_description``), ``params``, then the
        actor. Its run reads the actor, then the record (``not_found`` with the collection's
        message), calls ``change(state, acting, record, args)``, writes the audit entry on the record
        and returns ``{"updated": show(state, record), **extra}``.

        Raises (at run time):
            ToolError: ``invalid_input``, ``not_found`` or ``not_allowed`` for the actor (missing,
                unknown, inactive), ``invalid_input`` or ``not_found`` for the record's id, and
                whatever ``change`` raises; a refused call writes no audit entry.
        """

        def wrap(fn: ChangeFn) -> KitTool:
            name, description = fn.__name__, doc_summary(fn)
            input_schema = self.writes.schema(
                {self.id_key: String(id_description, required=True), **(params or {})}
            )
            run = _Change(self, name, fn)
            return kit_tool(
                name=name, description=description, input_schema=input_schema, run=run, access=WRITE
            )

        return wrap

    def create(self, params: Mapping[str, Param]) -> Callable[[CreateFn], KitTool]:
        """Decorator: a write tool adding one record, named and described by the function.

        Its input is ``params`` then the actor. Its run reads the actor, calls ``create(state,
        acting, args)``, stores the record it returns (at the end of the collection; one the function
        stored itself, to compute an extra field, stays where it is), writes the audit entry on it and
        returns ``{"created": show(state, record), **extra}``.

        Raises (at run time):
            ToolError: as :meth:`change` for the actor, and whatever ``create`` raises; a refused
                call stores nothing and writes no audit entry (ids it took from a sequence stay taken).
        """

        def wrap(fn: CreateFn) -> KitTool:
            name, description = fn.__name__, doc_summary(fn)
            run = _Create(self, name, fn)
            return kit_tool(
                name=name,
                description=description,
                input_schema=self.writes.schema(params),
                run=run,
                access=WRITE,
            )

        return wrap

    def list(self, fn: Callable[[], Mapping[str, Filter]]) -> KitTool:
        """Decorator: a read tool listing the collection in id order, one page at a time, each
        result ``show(state, record)`` (:func:`~silo_gym.kit.list_tool`); named and described by
        the function, which returns the tool's filters (it is called once, when the tool is made)."""
        return list_tool(
            name=fn.__name__,
            description=doc_summary(fn),
            collection=self.collection,
            summary=self.show,
            filters=fn(),
            contract=self.writes.actor.contract,
        )


def transition(record: Record, field: str, value: Any, since: str, today: str) -> Any:
    """Move ``record`` into a new state: ``record[field] = value`` and ``record[since] = today`` (the
    day it entered the state, so its days in that state start again). Returns the previous value."""
    previous = record[field]
    record[field] = value
    record[since] = today
    return previous


def set_given(record: Record, values: Mapping[str, Any]) -> None:
    """Set ``record[key] = value`` for each of ``values`` that is not ``None``, in order (an update
    tool's optional fields: what is left out stays)."""
    for key, value in values.items():
        if value is not None:
            record[key] = value
