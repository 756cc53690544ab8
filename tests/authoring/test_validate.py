"""``validate`` and ``silo-gym env validate``: one test per finding code of silo-format §9.2."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from silo_gym import SiloError, ValidationReport, validate
from silo_gym.loader import list_environments

from .helpers import NAME, TOOLS_HEAD, VERIFIERS_HEAD, demo_verifiers_written, write_env

NO_TASKS = ("warning", "no_tasks", "No tasks defined, so this environment cannot be run yet.")
NO_TOOLS = ("warning", "no_tools", "No tools registered, so the agent cannot observe or change anything.")


def findings(report: ValidationReport) -> list[tuple[str, str, str]]:
    return [(f.level, f.code, f.message) for f in report.findings]


def check_env(root: Path, changes: dict[str, str | None]) -> ValidationReport:
    write_env(root, changes)
    return validate(NAME, cwd=root)


def tools_src(items: str, extra: str = "") -> str:
    return TOOLS_HEAD + extra + f"\ntools = [{items}]\n"


def verifiers_src(items: str, extra: str = "") -> str:
    return VERIFIERS_HEAD + extra + f"\nverifiers = [{items}]\n"


# --- a clean environment ----------------------------------------------------------------------


def test_clean_environment_has_no_finding(tmp_path: Path) -> None:
    report = check_env(tmp_path, {})
    assert findings(report) == []
    assert report.ok is True
    assert report.environment == NAME
    assert report.counts == {"data": 1, "tasks": 1, "tools": 1, "verifiers": 1}
    assert report.to_json() == {
        "environment": NAME,
        "ok": True,
        "findings": [],
        "counts": {"data": 1, "tasks": 1, "tools": 1, "verifiers": 1},
    }


# --- 1-2: data -------------------------------------------------------------------------------


def test_data_dir_missing(tmp_path: Path) -> None:
    report = check_env(tmp_path, {"data/items.json": None})
    assert findings(report) == [("warning", "data_dir_missing", "No data/ directory.")]
    assert report.ok is True
    assert report.counts["data"] == 0


def test_data_invalid_json(tmp_path: Path) -> None:
    report = check_env(tmp_path, {"data/bad.json": "{", "data/zz.json": "[1, 2]", "data/notes.txt": "{"})
    assert findings(report) == [
        (
            "error",
            "data_invalid_json",
            "data/bad.json is not valid JSON: Expecting property name enclosed in double quotes: "
            "line 1 column 2 (char 1)",
        )
    ]
    assert report.ok is False
    assert report.counts["data"] == 2  # items.json and zz.json parse; .txt is not a dataset


# --- 3: runtime_load_failed -------------------------------------------------------------------


def test_runtime_load_failed_on_import_error(tmp_path: Path) -> None:
    report = check_env(tmp_path, {"__init__.py": "raise RuntimeError('boom')\n"})
    assert findings(report) == [
        ("error", "runtime_load_failed", f'Environment "{NAME}" could not be imported: RuntimeError: boom'),
        NO_TASKS,
        NO_TOOLS,
    ]
    assert report.counts == {"data": 1, "tasks": 0, "tools": 0, "verifiers": 0}
    assert report.ok is False


def test_runtime_load_failed_on_contract(tmp_path: Path) -> None:
    report = check_env(tmp_path, {"__init__.py": "from .tools import tools\n"})
    assert findings(report)[0] == (
        "error", "runtime_load_failed", f'Environment "{NAME}" does not export create_state().'
    )


def test_runtime_load_failed_on_manifest_json(tmp_path: Path) -> None:
    report = check_env(tmp_path, {"silo.environment.json": "{nope"})
    assert findings(report)[0] == (
        "error", "runtime_load_failed", f".silo/environments/{NAME}/silo.environment.json is not valid JSON at "
        "line 1, column 2: Expecting property name enclosed in double quotes."
    )


def test_runtime_load_failed_on_task_file(tmp_path: Path) -> None:
    report = check_env(tmp_path, {"tasks/TASK-002.json": '{"id": "TASK-002", "title": " "}'})
    assert findings(report)[0] == (
        "error",
        "runtime_load_failed",
        f'Task file "TASK-002.json" in environment "{NAME}" is missing a non-empty "title".',
    )


def test_syntax_is_checked_even_after_a_load_failure(tmp_path: Path) -> None:
    report = check_env(tmp_path, {"tools/__init__.py": "tools = [\n"})
    codes = [f.code for f in report.findings]
    assert codes == ["runtime_load_failed", "no_tasks", "no_tools", "typecheck"]
    assert report.findings[-1].message.startswith("tools/__init__.py:1:")


# --- 4: manifest_missing ----------------------------------------------------------------------


def test_manifest_missing(tmp_path: Path) -> None:
    report = check_env(tmp_path, {"silo.environment.json": None})
    assert findings(report) == [("warning", "manifest_missing", "No silo.environment.json; defaults were used.")]
    assert report.ok is True


# --- 5-6: create_state ------------------------------------------------------------------------


def test_create_state_failed_when_it_raises(tmp_path: Path) -> None:
    report = check_env(tmp_path, {"environment.py": "def create_state():\n    raise ValueError('no data')\n"})
    assert findings(report) == [("error", "create_state_failed", "create_state() threw: no data"), NO_TOOLS]
    assert report.counts == {"data": 1, "tasks": 1, "tools": 0, "verifiers": 1}


def test_create_state_failed_when_it_returns_none(tmp_path: Path) -> None:
    report = check_env(tmp_path, {"environment.py": "def create_state():\n    return None\n"})
    assert findings(report) == [
        ("error", "create_state_failed", "create_state() returned None; it must return the world state."),
        NO_TOOLS,
    ]


def test_create_state_failed_on_the_second_call(tmp_path: Path) -> None:
    src = """
    calls = []


    def create_state():
        calls.append(1)
        if len(calls) % 2 == 0:
            raise RuntimeError("second call")
        return {"items": {}}
    """
    report = check_env(tmp_path, {"environment.py": src})
    assert findings(report)[0] == ("error", "create_state_failed", "create_state() threw: second call")
    assert "state_shared_between_calls" not in [f.code for f in report.findings]


def test_state_shared_between_calls_nested(tmp_path: Path) -> None:
    src = """
    SEED = {"now": "2026-01-01", "items": {"I-1": {"id": "I-1", "qty": 1}}, "log": []}


    def create_state():
        return {"now": SEED["now"], "items": dict(SEED["items"]), "log": []}
    """
    report = check_env(tmp_path, {"environment.py": src})
    assert findings(report) == [
        (
            "error",
            "state_shared_between_calls",
            "create_state() returned objects shared between calls (first at state.items.I-1); "
            "each call must build a fresh world.",
        )
    ]
    assert report.ok is False


def test_state_shared_between_calls_same_object_and_list_items(tmp_path: Path) -> None:
    same = "SEED = {'items': {'I-1': {'id': 'I-1', 'qty': 1}}}\n\n\ndef create_state():\n    return SEED\n"
    report = check_env(tmp_path / "a", {"environment.py": same})
    assert report.findings[0].message == (
        "create_state() returned objects shared between calls (first at state); each call must build a fresh world."
    )
    listed = (
        "ROW = {'id': 'r'}\n\n\ndef create_state():\n"
        "    return {'items': {'I-1': {'id': 'I-1', 'qty': 1}}, 'log': [1, ROW]}\n"
    )
    report = check_env(tmp_path / "b", {"environment.py": listed})
    assert "(first at state.log[1])" in report.findings[0].message


# --- 7-11: tools -------------------------------------------------------------------------------

UNNAMED = """
nameless = define_tool(name=None, description="x", input_schema=SCHEMA, run=_get)
"""


def test_tool_unnamed(tmp_path: Path) -> None:
    report = check_env(tmp_path, {"tools/__init__.py": tools_src("get_item, nameless", UNNAMED)})
    assert findings(report) == [("error", "tool_unnamed", "A bound tool has no name.")]
    assert report.counts["tools"] == 2


def test_tool_duplicate_name(tmp_path: Path) -> None:
    report = check_env(tmp_path, {"tools/__init__.py": tools_src("get_item, get_item")})
    assert findings(report) == [("error", "tool_duplicate_name", 'Tool name "get_item" is registered more than once.')]


def test_tool_no_description(tmp_path: Path) -> None:
    extra = 'quiet = define_tool(name="quiet", description="", input_schema=SCHEMA, run=_get)\n'
    report = check_env(tmp_path, {"tools/__init__.py": tools_src("get_item, quiet", extra)})
    assert findings(report) == [
        ("warning", "tool_no_description", 'Tool "quiet" has no description; the agent sees this.')
    ]
    assert report.ok is True


def test_tool_schema_invalid(tmp_path: Path) -> None:
    extra = (
        'listy = define_tool(name="listy", description="x", input_schema=[], run=_get)\n'
        'typo = define_tool(name="typo", description="x", input_schema={"type": "objekt"}, run=_get)\n'
    )
    report = check_env(tmp_path, {"tools/__init__.py": tools_src("get_item, listy, typo", extra)})
    assert findings(report) == [
        ("error", "tool_schema_invalid", 'Tool "listy" has an invalid inputSchema: it is not a JSON object.'),
        (
            "error",
            "tool_schema_invalid",
            "Tool \"typo\" has an invalid inputSchema: 'objekt' is not valid under any of the given schemas.",
        ),
    ]


@pytest.mark.parametrize(
    ("name", "portable"),
    [("get.item", False), ("a" * 65, False), ("a" * 64, True), ("get-item_2", True), ("X", True)],
)
def test_tool_name_llm_incompatible(tmp_path: Path, name: str, portable: bool) -> None:
    # OpenAI and Anthropic tool calling accept ^[a-zA-Z0-9_-]{1,64}$; safe names also allow "." and 100 chars.
    extra = f'other = define_tool(name="{name}", description="x", input_schema=SCHEMA, run=_get)\n'
    report = check_env(tmp_path, {"tools/__init__.py": tools_src("get_item, other", extra)})
    expected = [] if portable else [(
        "warning", "tool_name_llm_incompatible",
        f'Tool name "{name}" would be refused by OpenAI and Anthropic tool calling, which accept 1 to 64 '
        'letters, digits, "_" and "-".')]
    assert findings(report) == expected
    assert report.ok is True


STUB_TOOL = """
from silo_gym import ToolError


