"""Authoring commands (silo-format §10.2): ``init``, ``env validate``, ``data``, ``task``, ``tool``
and ``verifier``. They share the stores of :mod:`silo_gym.authoring.store` with the project API."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..authoring.scaffold import (
    TEMPLATES,
    PromptAborted,
    RemovalResult,
    describe_init,
    init_environment,
    interactive_init,
    remove_tool,
    remove_verifier,
    scaffold_tool,
    scaffold_verifier,
    split_list,
)
from ..authoring.store import DataStore, EnvironmentRef, TaskStore, check_writable, resolve_environment
from ..authoring.validate import format_report, validate
from ..errors import SiloError
from ..jsonfmt import dumps_pretty, loads_strict
from ..loader import open_environment, shipped_environments_dir
from ..tools import tool_list
from .parser import CommandParser, Commands, UsageError, add_group

__all__ = ["register"]


def _out(text: str) -> None:
    sys.stdout.write(text)


def _emit(args: argparse.Namespace, payload: Any, text: str, warnings: list[str] | None = None) -> int:
    """Print the result: ``payload`` as JSON (with ``"warnings"`` when there are any), or ``text``
    and a ``warning: ...`` line per warning."""
    if warnings:
        payload = {**payload, "warnings": warnings}
        text += "".join(f"\nwarning: {w}" for w in warnings)
    _out(dumps_pretty(payload) if args.json else text + "\n")
    return 0


def _verifier_ids(env: EnvironmentRef) -> list[str] | None:
    """The ids in the environment's ``verifiers`` list, or None when its code does not load
    (``env validate`` says why)."""
    try:
        opened = open_environment(env.name, env.project_root, fresh=True)
    except SiloError:
        return None
    return [str(getattr(v, "id", "")) for v in opened.module.verifiers]


def _verifier_warnings(env: EnvironmentRef, task: dict[str, Any]) -> list[str]:
    """Said at once when a task names a verifier that is not registered (yet)."""
    ids = _verifier_ids(env)
    verifier_id = task["verifierId"]
    if ids is None or verifier_id in ids:
        return []
    return [f'Verifier "{verifier_id}" is not registered in environment "{env.name}"; "env validate" reports '
            f"task_verifier_unresolved until it is. Scaffold it with "
            f'"silo-gym verifier add {verifier_id} --env {env.name} --task {task["id"]}".']


def _environment(args: argparse.Namespace, writes: bool) -> EnvironmentRef:
    """Resolve ``--env``; a command that writes refuses a shipped environment first (§10.1)."""
    env = resolve_environment(args.env)
    if writes:
        check_writable(env)
    return env


# --- init ----------------------------------------------------------------------------------------


def init_command(args: argparse.Namespace) -> int:
    template: str | None = args.template
    tools = split_list(args.tools)
    if args.name is None and sys.stdin.isatty():
        try:
            result = interactive_init(sys.stdin, sys.stdout, None, template,
                                      tools if args.tools is not None else None)
        except PromptAborted:
            raise UsageError("Missing <name>.") from None
    else:
        if not args.name:
            raise UsageError("Missing <name>.")
        result = init_environment(args.name, template if template is not None else "blank", tools)
    text, payload = describe_init(result)
    shipped = shipped_environments_dir() / result.name.lower()
    if shipped.is_dir() and shipped.resolve() != result.directory.resolve():
        # Project environments come before shipped ones in the search order (silo-format §2.2): say so, since
        # `silo/<name>` changes meaning here without any other sign.
        note = (f'The shipped environment "{result.name.lower()}" is now hidden in this project: '
                f'silo/{result.name.lower()} and its tasks run the new copy here.')
        payload["warnings"] = [note]
        text += f"\nwarning: {note}"
    return _emit(args, payload, text)


# --- env validate --------------------------------------------------------------------------------


def validate_command(args: argparse.Namespace) -> int:
    report = validate(args.env)
    if args.json:
        _out(dumps_pretty(report.to_json()))
    else:
        _out(format_report(report))
    return 0 if report.ok else 1


# --- data ----------------------------------------------------------------------------------------


def _content(args: argparse.Namespace) -> Any:
    file_flag: str | None = args.file
    data_flag: str | None = args.data
    if file_flag is not None and data_flag is not None:
        raise UsageError("Pass either --file or --data, not both.")
    if file_flag is None and data_flag is None:
        raise UsageError("Missing --file <path> or --data <json>.")
    text: str | bytes = Path(file_flag).read_bytes() if file_flag is not None else str(data_flag)
    try:
        return loads_strict(text)
    except (ValueError, UnicodeDecodeError) as exc:
        raise UsageError(f"Content is not valid JSON: {exc}") from None


def data_list(args: argparse.Namespace) -> int:
    entries = DataStore(_environment(args, False)).list()
    if args.json:
        _out(dumps_pretty(entries))
    elif not entries:
        _out("No datasets.\n")
    else:
        _out("".join(f"{e['name']}\t{e['file']}\t{e['bytes']}B\n" for e in entries))
    return 0


def data_show(args: argparse.Namespace) -> int:
    _out(dumps_pretty(DataStore(_environment(args, False)).get(args.name)))
    return 0


def data_add(args: argparse.Namespace) -> int:
    store = DataStore(_environment(args, True))
    file = store.add(args.name, _content(args))
    return _emit(args, {"ok": True, "action": "add", "name": args.name, "file": file}, f"Created {file}")


def data_update(args: argparse.Namespace) -> int:
    store = DataStore(_environment(args, True))
    file = store.update(args.name, _content(args))
    return _emit(args, {"ok": True, "action": "update", "name": args.name, "file": file}, f"Updated {file}")


def data_remove(args: argparse.Namespace) -> int:
    file = DataStore(_environment(args, True)).remove(args.name)
    return _emit(args, {"ok": True, "action": "remove", "name": args.name, "file": file}, f"Removed {file}")


# --- task ----------------------------------------------------------------------------------------


def _task_id(args: argparse.Namespace) -> str:
    """The id from the positional, else from ``--id``, else ``""``.

    Raises:
        UsageError: both are given and differ (a task id cannot be renamed this way).
    """
    if args.id and args.id_flag is not None and str(args.id_flag) != str(args.id):
        raise UsageError(f'The task id is given twice: "{args.id}" and --id "{args.id_flag}". A task id cannot '
                         "be changed; give it once (remove the task and add it under the new id to rename it).")
    if args.id:
        return str(args.id)
    return str(args.id_flag) if args.id_flag is not None else ""


def task_list(args: argparse.Namespace) -> int:
    tasks = TaskStore(_environment(args, False)).list()
    if args.json:
        _out(dumps_pretty([t.to_json() for t in tasks]))
    elif not tasks:
        _out("No tasks.\n")
    else:
        _out("".join(f"{t.id}\t{t.difficulty}\t{t.verifier_id}\t{t.title}\n" for t in tasks))
    return 0


def task_show(args: argparse.Namespace) -> int:
    _out(dumps_pretty(TaskStore(_environment(args, False)).get(args.id).to_json()))
    return 0


def task_add(args: argparse.Namespace) -> int:
    store = TaskStore(_environment(args, True))
    raw: dict[str, Any] = {
        "id": _task_id(args),
        "title": args.title or "",
        "instruction": args.instruction or "",
        "verifierId": args.verifier or "",
        "difficulty": args.difficulty,
        "entities": split_list(args.entities),
    }
    file = store.add(raw)
    task = store.get(raw["id"]).to_json()
    return _emit(args, {"ok": True, "action": "add", "task": task, "file": file}, f"Created {file}",
                 _verifier_warnings(store.env, task))


def task_update(args: argparse.Namespace) -> int:
    """Merge the given fields over the stored task (fields not given are kept)."""
    store = TaskStore(_environment(args, True))
    task_id = _task_id(args)
    if not task_id:
        raise UsageError("Missing <id>.")
    stored = store.get(task_id).to_json()
    for dest, key in (("title", "title"), ("instruction", "instruction"), ("verifier", "verifierId"),
                      ("difficulty", "difficulty")):
        value = getattr(args, dest)
        if value is not None:
            stored[key] = value
    if args.entities is not None:
        stored["entities"] = split_list(args.entities)
    file = store.update(stored)
    task = store.get(task_id).to_json()
    warnings = _verifier_warnings(store.env, task) if args.verifier is not None else []
    return _emit(args, {"ok": True, "action": "update", "task": task, "file": file}, f"Updated {file}", warnings)


def task_remove(args: argparse.Namespace) -> int:
    file = TaskStore(_environment(args, True)).remove(args.id)
    return _emit(args, {"ok": True, "action": "remove", "id": args.id, "file": file}, f"Removed {file}")


# --- tool ----------------------------------------------------------------------------------------


def tool_list_command(args: argparse.Namespace) -> int:
    env = _environment(args, False)
    opened = open_environment(env.name, fresh=True)
    tools = tool_list(opened.module.bind_tools(opened.create_state()))
    if args.json:
        _out(dumps_pretty(tools))
    elif not tools:
        _out("No tools.\n")
    else:
        _out("".join(f"{t['name']}\t{t['description']}\n" for t in tools))
    return 0


def tool_add(args: argparse.Namespace) -> int:
    env = _environment(args, True)
    result = scaffold_tool(env, args.name, args.description, args.state)
    payload = {"ok": True, "action": "add", "name": args.name, "created": result.created,
               "registeredIn": result.registered_in, "identifier": result.identifier}
    text = f"Created {result.created} and registered {result.identifier} in {result.registered_in}"
    return _emit(args, payload, text)


def _removal(args: argparse.Namespace, key: str, value: str, result: RemovalResult) -> int:
    payload = {"ok": True, "action": "remove", key: value, "removed": result.removed,
               "registeredIn": result.registered_in, "identifier": result.identifier}
    text = f"Unregistered {result.identifier} from {result.registered_in}"
    if result.removed is not None:
        text = f"Removed {result.removed} and unregistered {result.identifier} from {result.registered_in}"
    elif result.kept is not None:
        text += f" (its code stays in {result.kept}, which is not the module add writes)"
    return _emit(args, payload, text, result.warnings)


def tool_remove(args: argparse.Namespace) -> int:
    return _removal(args, "name", args.name, remove_tool(_environment(args, True), args.name))


# --- verifier ------------------------------------------------------------------------------------


def verifier_list(args: argparse.Namespace) -> int:
    env = _environment(args, False)
    opened = open_environment(env.name, fresh=True)
    rows = [
        {"id": getattr(v, "id", None), "taskId": getattr(v, "task_id", None), "name": getattr(v, "name", None)}
        for v in opened.module.verifiers
    ]
    if args.json:
        _out(dumps_pretty(rows))
    elif not rows:
        _out("No verifiers.\n")
    else:
        _out("".join(f"{r['id']}\t{r['taskId']}\t{r['name']}\n" for r in rows))
    return 0


def verifier_add(args: argparse.Namespace) -> int:
    env = _environment(args, True)
    result = scaffold_verifier(env, args.id, args.task, args.name, args.state)
    payload = {"ok": True, "action": "add", "id": args.id, "created": result.created,
               "registeredIn": result.registered_in, "identifier": result.identifier}
    text = f"Created {result.created} and registered {result.identifier} in {result.registered_in}"
    warnings: list[str] = []
    tasks = {t.id: t for t in TaskStore(env).list()}
    task = tasks.get(args.task)
    if task is None:
        warnings.append(f'Task "{args.task}" does not exist in environment "{env.name}"; "env validate" reports '
                        f"verifier_orphan until it does. Add it with "
                        f'"silo-gym task add {args.task} --env {env.name} --verifier {args.id} --title ... '
                        f'--instruction ...".')
    elif task.verifier_id != args.id:
        warnings.append(f'Task "{args.task}" names verifier "{task.verifier_id}", not "{args.id}"; "env validate" '
                        f"reports verifier_task_mismatch until one of them changes.")
    return _emit(args, payload, text, warnings)


def verifier_remove(args: argparse.Namespace) -> int:
    return _removal(args, "id", args.id, remove_verifier(_environment(args, True), args.id))


# --- registration --------------------------------------------------------------------------------


def _command(commands: Commands, name: str, about: str, handler: Any, *, env: bool = True,
             json: str | None = "print the result as JSON") -> CommandParser:
    """A parser with the shared ``--env`` (first, required) and ``--json`` flags."""
    p: CommandParser = commands.add_parser(name, help=about, description=about)
    if env:
        p.add_argument("--env", metavar="E", required=True, help="environment name")
    if json is not None:
        p.add_argument("--json", action="store_true", help=json)
    p.set_defaults(handler=handler)
    return p


def _content_flags(p: CommandParser) -> None:
    p.add_argument("--file", metavar="PATH", help="read the dataset from this JSON file")
    p.add_argument("--data", metavar="JSON", help="the dataset as JSON text")


def _task_flags(p: CommandParser, adding: bool) -> None:
    p.add_argument("id", nargs="?", help="task id (or --id)")
    p.add_argument("--id", metavar="ID", dest="id_flag", help="task id, when not given as the positional")
    p.add_argument("--title", metavar="TEXT", help="the task's title")
    p.add_argument("--instruction", metavar="TEXT", help="the text the agent receives")
    p.add_argument("--verifier", metavar="ID", help="the id of the verifier that grades it")
    p.add_argument("--difficulty", metavar="D", default="unspecified" if adding else None,
                   help="easy, medium, hard or any text")
    p.add_argument("--entities", metavar="A,B", help="ids the task concerns, comma-separated")


def register(commands: Commands) -> None:
    """``init``, ``env validate``, ``data``, ``task``, ``tool`` and ``verifier`` (silo-format §10.2)."""
    p = _command(commands, "init", "scaffold an environment in .silo/environments",
                 init_command, env=False)
    p.add_argument("name", nargs="?", help="environment name (asked for on a terminal when left out)")
    p.add_argument("--template", metavar="T", help=f"{' or '.join(TEMPLATES)}; blank when not given")
    p.add_argument("--tools", metavar="A,B", help="tool packs to record in the manifest, comma-separated")
    p.set_defaults(plain_errors=True)

    group = add_group(commands, "env", "check an environment")
    _command(group, "validate", "validate an environment and print its findings",
             validate_command, json="print the report as JSON")

    group = add_group(commands, "data", "datasets: data/<name>.json")
    _command(group, "list", "list the datasets", data_list)
    p = _command(group, "show", "print a dataset as JSON", data_show, json="accepted; the output is always JSON")
    p.add_argument("name", help="dataset name")
    for name, about, handler in (("add", "create a dataset", data_add),
                                 ("update", "replace a dataset", data_update)):
        p = _command(group, name, about, handler)
        p.add_argument("name", help="dataset name")
        _content_flags(p)
    p = _command(group, "remove", "remove a dataset", data_remove)
    p.add_argument("name", help="dataset name")

    group = add_group(commands, "task", "tasks: tasks/<id>.json")
    _command(group, "list", "list the tasks, sorted by id", task_list)
    p = _command(group, "show", "print a task as JSON", task_show, json="accepted; the output is always JSON")
    p.add_argument("id", help="task id")
    _task_flags(_command(group, "add", "create a task", task_add), adding=True)
    _task_flags(_command(group, "update", "change the given fields of a task", task_update), adding=False)
    p = _command(group, "remove", "remove a task", task_remove)
    p.add_argument("id", help="task id")

    group = add_group(commands, "tool", "tools the agent calls")
    _command(group, "list", "list the bound tools", tool_list_command)
    p = _command(group, "add", "scaffold a tool and register it", tool_add)
    p.add_argument("name", help="tool name")
    p.add_argument("--description", metavar="TEXT",
                   help='what the agent is told the tool does (default: "TODO: describe what <name> does.")')
    p.add_argument("--state", metavar="T", help="the State type to annotate (default: found in state.py)")
    p = _command(group, "remove", "unregister a tool, and delete the module tool add wrote for it", tool_remove)
    p.add_argument("name", help="tool name")

    group = add_group(commands, "verifier", "verifiers that grade the tasks")
    _command(group, "list", "list the verifiers", verifier_list)
    p = _command(group, "add", "scaffold a verifier and register it", verifier_add)
    p.add_argument("id", help="verifier id")
    p.add_argument("--task", metavar="T", required=True, help="the id of the task it grades")
    p.add_argument("--name", metavar="TEXT",
                   help='what the verifier proves (default: "TODO: name what <id> proves.")')
    p.add_argument("--state", metavar="T", help="the State type to annotate (default: found in state.py)")
    p = _command(group, "remove", "unregister a verifier, and delete the module verifier add wrote for it",
                 verifier_remove)
    p.add_argument("id", help="verifier id")
