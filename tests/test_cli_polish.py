"""The command line's rough edges of issue 19 (item 19): a purpose per command in ``--help``,
"did you mean", ``serve`` over stdio saying it waits, a busy port named with the way out,
``tool remove`` / ``verifier remove``, warnings when a task and a verifier do not name each
other, and missing extras named."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from silo_gym.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[1]


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# --- --help: one line per command -----------------------------------------------------------------


def _commands_section(text: str) -> dict[str, str]:
    block = text[text.index("Commands:\n") + len("Commands:\n"):text.index("\nUsage:")]
    rows: dict[str, str] = {}
    last = ""
    for line in block.splitlines():
        if not line.strip():
            continue
        if line.startswith("  ") and not line.startswith("    "):
            path, _, purpose = line.strip().partition("  ")
            rows[path] = purpose.strip()
            last = path
        else:
            rows[last] += " " + line.strip()
    return rows


def test_help_gives_every_command_a_one_line_purpose(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _cli(capsys, "--help")
    assert code == 0
    rows = _commands_section(out)
    leaves = [leaf.prog.removeprefix("silo-gym ") for leaf in _all_leaves()]
    assert list(rows) == leaves
    for path, purpose in rows.items():
        assert purpose and "§" not in purpose, path
    assert rows["run"] == "play an agent on a task, grade it and save the run"
    assert rows["tool remove"].startswith("unregister a tool")
    block = out[out.index("Commands:"):out.index("\nUsage:")]
    assert all(len(line) <= 100 for line in block.splitlines())
    assert all(line.count("  ") >= 1 for line in block.splitlines()[1:] if line.strip())
    assert sum(1 for line in block.splitlines()[1:] if line.startswith("    ")) == 0  # each fits one line


def _all_leaves() -> Iterator:  # type: ignore[type-arg]
    def walk(parser):  # type: ignore[no-untyped-def]
        if parser.commands is None or parser.runs_alone:  # eval runs alone and has eval compare
            yield parser
        if parser.commands is None:
            return
        for child in parser.commands.choices.values():
            yield from walk(child)

    yield from walk(build_parser())


# --- did you mean ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("argv", "hint"), [
    (["lsit"], 'error: unknown command "lsit". Did you mean "list"? Run "silo-gym --help".'),
    (["verifer", "list"], 'Did you mean "verifier"?'),
    (["data", "lst", "--env", "demo"], 'error: unknown command "data lst". Did you mean "list"?'),
    (["run", "--env", "demo", "--tsk", "TASK-001"], 'error: Unknown flag --tsk for silo-gym run. Did you mean "--task"?'),
    (["collect", "--env", "demo", "--policy", "random", "--out", "o", "--episodes", "2"],
     'Did you mean "--episodes-per-task"?'),
    (["run", "--env", "demo", "--task", "TASK-01"], 'was not found in demo. Did you mean "TASK-001"? Available:'),
    (["run", "--env", "demo", "--task", "task-004"], 'Did you mean "TASK-004"?'),
    (["task", "show", "TASK-0001", "--env", "demo"], 'Did you mean "TASK-001"?'),
    (["run", "--env", "deom", "--task", "TASK-001"], 'Environment "deom" was not found. Did you mean "demo"?'),
    (["collect", "--env", "demo", "--policy", "random", "--out", "o", "--tasks", "TASK001"],
     'Did you mean "TASK-001"?'),
])
def test_a_near_miss_gets_a_suggestion(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch, argv: list[str], hint: str) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = _cli(capsys, *argv)
    assert code == 1
    assert hint in err


@pytest.mark.parametrize("argv", [
    ["zzz"],
    ["run", "--env", "demo", "--qqq", "x"],
    ["run", "--env", "demo", "--task", "TASK-999"],   # a digit away from many: no guess
    ["run", "--env", "demo", "--task", "TASK-007"],
])
def test_no_suggestion_where_nothing_is_close(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = _cli(capsys, *argv)
    assert code == 1 and err.startswith("error: ")
    assert "Did you mean" not in err


# --- tool remove / verifier remove and the warnings -----------------------------------------------


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Path:
    monkeypatch.chdir(tmp_path)
    assert main(["init", "shop"]) == 0
    capsys.readouterr()
    return tmp_path / ".silo" / "environments" / "shop"


def test_tool_remove_undoes_tool_add_byte_for_byte(shop: Path, capsys: pytest.CaptureFixture[str]) -> None:
    registry = shop / "tools" / "__init__.py"
    original = registry.read_bytes()
    assert _cli(capsys, "tool", "add", "get_profits", "--env", "shop")[0] == 0
    assert _cli(capsys, "tool", "add", "get-stock", "--env", "shop")[0] == 0
    code, out, err = _cli(capsys, "tool", "remove", "get_profits", "--env", "shop")
    assert (code, err) == (0, "")
    assert out == "Removed tools/get_profits.py and unregistered get_profits from tools/__init__.py\n"
    assert not (shop / "tools" / "get_profits.py").exists() and (shop / "tools" / "get_stock.py").is_file()
    text = registry.read_text()
    assert "get_profits" not in text and "from .get_stock import get_stock\n" in text
    code, out, _ = _cli(capsys, "tool", "remove", "get-stock", "--env", "shop", "--json")
    assert code == 0
    assert json.loads(out) == {"ok": True, "action": "remove", "name": "get-stock", "removed": "tools/get_stock.py",
                               "registeredIn": "tools/__init__.py", "identifier": "get_stock"}
    assert registry.read_bytes() == original
    assert _cli(capsys, "env", "validate", "--env", "shop")[0] == 0


def test_tool_remove_of_an_unknown_tool_suggests_and_changes_nothing(shop: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    _cli(capsys, "tool", "add", "get_profits", "--env", "shop")
    before = (shop / "tools" / "__init__.py").read_bytes()
    code, _, err = _cli(capsys, "tool", "remove", "get_profit", "--env", "shop")
    assert code == 1
    assert err == ('error: tool_not_found: No registered tool is named "get_profit" in environment "shop". '
                   'Did you mean "get_profits"? Tools: get_profits.\n')
    assert (shop / "tools" / "__init__.py").read_bytes() == before and (shop / "tools" / "get_profits.py").exists()


def test_tool_remove_keeps_a_module_that_holds_other_tools(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["init", "crm2", "--template", "crm"]) == 0
    capsys.readouterr()
    env = tmp_path / ".silo" / "environments" / "crm2"
    code, out, _ = _cli(capsys, "tool", "remove", "qualify_lead", "--env", "crm2")
    assert code == 0
    assert out == ("Unregistered qualify_lead from tools/__init__.py (its code stays in tools/leads.py, "
                   "which is not the module add writes)\n")
    registry = (env / "tools" / "__init__.py").read_text()
    assert re.search(r"\bqualify_lead\b", registry) is None and "    disqualify_lead,\n" in registry
    assert (env / "tools" / "leads.py").is_file()
    code, out, _ = _cli(capsys, "env", "validate", "--env", "crm2")
    assert code == 0 and "tools=41 " in out
    assert _cli(capsys, "tool", "remove", "qualify_lead", "--env", "demo")[2].startswith(
        "error: environment_read_only:")


def test_verifier_remove_undoes_verifier_add_and_warns_about_its_task(shop: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    registry = shop / "verifiers" / "__init__.py"
    original = registry.read_bytes()
    _cli(capsys, "task", "add", "TASK-001", "--env", "shop", "--title", "t", "--instruction", "i",
         "--verifier", "VER-001")
    _cli(capsys, "verifier", "add", "VER-001", "--env", "shop", "--task", "TASK-001")
    code, out, err = _cli(capsys, "verifier", "remove", "VER-001", "--env", "shop")
    assert code == 0 and err == ""
    assert out.splitlines() == [
        "Removed verifiers/ver_001.py and unregistered ver_001 from verifiers/__init__.py",
        'warning: Task "TASK-001" still names verifier "VER-001"; give it another with '
        '"silo-gym task update TASK-001 --env shop --verifier <id>", or remove it.',
    ]
    assert registry.read_bytes() == original
    code, _, err = _cli(capsys, "verifier", "remove", "VER-002", "--env", "shop")
    assert code == 1 and err.startswith('error: verifier_not_found: No registered verifier has the id "VER-002"')


def test_verifier_add_for_a_missing_task_warns_at_once(shop: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _cli(capsys, "verifier", "add", "VER-404", "--env", "shop", "--task", "TASK-404")
    assert code == 0
    assert out.splitlines()[1] == (
        'warning: Task "TASK-404" does not exist in environment "shop"; "env validate" reports verifier_orphan '
        'until it does. Add it with "silo-gym task add TASK-404 --env shop --verifier VER-404 --title ... '
        '--instruction ...".')
    code, out, _ = _cli(capsys, "verifier", "add", "VER-405", "--env", "shop", "--task", "TASK-405", "--json")
    assert json.loads(out)["warnings"][0].startswith('Task "TASK-405" does not exist')


def test_task_add_naming_a_missing_verifier_warns_at_once(shop: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _cli(capsys, "task", "add", "TASK-009", "--env", "shop", "--title", "t", "--instruction", "i",
                        "--verifier", "VER-404")
    assert code == 0
    assert out.splitlines() == [
        "Created tasks/TASK-009.json",
        'warning: Verifier "VER-404" is not registered in environment "shop"; "env validate" reports '
        'task_verifier_unresolved until it is. Scaffold it with '
        '"silo-gym verifier add VER-404 --env shop --task TASK-009".',
    ]
    _cli(capsys, "verifier", "add", "VER-404", "--env", "shop", "--task", "TASK-009")
    code, out, _ = _cli(capsys, "task", "update", "TASK-009", "--env", "shop", "--verifier", "VER-404", "--json")
    assert code == 0 and "warnings" not in json.loads(out)  # it is registered now
    code, out, _ = _cli(capsys, "task", "update", "TASK-009", "--env", "shop", "--verifier", "VER-500")
    assert 'warning: Verifier "VER-500" is not registered' in out


# --- serve and mock-model -------------------------------------------------------------------------


def test_serve_over_stdio_says_it_waits_for_a_client(tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    proc = subprocess.Popen([sys.executable, "-m", "silo_gym", "serve", "--env", "demo", "--task", "TASK-001"],
                            cwd=tmp_path, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stderr is not None and proc.stdin is not None
    line = proc.stderr.readline().decode()
    proc.stdin.close()
    proc.wait(timeout=60)
    assert line == ("Serving task TASK-001 of demo over MCP stdio: waiting for a client on stdin (sessions are "
                    f"recorded in {tmp_path / '.silo' / 'runs'}; Ctrl-C stops).\n")
    assert proc.stdout is not None and proc.stdout.read() == b""  # stdout is the protocol's alone


@pytest.fixture
def busy_port() -> Iterator[int]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield sock.getsockname()[1]


@pytest.mark.parametrize("command", [
    ["serve", "--env", "demo", "--task", "TASK-001", "--transport", "http"],
    ["mock-model"],
])
def test_a_busy_port_is_named_with_the_way_out(tmp_path: Path, busy_port: int, command: list[str]) -> None:
    pytest.importorskip("mcp" if command[0] == "serve" else "aiohttp")
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "silo_gym", *command, "--port", str(busy_port)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stderr.strip().endswith(
        f"error: Cannot listen on 127.0.0.1:{busy_port}: the address is already in use (another server?). "
        "Stop it, pick another --port, or pass --port 0 for any free port.")
    assert "Traceback" not in done.stderr and time.monotonic() - started < 60


# --- missing extras -------------------------------------------------------------------------------


@pytest.mark.parametrize(("module", "blocked", "extra"), [
    ("silo_gym.integrations.skyrl", "skyrl_gym", "skyrl"),
    ("silo_gym.serve.server", "mcp", "mcp"),
    ("silo_gym.serve.server", "mcp_types", "mcp"),
])
def test_a_missing_extra_is_named_with_its_install_line(module: str, blocked: str, extra: str) -> None:
    code = (f"import sys\nsys.modules[{blocked!r}] = None\n"
            f"try:\n    import {module}\nexcept ModuleNotFoundError as exc:\n"
            f"    print(exc)\n    print(exc.name)\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    message, name = done.stdout.splitlines()
    assert message.startswith(f'{module} needs the "{extra}" extra (')
    assert message.endswith(f'pip install "silo-gym[{extra}]"')
    assert name.split(".")[0] == blocked  # what importorskip and the CLI read
