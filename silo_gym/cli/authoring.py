"""Authoring commands (silo-format §10.2): ``init``, ``env validate``, ``data``, ``task``, ``tool``
and ``verifier``. They share the stores of :mod:`silo_gym.store` with the project API."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from ..jsonfmt import dumps_pretty, loads_strict
from ..loader import open_environment
from ..scaffold import (
    PromptAborted,
    describe_init,
    init_environment,
    interactive_init,
    scaffold_tool,
    scaffold_verifier,
    split_list,
)
from ..store import DataStore, EnvironmentRef, TaskStore, check_writable, resolve_environment
from ..tools import tool_list
from ..validate_env import format_report, validate
from . import command
from .args import Args, UsageError

__all__: list[str] = []


def _out(text: str) -> None:
    sys.stdout.write(text)


def _emit(args: Args, payload: Any, text: str) -> int:
    _out(dumps_pretty(payload) if args.boolean("json") else text + "\n")
    return 0


def _subcommand(group: str, args: Args, allowed: tuple[str, ...]) -> str:
    if not args.positionals or args.positionals[0] == "":
        raise UsageError(f"Missing <command>. Run \"silo-gym --help\" (silo-gym {group} {'|'.join(allowed)}).")
    sub = args.positionals[0]
    if sub not in allowed:
        raise UsageError(f'unknown command "{group} {sub}". Run "silo-gym --help".')
    return sub


def _environment(args: Args, writes: bool) -> EnvironmentRef:
    """Resolve ``--env``; a command that writes refuses a shipped environment first (§10.1)."""
    env = resolve_environment(args.require("env"))
    if writes:
        check_writable(env)
    return env


def _rest(args: Args) -> Args:
    """The arguments after the subcommand."""
    return Args(positionals=args.positionals[1:], flags=args.flags)


# --- init ----------------------------------------------------------------------------------------


@command("init", plain_errors=True)
def init_command(args: Args) -> int:
    template = args.flag("template")
    tools_flag = args.flag("tools")
    tools = split_list(tools_flag)
    if not args.positionals and sys.stdin.isatty():
        try:
            result = interactive_init(sys.stdin, sys.stdout, None, template,
                                      tools if tools_flag is not None else None)
        except PromptAborted:
            raise UsageError("Missing <name>.") from None
    else:
        name = args.positional(0, "name")
        result = init_environment(name, template if template is not None else "blank", tools)
    text, payload = describe_init(result)
    return _emit(args, payload, text)


# --- env validate --------------------------------------------------------------------------------


@command("env")
def env_command(args: Args) -> int:
    _subcommand("env", args, ("validate",))
    report = validate(args.require("env"))
    if args.boolean("json"):
        _out(dumps_pretty(report.to_json()))
    else:
        _out(format_report(report))
    return 0 if report.ok else 1


# --- data ----------------------------------------------------------------------------------------


def _content(args: Args) -> Any:
    file_flag = args.flag("file")
    data_flag = args.flag("data")
    if file_flag is not None and data_flag is not None:
        raise UsageError("Pass either --file or --data, not both.")
    if file_flag is None and data_flag is None:
        raise UsageError("Missing --file <path> or --data <json>.")
    text: str | bytes = Path(file_flag).read_bytes() if file_flag is not None else str(data_flag)
    try:
        return loads_strict(text)
    except (ValueError, UnicodeDecodeError) as exc:
        raise UsageError(f"Content is not valid JSON: {exc}") from None


@command("data")
def data_command(args: Args) -> int:
    sub = _subcommand("data", args, ("list", "show", "add", "update", "remove"))
    rest = _rest(args)
    store = DataStore(_environment(args, sub in ("add", "update", "remove")))
    if sub == "list":
        entries = store.list()
        if args.boolean("json"):
            _out(dumps_pretty(entries))
        elif not entries:
            _out("No datasets.\n")
        else:
            _out("".join(f"{e['name']}\t{e['file']}\t{e['bytes']}B\n" for e in entries))
        return 0
    name = rest.positional(0, "name")
    if sub == "show":
        _out(dumps_pretty(store.get(name)))
        return 0
    if sub == "remove":
        file = store.remove(name)
        return _emit(args, {"ok": True, "action": "remove", "name": name, "file": file}, f"Removed {file}")
    value = _content(args)
    if sub == "add":
        file = store.add(name, value)
        return _emit(args, {"ok": True, "action": "add", "name": name, "file": file}, f"Created {file}")
    file = store.update(name, value)
    return _emit(args, {"ok": True, "action": "update", "name": name, "file": file}, f"Updated {file}")


# --- task ----------------------------------------------------------------------------------------


def _task_id(rest: Args) -> str:
    positional = rest.optional_positional(0)
    if positional is not None:
        return positional
    flag = rest.flag("id")
    return flag if flag is not None else ""


@command("task")
def task_command(args: Args) -> int:
    sub = _subcommand("task", args, ("list", "show", "add", "update", "remove"))
    rest = _rest(args)
    store = TaskStore(_environment(args, sub in ("add", "update", "remove")))
    if sub == "list":
        tasks = store.list()
        if args.boolean("json"):
            _out(dumps_pretty([t.to_json() for t in tasks]))
        elif not tasks:
            _out("No tasks.\n")
        else:
            _out("".join(f"{t.id}\t{t.difficulty}\t{t.verifier_id}\t{t.title}\n" for t in tasks))
        return 0
    if sub == "show":
        _out(dumps_pretty(store.get(rest.positional(0, "id")).to_json()))
        return 0
    if sub == "remove":
        task_id = rest.positional(0, "id")
        file = store.remove(task_id)
        return _emit(args, {"ok": True, "action": "remove", "id": task_id, "file": file}, f"Removed {file}")
    if sub == "add":
        raw: dict[str, Any] = {
            "id": _task_id(rest),
            "title": args.flag("title") or "",
            "instruction": args.flag("instruction") or "",
            "verifierId": args.flag("verifier") or "",
            "difficulty": args.flag("difficulty") if args.flag("difficulty") is not None else "unspecified",
            "entities": split_list(args.flag("entities")),
        }
        file = store.add(raw)
        task = store.get(raw["id"]).to_json()
        return _emit(args, {"ok": True, "action": "add", "task": task, "file": file}, f"Created {file}")
    # update: merge the given fields over the stored task
    task_id = _task_id(rest)
    if not task_id:
        raise UsageError("Missing <id>.")
    stored = store.get(task_id).to_json()
    for flag_name, key in (("title", "title"), ("instruction", "instruction"), ("verifier", "verifierId"),
                           ("difficulty", "difficulty")):
        value = args.flag(flag_name)
        if value is not None:
            stored[key] = value
    entities = args.flag("entities")
    if entities is not None:
        stored["entities"] = split_list(entities)
    file = store.update(stored)
    task = store.get(task_id).to_json()
    return _emit(args, {"ok": True, "action": "update", "task": task, "file": file}, f"Updated {file}")


# --- tool ----------------------------------------------------------------------------------------


@command("tool")
def tool_command(args: Args) -> int:
    sub = _subcommand("tool", args, ("list", "add"))
    rest = _rest(args)
    env = _environment(args, sub == "add")
    if sub == "list":
        opened = open_environment(env.name, fresh=True)
        tools = tool_list(opened.module.bind_tools(opened.module.create_state()))
        if args.boolean("json"):
            _out(dumps_pretty(tools))
        elif not tools:
            _out("No tools.\n")
        else:
            _out("".join(f"{t['name']}\t{t['description']}\n" for t in tools))
        return 0
    name = rest.positional(0, "name")
    result = scaffold_tool(env, name, args.flag("description"), args.flag("state"))
    payload = {"ok": True, "action": "add", "name": name, "created": result.created,
               "registeredIn": result.registered_in, "identifier": result.identifier}
    text = f"Created {result.created} and registered {result.identifier} in {result.registered_in}"
    return _emit(args, payload, text)


# --- verifier ------------------------------------------------------------------------------------


@command("verifier")
def verifier_command(args: Args) -> int:
    sub = _subcommand("verifier", args, ("list", "add"))
    rest = _rest(args)
    env = _environment(args, sub == "add")
    if sub == "list":
        opened = open_environment(env.name, fresh=True)
        rows = [
            {"id": getattr(v, "id", None), "taskId": getattr(v, "task_id", None), "name": getattr(v, "name", None)}
            for v in opened.module.verifiers
        ]
        if args.boolean("json"):
            _out(dumps_pretty(rows))
        elif not rows:
            _out("No verifiers.\n")
        else:
            _out("".join(f"{r['id']}\t{r['taskId']}\t{r['name']}\n" for r in rows))
        return 0
    verifier_id = rest.positional(0, "id")
    task_id = args.require("task")
    result = scaffold_verifier(env, verifier_id, task_id, args.flag("name"), args.flag("state"))
    payload = {"ok": True, "action": "add", "id": verifier_id, "created": result.created,
               "registeredIn": result.registered_in, "identifier": result.identifier}
    text = f"Created {result.created} and registered {result.identifier} in {result.registered_in}"
    return _emit(args, payload, text)
