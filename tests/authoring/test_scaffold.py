"""Scaffolding environments, tools and verifiers (silo-format §12.4, §12.5, §10.2 ``init``)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from silo_gym import Silo, SiloError, validate
from silo_gym import scaffold as scaffold_module
from silo_gym.loader import shipped_environments_dir
from silo_gym.scaffold import (
    find_state_type,
    init_environment,
    interactive_init,
    module_identifier,
    register,
)
from silo_gym.store import resolve_environment

from .helpers import demo_verifiers_written, snapshot

REPO_ROOT = Path(__file__).resolve().parents[2]


def err(fn, *args, **kwargs) -> SiloError:
    with pytest.raises(SiloError) as info:
        fn(*args, **kwargs)
    return info.value


# --- init ----------------------------------------------------------------------------------------


def test_init_blank(project: Path, cli) -> None:
    assert cli("init", "shop") == (0, 'Created environment "shop" from Blank at .silo/environments/shop\n', "")
    env_dir = project / ".silo/environments/shop"
    files = sorted(p.relative_to(env_dir).as_posix() for p in env_dir.rglob("*") if p.is_file())
    assert files == [
        "__init__.py", "data/.gitkeep", "environment.py", "silo.environment.json", "state.py", "tasks/.gitkeep",
        "tools/__init__.py", "verifiers/__init__.py",
    ]
    assert (env_dir / "silo.environment.json").read_text() == (
        '{\n  "name": "shop",\n  "template": "blank",\n  "templateVersion": "0.3.0",\n'
        '  "entrypoint": "./__init__.py",\n  "tools": []\n}\n'
    )
    assert "tools: list = []" in (env_dir / "tools/__init__.py").read_text()
    assert "verifiers: list = []" in (env_dir / "verifiers/__init__.py").read_text()
    assert "State = dict[str, Any]" in (env_dir / "state.py").read_text()
    report = validate("shop", cwd=project)
    assert report.ok is True
    assert [(f.level, f.code) for f in report.findings] == [("warning", "no_tasks"), ("warning", "no_tools")]
    assert report.counts == {"data": 0, "tasks": 0, "tools": 0, "verifiers": 0}
    assert [p.name for p in (project / ".silo/environments").iterdir()] == ["shop"]


def test_init_json_and_tool_packs(project: Path, cli) -> None:
    code, out, err_text = cli("init", "Shop_2", "--tools", " email, ,files,", "--json")
    assert (code, err_text) == (0, "")
    assert out == (
        '{\n  "ok": true,\n  "name": "Shop_2",\n  "template": "blank",\n  "tools": [\n    "email",\n'
        '    "files"\n  ],\n  "directory": ".silo/environments/Shop_2"\n}\n'
    )
    manifest = json.loads((project / ".silo/environments/Shop_2/silo.environment.json").read_text())
    assert manifest["tools"] == ["email", "files"]
    assert manifest["name"] == "Shop_2"


def test_init_crm(project: Path, cli) -> None:
    code, out, _ = cli("init", "sales", "--template", "crm")
    assert (code, out) == (0, 'Created environment "sales" from CRM at .silo/environments/sales\n')
    env_dir = project / ".silo/environments/sales"
    demo = shipped_environments_dir() / "demo"
    copied = sorted(p.relative_to(env_dir).as_posix() for p in env_dir.rglob("*") if p.is_file())
    original = sorted(
        p.relative_to(demo).as_posix() for p in demo.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
    )
    assert copied == original
    assert not list(env_dir.rglob("__pycache__"))
    assert json.loads((env_dir / "silo.environment.json").read_text()) == {
        "name": "sales", "template": "crm", "templateVersion": "0.3.0", "entrypoint": "./__init__.py", "tools": [],
    }
    if not demo_verifiers_written():
        pytest.fail("the demo environment has no verifiers")
    report = validate("sales", cwd=project)
    assert report.findings == []
    assert report.counts == {"data": 9, "tasks": 6, "tools": 42, "verifiers": 6}


def test_init_project(project: Path, cli) -> None:
    code, out, _ = cli("init", "tracker", "--template", "project")
    assert (code, out) == (0, 'Created environment "tracker" from Project tracking at .silo/environments/tracker\n')
    env_dir = project / ".silo/environments/tracker"
    shipped = shipped_environments_dir() / "project"
    copied = sorted(p.relative_to(env_dir).as_posix() for p in env_dir.rglob("*") if p.is_file())
    original = sorted(
        p.relative_to(shipped).as_posix() for p in shipped.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
    )
    assert copied == original and "variants.py" in copied
    assert json.loads((env_dir / "silo.environment.json").read_text()) == {
        "name": "tracker", "template": "project", "templateVersion": "0.3.0", "entrypoint": "./__init__.py",
        "tools": [],
    }
    report = validate("tracker", cwd=project)
    assert report.findings == []
    assert report.counts == {"data": 9, "tasks": 15, "tools": 54, "verifiers": 15}
    # the copy is an ordinary project environment: editable, and its tasks run
    assert resolve_environment("tracker", project).shipped is False


def test_init_erp(project: Path, cli) -> None:
    code, out, _ = cli("init", "books", "--template", "erp")
    assert (code, out) == (0, 'Created environment "books" from ERP at .silo/environments/books\n')
    env_dir = project / ".silo/environments/books"
    shipped = shipped_environments_dir() / "erp"
    copied = sorted(p.relative_to(env_dir).as_posix() for p in env_dir.rglob("*") if p.is_file())
    original = sorted(
        p.relative_to(shipped).as_posix() for p in shipped.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
    )
    assert copied == original and "data/sequences.json" in copied and "tools/helpers.py" in copied
    assert json.loads((env_dir / "silo.environment.json").read_text()) == {
        "name": "books", "template": "erp", "templateVersion": "0.3.0", "entrypoint": "./__init__.py", "tools": [],
    }


def test_init_errors(project: Path, cli) -> None:
    cli("init", "shop")
    before = snapshot(project)
    assert cli("init", "SHOP") == (1, "", 'error: Environment "SHOP" already exists (as "shop").\n')
    assert cli("init", "x", "--template", "sap") == (
        1, "", 'error: Unknown template "sap". Available: blank, crm, project, erp.\n'
    )
    assert cli("init") == (1, "", "error: Missing <name>.\n")
    assert cli("init", "") == (1, "", "error: Missing <name>.\n")
    assert snapshot(project) == before
    e = err(init_environment, "Shop", cwd=project)
    assert (e.code, e.details) == ("environment_already_exists", {"environment": "Shop", "existing": "shop"})
    e = err(init_environment, "x", "sap", cwd=project)
    assert (e.code, e.details) == ("template_not_found", {"template": "sap", "available": ["blank", "crm", "project", "erp"]})


def test_init_checks_the_project_environments_only(project: Path) -> None:
    # the shipped "demo" does not block a project environment of that name; it shadows it
    init_environment("demo", cwd=project)
    assert resolve_environment("demo", project).shipped is False


def test_init_of_a_shipped_name_warns_that_it_hides_the_shipped_one(project: Path, cli) -> None:
    code, out, err_text = cli("init", "Project")
    assert (code, err_text) == (0, "")
    assert out == ('Created environment "Project" from Blank at .silo/environments/Project\n'
                   'warning: The shipped environment "project" is now hidden in this project: silo/project and '
                   'its tasks run the new copy here.\n')
    assert resolve_environment("project", project).shipped is False
    code, out, _ = cli("init", "demo", "--json")
    assert json.loads(out)["warnings"] == [
        'The shipped environment "demo" is now hidden in this project: silo/demo and its tasks run the new '
        "copy here."]
    code, out, _ = cli("init", "shop2", "--json")
    assert "warnings" not in json.loads(out)


def test_init_ignores_staging_directories(project: Path) -> None:
    (project / ".silo/environments/.staging-abcdefgh").mkdir(parents=True)
    init_environment("shop", cwd=project)
    assert (project / ".silo/environments/shop").is_dir()


@pytest.mark.parametrize("where", ["copy", "manifest", "rename"])
def test_interrupted_init_leaves_nothing(project: Path, monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    real_copytree = scaffold_module.shutil.copytree

    def copy_then_fail(src, dst, *args, **kwargs):
        real_copytree(src, dst, *args, **kwargs)
        raise OSError("disk full during copy")

    def fail(*args, **kwargs):
        raise OSError(f"failure at {where}")

    if where == "copy":
        monkeypatch.setattr(scaffold_module.shutil, "copytree", copy_then_fail)
    elif where == "manifest":
        monkeypatch.setattr(scaffold_module, "dumps_pretty_bytes", fail)
    else:
        monkeypatch.setattr(scaffold_module.os, "rename", fail)
    with pytest.raises(OSError):
        init_environment("shop", cwd=project)
    assert list(project.iterdir()) == []

    # with an existing environments directory, only the staging directory is removed
    monkeypatch.undo()
    init_environment("first", cwd=project)
    before = snapshot(project)
    monkeypatch.setattr(scaffold_module, "dumps_pretty_bytes", fail)
    with pytest.raises(OSError):
        init_environment("second", cwd=project)
    assert snapshot(project) == before


def test_interrupted_init_by_keyboard(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(scaffold_module.os, "rename", interrupt)
    with pytest.raises(KeyboardInterrupt):
        init_environment("shop", cwd=project)
    assert list(project.iterdir()) == []


# --- the interactive prompt ------------------------------------------------------------------------


def test_interactive_init(project: Path) -> None:
    init_environment("SHOP", cwd=project)
    init_environment("Shop-2", cwd=project)
    answers = io.StringIO("bad name!\nshop\n\ncrm-ish\n1\nmaybe\ny\nemail, calendar,\n")
    out = io.StringIO()
    result = interactive_init(answers, out, cwd=project)
    assert result.name == "shop-3"
    assert result.template == "blank"
    assert result.tools == ["email", "calendar"]
    transcript = out.getvalue()
    assert 'Environment "shop" already exists (as "SHOP"). Suggested: shop-3' in transcript
    assert "Environment name [shop-3]: " in transcript
    assert "1) blank  Blank" in transcript and "2) crm  CRM" in transcript
    manifest = json.loads((project / ".silo/environments/shop-3/silo.environment.json").read_text())
    assert manifest["tools"] == ["email", "calendar"]


def test_interactive_init_defaults_and_flags(project: Path) -> None:
    result = interactive_init(io.StringIO("store\n\n\n"), io.StringIO(), cwd=project)
    assert (result.name, result.template, result.tools) == ("store", "blank", [])
    result = interactive_init(io.StringIO("other\n"), io.StringIO(), cwd=project, template="blank", tools=["x"])
    assert (result.name, result.tools) == ("other", ["x"])
    with pytest.raises(scaffold_module.PromptAborted):
        interactive_init(io.StringIO(""), io.StringIO(), cwd=project)


def test_init_cli_prompts_on_a_terminal(project: Path, cli, monkeypatch: pytest.MonkeyPatch) -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr("sys.stdin", Tty("shop\n2\nn\n"))
    code, out, _ = cli("init", "--json")
    assert code == 0
    assert out.endswith('"directory": ".silo/environments/shop"\n}\n')
    assert json.loads((project / ".silo/environments/shop/silo.environment.json").read_text())["template"] == "crm"
    monkeypatch.setattr("sys.stdin", Tty(""))
    assert cli("init")[2] == "error: Missing <name>.\n"


# --- module names and State types ------------------------------------------------------------------


@pytest.mark.parametrize(("name", "expected"), [
    ("get_profits", "get_profits"),
    ("VER-001", "ver_001"),
    ("Get.Profits--Now", "get_profits_now"),
    ("1st-tool", "_1st_tool"),
    ("class", "class_"),
    ("Import", "import_"),
    ("a-", "a"),
])
def test_module_identifier(name: str, expected: str) -> None:
    assert module_identifier(name) == expected


@pytest.mark.parametrize(("source", "expected"), [
    ("from typing import Any\n\nState = dict[str, Any]\n", "State"),
    ("class WorldState:\n    pass\n\n\nclass State:\n    pass\n", "State"),
    ("from typing import TypedDict\n\nclass Order(TypedDict):\n    id: str\n\n\nclass ShopState(TypedDict):\n"
     "    orders: dict\n\n\nOtherState = dict\n", "ShopState"),
    ("State: type = dict\n", "State"),
    ("def helper():\n    State = 1\n\n\nAppState = dict\n", "AppState"),
])
def test_find_state_type(tmp_path: Path, source: str, expected: str) -> None:
    (tmp_path / "state.py").write_text(source)
    assert find_state_type(tmp_path) == expected


@pytest.mark.parametrize("source", [None, "from x import State\n", "def f(:\n", "Thing = 1\n"])
def test_state_type_not_found(tmp_path: Path, source: str | None) -> None:
    if source is not None:
        (tmp_path / "state.py").write_text(source)
    e = err(find_state_type, tmp_path)
    assert (e.code, e.message) == ("state_type_not_found", "No State type found in state.py; pass --state <TypeName>.")


# --- registry edits ----------------------------------------------------------------------------------


def test_register_keeps_imports_sorted_and_appends_to_the_list() -> None:
    source = (
        '"""Registry."""\n'
        "from .a import (\n"
        "    a,\n"
        "    b,\n"
        ")\n"
        "from .zed import zed\n"
        "\n"
        "if True:\n"
        "    import os\n"
        "\n"
        "tools: list[object] = [\n"
        "    a,\n"
        "    b,\n"
        "    zed,\n"
        "]\n"
    )
    assert register(source, "tools", "new_tool", "new_tool", "tools/__init__.py") == (
        '"""Registry."""\n'
        "from .a import (\n"
        "    a,\n"
        "    b,\n"
        ")\n"
        "from .new_tool import new_tool\n"
        "from .zed import zed\n"
        "\n"
        "if True:\n"
        "    import os\n"
        "\n"
        "tools: list[object] = [\n"
        "    a,\n"
        "    b,\n"
        "    zed,\n"
        "    new_tool,\n"
        "]\n"
    )


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # the blank template: a new import section after __future__, the item on its own line
        ('"""R."""\n\nfrom __future__ import annotations\n\ntools: list = []\n',
         '"""R."""\n\nfrom __future__ import annotations\n\nfrom .x import x\n\ntools: list = [\n    x,\n]\n'),
        ("tools = []", "from .x import x\n\ntools = [\n    x,\n]"),
        ("import a\ntools=[a]", "import a\n\nfrom .x import x\n\ntools=[a, x]"),
        ("tools = []\nimport a", "tools = [\n    x,\n]\nimport a\n\nfrom .x import x\n"),
        ('"""Doc only."""\ntools = [get_item]\n', '"""Doc only."""\n\nfrom .x import x\n\ntools = [get_item, x]\n'),
        # the ",]" that older scaffolds wrote is repaired
        ("from .a import a\nfrom .b import b\n\ntools = [\n    b,\n    a,]\n",
         "from .a import a\nfrom .b import b\nfrom .x import x\n\ntools = [\n    b,\n    a,\n    x,\n]\n"),
        # a missing trailing comma is added; a comment stays with its item
        ("from .a import a\n\ntools = [\n    a  # first\n]\n",
         "from .a import a\nfrom .x import x\n\ntools = [\n    a,  # first\n    x,\n]\n"),
        ("from .a import a\n\ntools = [\n    a,  # first\n]\n",
         "from .a import a\nfrom .x import x\n\ntools = [\n    a,  # first\n    x,\n]\n"),
        ("tools = [  # none yet\n]\n", "from .x import x\n\ntools = [  # none yet\n    x,\n]\n"),
        ("from .ver_10 import ver_10\n\ntools = [ver_10]\n",
         "from .ver_10 import ver_10\nfrom .x import x\n\ntools = [ver_10, x]\n"),
        ("from ..state import State\n\ntools = []\n",
         "from ..state import State\nfrom .x import x\n\ntools = [\n    x,\n]\n"),
        # a one-line list that would grow past 88 columns becomes one item per line
        ("tools = [" + ", ".join(f"tool_number_{i}" for i in range(6)) + "]\n",
         "from .x import x\n\ntools = [\n" + "".join(f"    tool_number_{i},\n" for i in range(6)) + "    x,\n]\n"),
    ],
)
def test_register_appends_in_the_order_given(source: str, expected: str) -> None:
    assert register(source, "tools", "x", "x", "tools/__init__.py") == expected


def test_register_sorts_imports_naturally() -> None:
    source = "from .ver_10 import ver_10\n\nverifiers = [ver_10]\n"
    assert register(source, "verifiers", "ver_9", "ver_9", "r") == (
        "from .ver_9 import ver_9\nfrom .ver_10 import ver_10\n\nverifiers = [ver_10, ver_9]\n")


def test_register_errors() -> None:
    e = err(register, "tools = [] \nmy_tools = [\n]\n", "verifiers", "x", "x", "verifiers/__init__.py")
    assert (e.code, e.message) == ("registry_not_found", 'No "verifiers = [" list found in verifiers/__init__.py.')
    e = err(register, "TOOLS = []\n  tools = []\n", "tools", "x", "x", "tools/__init__.py")
    assert e.code == "registry_not_found"
    e = err(register, "from .ship import ship\n\ntools = [ship]\n", "tools", "ship", "ship", "tools/__init__.py")
    assert (e.code, e.message) == ("already_registered", '"ship" is already registered in tools/__init__.py.')
    # whole words only
    assert "from .ship import ship" in register("tools = [ship_order, reship]\n", "tools", "ship", "ship", "r")


# --- tool and verifier scaffolding ---------------------------------------------------------------------


def test_tool_add_cli(project: Path, cli) -> None:
    cli("init", "shop")
    assert cli("tool", "add", "get-profits", "--env", "shop") == (
        0, "Created tools/get_profits.py and registered get_profits in tools/__init__.py\n", "")
    env_dir = project / ".silo/environments/shop"
    assert (env_dir / "tools/get_profits.py").read_text() == (
        '"""Tool get-profits."""\n'
        "\n"
        "from __future__ import annotations\n"
        "\n"
        "from typing import Any\n"
        "\n"
        "from silo_gym import ToolError, define_tool\n"
        "\n"
        "from ..state import State\n"
        "\n"
        "\n"
        "def _run(state: State, input: dict[str, Any]) -> Any:\n"
        "    raise ToolError(\n"
        '        "invalid_state",\n'
        "        'Tool \"get-profits\" is not implemented yet.',\n"
        "    )\n"
        "\n"
        "\n"
        "get_profits = define_tool(\n"
        '    name="get-profits",\n'
        '    description="TODO: describe what get-profits does.",\n'
        "    input_schema={\n"
        '        "type": "object",\n'
        '        "properties": {},\n'
        '        "required": [],\n'
        '        "additionalProperties": False,\n'
        "    },\n"
        "    run=_run,\n"
        ")\n"
    )
    code, out, _ = cli("tool", "add", "refund", "--env", "shop", "--description", 'Refund "an" order.\n',
                       "--state", "Shop_State", "--json")
    assert code == 0
    assert json.loads(out) == {"ok": True, "action": "add", "name": "refund", "created": "tools/refund.py",
                               "registeredIn": "tools/__init__.py", "identifier": "refund"}
    assert list(json.loads(out)) == ["ok", "action", "name", "created", "registeredIn", "identifier"]
    refund = (env_dir / "tools/refund.py").read_text()
    assert "description='Refund \"an\" order.\\n'," in refund  # the quotes that need no escape
    assert "from ..state import Shop_State" in refund
    registry = (env_dir / "tools/__init__.py").read_text()
    assert "from __future__ import annotations\n\nfrom .get_profits import get_profits\nfrom .refund import refund\n" \
        in registry
    assert "tools: list = [\n    get_profits,\n    refund,\n]" in registry  # in the order they were added
    code, out, _ = cli("tool", "list", "--env", "shop", "--json")
    assert code == 1  # Shop_State does not exist in state.py: the import fails
    assert "could not be imported" in _


def test_tool_list_cli(project: Path, cli) -> None:
    cli("init", "shop")
    assert cli("tool", "list", "--env", "shop") == (0, "No tools.\n", "")
    assert cli("tool", "list", "--env", "shop", "--json") == (0, "[]\n", "")
    cli("tool", "add", "ping", "--env", "shop", "--description", "Ping.")
    assert cli("tool", "list", "--env", "shop") == (0, "ping\tPing.\n", "")
    code, out, _ = cli("tool", "list", "--env", "shop", "--json")
    assert json.loads(out) == [{"name": "ping", "description": "Ping.", "inputSchema": {
        "type": "object", "properties": {}, "required": [], "additionalProperties": False}}]


def test_verifier_add_and_list_cli(project: Path, cli) -> None:
    cli("init", "shop")
    assert cli("verifier", "list", "--env", "shop") == (0, "No verifiers.\n", "")
    assert cli("verifier", "add", "VER-001", "--env", "shop", "--task", "TASK-001") == (
        0, "Created verifiers/ver_001.py and registered ver_001 in verifiers/__init__.py\n"
           'warning: Task "TASK-001" does not exist in environment "shop"; "env validate" reports verifier_orphan '
           'until it does. Add it with "silo-gym task add TASK-001 --env shop --verifier VER-001 --title ... '
           '--instruction ...".\n', "")
    env_dir = project / ".silo/environments/shop"
    assert (env_dir / "verifiers/ver_001.py").read_text() == (
        '"""Verifier VER-001 for task TASK-001."""\n'
        "\n"
        "from __future__ import annotations\n"
        "\n"
        "from silo_gym import VerifierCheck, VerifierContext, check, define_verifier\n"
        "\n"
        "from ..state import State\n"
        "\n"
        "\n"
        "def _check(\n"
        "    final_state: State,\n"
        "    initial_state: State,\n"
        "    context: VerifierContext,\n"
        ") -> list[VerifierCheck]:\n"
        "    return [\n"
        "        check(\n"
        '            "TODO: define success condition",\n'
        "            False,\n"
        "            'Verifier \"VER-001\" is not implemented yet.',\n"
        "        ),\n"
        "    ]\n"
        "\n"
        "\n"
        "ver_001 = define_verifier(\n"
        '    id="VER-001",\n'
        '    task_id="TASK-001",\n'
        '    name="TODO: name what VER-001 proves.",\n'
        "    check=_check,\n"
        ")\n"
    )
    code, out, _ = cli("verifier", "add", "VER-002", "--env", "shop", "--task", "TASK-002", "--name", "Two",
                       "--json")
    payload = json.loads(out)
    assert payload.pop("warnings") == [  # no task TASK-002 yet: said at once, in the JSON too
        'Task "TASK-002" does not exist in environment "shop"; "env validate" reports verifier_orphan until it '
        'does. Add it with "silo-gym task add TASK-002 --env shop --verifier VER-002 --title ... --instruction ...".']
    assert payload == {"ok": True, "action": "add", "id": "VER-002", "created": "verifiers/ver_002.py",
                       "registeredIn": "verifiers/__init__.py", "identifier": "ver_002"}
    assert cli("verifier", "list", "--env", "shop") == (
        0, "VER-001\tTASK-001\tTODO: name what VER-001 proves.\nVER-002\tTASK-002\tTwo\n", "")
    code, out, _ = cli("verifier", "list", "--env", "shop", "--json")
    assert json.loads(out)[1] == {"id": "VER-002", "taskId": "TASK-002", "name": "Two"}
    assert cli("verifier", "add", "VER-003", "--env", "shop") == (1, "", "error: Missing --task.\n")
    assert cli("verifier", "add", "--env", "shop", "--task", "T") == (1, "", "error: Missing <id>.\n")


def test_stub_verifier_fails_on_purpose(project: Path) -> None:
    env = Silo.open(project).environments.create("shop")
    env.tasks.add({"id": "TASK-001", "title": "t", "instruction": "i", "verifierId": "VER-001"})
    env.verifiers.scaffold("VER-001", "TASK-001")
    env.tools.scaffold("noop")
    report = env.validate()
    assert report.ok and [(f.level, f.code) for f in report.findings] == [
        ("warning", "tool_not_implemented"), ("warning", "verifier_not_implemented")]
    from silo_gym import run_task

    result = run_task("shop", "TASK-001", lambda task, tools, call_tool, signal: {"output": "x"}, cwd=project)
    assert result.passed is False
    assert result.result["checks"] == [{"label": "TODO: define success condition", "passed": False,
                                        "detail": 'Verifier "VER-001" is not implemented yet.', "required": True}]
    tool_result = {}

    def agent(task, tools, call_tool, signal):
        tool_result.update(call_tool("noop", {}))
        return {"output": ""}

    run_task("shop", "TASK-001", agent, cwd=project)
    assert tool_result == {"output": {"code": "invalid_state", "message": 'Tool "noop" is not implemented yet.'},
                           "isError": True}


def test_scaffold_errors_write_nothing(project: Path, cli) -> None:
    cli("init", "shop")
    cli("tool", "add", "ping", "--env", "shop")
    cli("verifier", "add", "VER-001", "--env", "shop", "--task", "TASK-001")
    env_dir = project / ".silo/environments/shop"
    before = snapshot(project)
    assert cli("tool", "add", "ping", "--env", "shop") == (
        1, "", 'error: tool_already_exists: Tool file "tools/ping.py" already exists.\n')
    assert cli("verifier", "add", "ver.001", "--env", "shop", "--task", "TASK-001") == (
        1, "", 'error: verifier_already_exists: Verifier file "verifiers/ver_001.py" already exists.\n')
    assert cli("tool", "add", "x", "--env", "shop", "--state", "1bad") == (
        1, "", 'error: unsafe_name: State type name "1bad" is not allowed: use a Python identifier '
               '(letters, digits and "_", not starting with a digit).\n')
    assert snapshot(project) == before
    # already registered: the identifier is in the registry although its module is gone
    (env_dir / "tools/ping.py").unlink()
    before = snapshot(project)
    assert cli("tool", "add", "ping", "--env", "shop") == (
        1, "", 'error: already_registered: "ping" is already registered in tools/__init__.py.\n')
    assert snapshot(project) == before
    # no list in the registry
    (env_dir / "verifiers/__init__.py").write_text("ALL = []\n")
    before = snapshot(project)
    assert cli("verifier", "add", "VER-002", "--env", "shop", "--task", "TASK-002") == (
        1, "", 'error: registry_not_found: No "verifiers = [" list found in verifiers/__init__.py.\n')
    assert snapshot(project) == before
    # no registry file
    (env_dir / "tools/__init__.py").unlink()
    before = snapshot(project)
    assert cli("tool", "add", "pong", "--env", "shop") == (
        1, "", 'error: registry_not_found: No "tools = [" list found in tools/__init__.py.\n')
    assert snapshot(project) == before
    # no State type
    (env_dir / "tools/__init__.py").write_text("tools = []\n")
    (env_dir / "state.py").write_text("Thing = dict\n")
    before = snapshot(project)
    assert cli("tool", "add", "pong", "--env", "shop") == (
        1, "", "error: state_type_not_found: No State type found in state.py; pass --state <TypeName>.\n")
    assert snapshot(project) == before
    assert cli("tool", "add", "pong", "--env", "shop", "--state", "Thing")[0] == 0


def test_failing_registry_write_removes_the_module(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env = Silo.open(project).environments.create("shop")
    before = snapshot(project)

    def fail(path, data):
        raise OSError("read-only file system")

    monkeypatch.setattr(scaffold_module, "atomic_write", fail)
    with pytest.raises(OSError):
        env.tools.scaffold("ping")
    with pytest.raises(OSError):
        env.verifiers.scaffold("VER-001", "TASK-001")
    assert snapshot(project) == before


def test_unparsable_registry_writes_nothing(project: Path, cli) -> None:
    cli("init", "shop")
    (project / ".silo/environments/shop/tools/__init__.py").write_text("tools = [\n")
    before = snapshot(project)
    code, _, err_text = cli("tool", "add", "ping", "--env", "shop")
    assert code == 1 and err_text.startswith("error: ")
    assert snapshot(project) == before


def test_cli_values_that_look_like_flags_and_flags_it_does_not_know(project: Path, cli) -> None:
    cli("init", "shop")
    env_dir = project / ".silo/environments/shop"
    assert cli("tool", "add", "ping", "--env", "shop", "--description", "-h")[0] == 0
    assert 'description="-h",' in (env_dir / "tools/ping.py").read_text()
    assert cli("tool", "add", "pong", "--env", "shop", "--description=--help")[0] == 0
    assert 'description="--help",' in (env_dir / "tools/pong.py").read_text()
    before = snapshot(project)
    code, out, err = cli("tool", "add", "pang", "--env", "shop", "--descripton", "Typo.")
    assert (code, out) == (1, "")
    assert err.startswith('error: Unknown flag --descripton for silo-gym tool add. Did you mean "--description"?\n'
                          "usage: silo-gym tool add [-h] --env E [--json] [--description TEXT] [--state T] name\n")
    code, _, err = cli("verifier", "add", "VER-001", "--env", "shop", "--task")
    assert err.startswith("error: --task needs a value.\nusage: silo-gym verifier add [-h] --env E [--json] --task T")
    code, _, err = cli("data", "add", "x", "y", "--env", "shop", "--data", "1")
    assert err.startswith('error: Unexpected argument "y" for silo-gym data add.\n')
    assert snapshot(project) == before


def _ruff(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ruff", *args, "--no-cache"], cwd=cwd, capture_output=True,
                          text=True, timeout=120)


RUFF_RULES = ("check", "--isolated", "--select", "E,W,F,I,B,UP,COM", "--line-length", "88", ".")


def test_scaffolds_are_ruff_clean_and_keep_the_order_given(project: Path, cli) -> None:
    cli("init", "shop")
    env_dir = project / ".silo/environments/shop"
    for name in ("zeta", "alpha", "1st-tool", "class"):
        assert cli("tool", "add", name, "--env", "shop", "--description", 'Say "hi", it\'s "me".')[0] == 0
    for vid in ("VER-010", "VER-002", "VER-9"):
        assert cli("verifier", "add", vid, "--env", "shop", "--task", "TASK-001")[0] == 0
    assert [line.split("\t")[0] for line in cli("tool", "list", "--env", "shop")[1].splitlines()] == [
        "zeta", "alpha", "1st-tool", "class"]
    assert [line.split("\t")[0] for line in cli("verifier", "list", "--env", "shop")[1].splitlines()] == [
        "VER-010", "VER-002", "VER-9"]
    for args in (RUFF_RULES, ("check", "--config", str(REPO_ROOT / "pyproject.toml"), "."),
                 ("format", "--isolated", "--check", ".")):
        done = _ruff(*args, cwd=env_dir)
        assert done.returncode == 0, (args, done.stdout, done.stderr)
    assert (env_dir / "verifiers/__init__.py").read_text() == (
        '"""Verifier registry: a verifier exists only when it is listed in ``verifiers``."""\n'
        "\n"
        "from __future__ import annotations\n"
        "\n"
        "from .ver_002 import ver_002\n"  # ruff's order: a leading zero compares digit by digit
        "from .ver_010 import ver_010\n"
        "from .ver_9 import ver_9\n"
        "\n"
        "verifiers: list = [\n"
        "    ver_010,\n"
        "    ver_002,\n"
        "    ver_9,\n"
        "]\n"
    )


def test_a_tool_added_to_the_crm_copy_keeps_its_registry_ruff_clean(project: Path, cli) -> None:
    cli("init", "sales", "--template", "crm")
    env_dir = project / ".silo/environments/sales"
    assert cli("tool", "add", "archive_account", "--env", "sales")[0] == 0
    assert cli("tool", "add", "zz_export", "--env", "sales")[0] == 0
    names = [line.split("\t")[0] for line in cli("tool", "list", "--env", "sales")[1].splitlines()]
    assert names[-2:] == ["archive_account", "zz_export"] and len(names) == 44
    done = _ruff("check", "--config", str(REPO_ROOT / "pyproject.toml"), "tools", cwd=env_dir)
    assert done.returncode == 0, done.stdout