def _stub(state, input):
    raise ToolError("invalid_state", 'Tool "todo" is not implemented yet.')


todo = define_tool(name="todo", description="x", input_schema=SCHEMA, run=_stub)
"""


def test_tool_not_implemented(tmp_path: Path) -> None:
    report = check_env(tmp_path, {"tools/__init__.py": tools_src("get_item, todo", STUB_TOOL)})
    assert findings(report) == [(
        "warning", "tool_not_implemented",
        'Tool "todo" is still the scaffold\'s stub: its run raises "not implemented yet". Implement run(state, input).')]
    assert report.ok is True


def test_verifier_not_implemented(tmp_path: Path) -> None:
    stub = """
def _todo(final_state, initial_state, context):
    return [check("TODO: define success condition", False, 'Verifier "VER-001" is not implemented yet.')]


ver_stub = define_verifier(id="VER-001", task_id="TASK-001", name="Stub", check=_todo)
"""
    report = check_env(tmp_path, {"verifiers/__init__.py": verifiers_src("ver_stub", stub)})
    assert findings(report) == [(
        "warning", "verifier_not_implemented",
        'Verifier "VER-001" is still the scaffold\'s stub: its check always fails. '
        "Implement check(final_state, initial_state, context).")]
    assert report.ok is True


def test_tool_schema_the_validator_cannot_use(tmp_path: Path) -> None:
    # Meta-valid, but every call would answer invalid_input: validate says so first.
    extra = (
        'dangling = define_tool(name="dangling", description="x", run=_get,\n'
        '    input_schema={"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}}})\n'
        'pythonic = define_tool(name="pythonic", description="x", run=_get,\n'
        '    input_schema={"type": "object", "properties": {"a": {"type": "string", "pattern": "x\\\\Z"}}})\n'
    )
    report = check_env(tmp_path, {"tools/__init__.py": tools_src("get_item, dangling, pythonic", extra)})
    assert [(f.level, f.code) for f in report.findings] == [("error", "tool_schema_invalid")] * 2
    dangling, pythonic = (f.message for f in report.findings)
    assert dangling.startswith('Tool "dangling" has an invalid inputSchema: ') and "/$defs/missing" in dangling
    assert pythonic.startswith('Tool "pythonic" has an invalid inputSchema: ') and "regex" in pythonic


def test_bind_tools_failed_when_it_raises(tmp_path: Path) -> None:
    init = "from .environment import create_state\nfrom .verifiers import verifiers\n\n\n" \
           "def bind_tools(state):\n    raise KeyError('tools')\n"
    report = check_env(tmp_path, {"__init__.py": init})
    assert findings(report) == [("error", "bind_tools_failed", "bind_tools(state) threw: 'tools'"), NO_TOOLS]


def test_bind_tools_failed_when_it_returns_no_list(tmp_path: Path) -> None:
    init = "from .environment import create_state\nfrom .verifiers import verifiers\n\n\n" \
           "def bind_tools(state):\n    return {}\n"
    report = check_env(tmp_path, {"__init__.py": init})
    assert findings(report) == [
        ("error", "bind_tools_failed", "bind_tools(state) returned dict, not a list of tools."),
        NO_TOOLS,
    ]


# --- 12-15: verifiers ---------------------------------------------------------------------------


def test_verifier_duplicate_id(tmp_path: Path) -> None:
    report = check_env(tmp_path, {"verifiers/__init__.py": verifiers_src("ver_001, ver_001")})
    assert findings(report) == [
        ("error", "verifier_duplicate_id", 'Verifier id "VER-001" is registered more than once.')
    ]
    assert report.counts["verifiers"] == 2


def test_verifier_orphan(tmp_path: Path) -> None:
    extra = 'ver_009 = define_verifier(id="VER-009", task_id="TASK-009", name="Lost", check=_check)\n'
    report = check_env(tmp_path, {"verifiers/__init__.py": verifiers_src("ver_001, ver_009", extra)})
    assert findings(report) == [
        ("error", "verifier_orphan", 'Verifier "VER-009" is for task "TASK-009", which does not exist.')
    ]
    assert report.ok is False  # it can never grade anything (issue 10)


def test_verifier_task_mismatch(tmp_path: Path) -> None:
    extra = 'ver_002 = define_verifier(id="VER-002", task_id="TASK-001", name="Other", check=_check)\n'
    report = check_env(tmp_path, {"verifiers/__init__.py": verifiers_src("ver_001, ver_002", extra)})
    assert findings(report) == [
        (
            "error",
            "verifier_task_mismatch",
            'Verifier "VER-002" is for task "TASK-001", but that task names verifier "VER-001".',
        )
    ]


def test_task_verifier_unresolved(tmp_path: Path) -> None:
    report = check_env(tmp_path, {
        "verifiers/__init__.py": verifiers_src(""),
        "tasks/TASK-000.json": '{"id": "TASK-000", "title": "t", "instruction": "i", "verifierId": "VER-000"}',
    })
    assert findings(report) == [
        ("error", "task_verifier_unresolved", 'Task "TASK-000" names verifier "VER-000", which is not registered.'),
        ("error", "task_verifier_unresolved", 'Task "TASK-001" names verifier "VER-001", which is not registered.'),
    ]
    assert report.counts["verifiers"] == 0


# --- 16-17 ----------------------------------------------------------------------------------------


def test_no_tasks(tmp_path: Path) -> None:
    report = check_env(tmp_path, {"tasks/TASK-001.json": None, "verifiers/__init__.py": verifiers_src("")})
    assert findings(report) == [NO_TASKS]
    assert report.ok is True


def test_no_tools(tmp_path: Path) -> None:
    report = check_env(tmp_path, {"tools/__init__.py": "tools = []\n"})
    assert findings(report) == [NO_TOOLS]
    assert report.ok is True
    assert report.counts["tools"] == 0


def test_typecheck_config_invalid_is_never_emitted(tmp_path: Path) -> None:
    report = check_env(tmp_path, {"tsconfig.json": "{nope"})
    assert findings(report) == []


# --- 19: typecheck ---------------------------------------------------------------------------------


def test_typecheck_syntax_errors_in_path_order(tmp_path: Path) -> None:
    bad_a = "def f(:\n    pass\n"
    bad_b = "x = 1\ny = (\n"
    expected = []
    for rel, src in (("helpers/a.py", bad_a), ("zz.py", bad_b)):
        try:
            compile(src, rel, "exec")
        except SyntaxError as exc:
            expected.append(("error", "typecheck", f"{rel}:{exc.lineno}:{exc.offset} {exc.msg}"))
    report = check_env(tmp_path, {
        "zz.py": bad_b,
        "helpers/a.py": bad_a,
        ".hidden/bad.py": "(",
        "__pycache__/bad.py": "(",
    })
    assert findings(report) == expected
    assert expected[0][2].startswith("helpers/a.py:1:")


def test_typecheck_tool_run_signature(tmp_path: Path) -> None:
    extra = 'lazy = define_tool(name="lazy", description="x", input_schema=SCHEMA, run=lambda state: 1)\n'
    report = check_env(tmp_path, {"tools/__init__.py": tools_src("get_item, lazy", extra)})
    assert findings(report) == [("error", "typecheck", 'Tool "lazy": run must be callable as run(state, input).')]


def test_typecheck_verifier_items(tmp_path: Path) -> None:
    extra = (
        'ver_002 = define_verifier(id="VER-002", task_id="TASK-001", name="x", check=lambda final, initial: [])\n'
    )
    report = check_env(tmp_path, {
        "verifiers/__init__.py": verifiers_src("ver_001, 'not a verifier', ver_002", extra),
    })
    assert findings(report) == [
        (
            "error",
            "verifier_task_mismatch",
            'Verifier "VER-002" is for task "TASK-001", but that task names verifier "VER-001".',
        ),
        ("error", "typecheck", "verifiers[1] is not a verifier made with define_verifier()."),
        (
            "error",
            "typecheck",
            'Verifier "VER-002": check must be callable as check(final_state, initial_state, context).',
        ),
    ]
    assert report.counts["verifiers"] == 3


def test_findings_follow_the_order_of_the_checks(tmp_path: Path) -> None:
    extra = 'quiet = define_tool(name="quiet", description="", input_schema=5, run=_get)\n'
    report = check_env(tmp_path, {
        "silo.environment.json": None,
        "data/items.json": None,
        "tools/__init__.py": tools_src("get_item, quiet", extra),
        "verifiers/__init__.py": verifiers_src(""),
        "broken.py": "(",
    })
    assert [f.code for f in report.findings] == [
        "data_dir_missing",
        "manifest_missing",
        "tool_no_description",
        "tool_schema_invalid",
        "task_verifier_unresolved",
        "typecheck",
    ]


def test_a_broken_environment_never_raises(tmp_path: Path) -> None:
    init = "import sys\nsys.exit(3)\n"
    report = check_env(tmp_path, {"__init__.py": init})
    assert report.findings[0].code == "runtime_load_failed"


def test_validate_sees_edited_code(tmp_path: Path) -> None:
    env_dir = write_env(tmp_path)
    assert validate(NAME, cwd=tmp_path).ok
    (env_dir / "environment.py").write_text("def create_state():\n    return None\n")
    assert validate(NAME, cwd=tmp_path).findings[0].code == "create_state_failed"


# --- raising ---------------------------------------------------------------------------------------


def test_unknown_environment_raises(tmp_path: Path) -> None:
    with pytest.raises(SiloError) as info:
        validate("nowhere", cwd=tmp_path)
    assert info.value.code == "environment_not_found"
    available = list_environments(tmp_path)
    assert info.value.details == {"environment": "nowhere", "available": available}


def test_unsafe_name_raises(tmp_path: Path) -> None:
    with pytest.raises(SiloError) as info:
        validate("../x", cwd=tmp_path)
    assert info.value.code == "unsafe_name"
    assert info.value.details == {"kind": "environment", "name": "../x"}


# --- the command line --------------------------------------------------------------------------------


def test_cli_text_output_ok(project: Path, cli) -> None:
    write_env(project, {"silo.environment.json": None})
    code, out, err = cli("env", "validate", "--env", NAME)
    assert code == 0
    assert err == ""
    assert out == (
        "WARNING\tmanifest_missing\tNo silo.environment.json; defaults were used.\n"
        f"OK\t{NAME}\tdata=1 tasks=1 tools=1 verifiers=1\n"
    )


def test_cli_text_output_failed(project: Path, cli) -> None:
    write_env(project, {"tools/__init__.py": tools_src("get_item, get_item")})
    code, out, _ = cli("env", "validate", "--env", NAME)
    assert code == 1
    assert out == (
        "ERROR\ttool_duplicate_name\tTool name \"get_item\" is registered more than once.\n"
        f"FAILED\t{NAME}\tdata=1 tasks=1 tools=2 verifiers=1\n"
    )


def test_cli_json_output(project: Path, cli) -> None:
    write_env(project, {"data/items.json": None})
    code, out, _ = cli("env", "validate", "--env", NAME, "--json")
    assert code == 0
    assert out == (
        "{\n"
        f'  "environment": "{NAME}",\n'
        '  "ok": true,\n'
        '  "findings": [\n'
        "    {\n"
        '      "level": "warning",\n'
        '      "code": "data_dir_missing",\n'
        '      "message": "No data/ directory."\n'
        "    }\n"
        "  ],\n"
        '  "counts": {\n'
        '    "data": 0,\n'
        '    "tasks": 1,\n'
        '    "tools": 1,\n'
        '    "verifiers": 1\n'
        "  }\n"
        "}\n"
    )
    write_env(project, {"tools/__init__.py": "tools = [\n"}, name="other")
    code, out, _ = cli("env", "validate", "--env", "other", "--json")
    assert code == 1
    assert json.loads(out)["ok"] is False


def test_cli_unknown_environment(project: Path, cli) -> None:
    code, out, err = cli("env", "validate", "--env", "nowhere")
    assert code == 1
    assert out == ""
    assert err.startswith('error: environment_not_found: Environment "nowhere" was not found.')


def test_cli_missing_env_flag(project: Path, cli) -> None:
    assert cli("env", "validate") == (1, "", "error: Missing --env.\n")


def test_cli_validate_demo(project: Path, cli) -> None:
    if not demo_verifiers_written():
        pytest.fail("the demo environment has no verifiers")
    code, out, err = cli("env", "validate", "--env", "demo")
    assert (code, out, err) == (0, "OK\tdemo\tdata=9 tasks=6 tools=42 verifiers=6\n", "")


def test_validate_does_not_touch_the_environment(tmp_path: Path) -> None:
    env_dir = write_env(tmp_path)
    before = sorted(p.relative_to(env_dir).as_posix() for p in env_dir.rglob("*") if "__pycache__" not in p.parts)
    validate(NAME, cwd=tmp_path)
    shutil.rmtree(env_dir / "__pycache__", ignore_errors=True)
    after = sorted(p.relative_to(env_dir).as_posix() for p in env_dir.rglob("*") if "__pycache__" not in p.parts)
    assert before == after


def test_names_gymnasium_reads_as_versions_are_refused_and_reported(tmp_path, monkeypatch, make_env_dir):
    """An id ending in -v<digits> would make registration skip the whole environment: init and
    task add refuse such names, and validate reports an environment that has one."""
    import pytest

    from silo_gym import SiloError, validate
    from silo_gym.project import Silo

    monkeypatch.chdir(tmp_path)
    silo = Silo.open(tmp_path)
    with pytest.raises(SiloError) as err:
        silo.environments.create("shop-v2")
    assert err.value.code == "unsafe_name" and "-v2" in err.value.message
    assert not (tmp_path / ".silo" / "environments" / "shop-v2").exists()
    env = silo.environments.create("shop")
    env_handle = silo.environment("shop")
    with pytest.raises(SiloError) as err:
        env_handle.tasks.add({"id": "TASK-v2", "title": "t", "instruction": "i", "verifierId": "V"})
    assert err.value.code == "task_invalid" and 'Task id "TASK-v2" cannot be used' in err.value.message
    make_env_dir(tmp_path / ".silo" / "environments", "legacy",
                 tasks={"TASK-v3.json": {"id": "TASK-v3", "title": "t", "instruction": "i", "verifierId": "VER-001"}})
    report = validate("legacy", cwd=tmp_path)
    codes = [f.code for f in report.findings]
    assert "gym_id_invalid" in codes and not report.ok
    assert env is not None
