"""Safe names (silo-format §12.1)."""

from __future__ import annotations

import pytest

from silo_gym import SiloError
from silo_gym.names import check_safe_name, is_safe_name

UNSAFE = [
    "",
    "../x",
    "..",
    ".",
    ".hidden",
    "/etc",
    "a/b",
    "a\\b",
    "-x",
    "_x",
    "a b",
    "abc\n",
    "abc\r",
    "\nabc",
    "a\x00b",
    "ｄemo",  # fullwidth d
    "demо",  # Cyrillic o
    "٣abc",  # Arabic-Indic digit
    "x" * 101,
    "CON",
    "con",
    "Con.txt",
    "nul.txt",
    "NUL",
    "prn",
    "AUX.tar.gz",
    "COM1",
    "com9.log",
    "LPT1",
    "lpt9.x",
    "COM1.",
    "a:b",
    "a*b",
]

SAFE = [
    "a",
    "0",
    "demo",
    "TASK-001",
    "a.b_c-d",
    "x" * 100,
    "CONSOLE",
    "CON_",
    "COM0",
    "COM10",
    "LPT",
    "nul-x",
    "9lives",
    "a..b",
]


@pytest.mark.parametrize("name", UNSAFE)
def test_unsafe_names_are_refused(name: str) -> None:
    assert is_safe_name(name) is False
    with pytest.raises(SiloError) as info:
        check_safe_name(name, "task")
    err = info.value
    assert err.code == "unsafe_name"
    assert err.details == {"kind": "task", "name": name}
    assert err.message == (
        f'Task name "{name}" is not allowed: use letters, digits, ".", "_" and "-", '
        "starting with a letter or digit."
    )


@pytest.mark.parametrize("name", SAFE)
def test_safe_names_pass(name: str) -> None:
    assert is_safe_name(name) is True
    assert check_safe_name(name, "environment") == name


@pytest.mark.parametrize("value", [None, 5, b"abc", ["a"]])
def test_non_strings_are_unsafe(value: object) -> None:
    assert is_safe_name(value) is False
    with pytest.raises(SiloError) as info:
        check_safe_name(value, "dataset")
    assert info.value.code == "unsafe_name"
    assert info.value.details == {"kind": "dataset", "name": value}


@pytest.mark.parametrize(
    ("kind", "label"),
    [("environment", "Environment"), ("dataset", "Dataset"), ("task", "Task"), ("tool", "Tool"),
     ("verifier", "Verifier")],
)
def test_kind_labels(kind: str, label: str) -> None:
    with pytest.raises(SiloError) as info:
        check_safe_name("../x", kind)
    assert info.value.message.startswith(f'{label} name "../x" is not allowed: ')
    assert info.value.details == {"kind": kind, "name": "../x"}


@pytest.mark.parametrize("name", ["State", "_x", "CrmState", "a1_b"])
def test_state_type_pattern_accepts_identifiers(name: str) -> None:
    assert check_safe_name(name, "stateType") == name


@pytest.mark.parametrize("name", ["1State", "a-b", "a.b", "", "State\n", "Ｓtate"])
def test_state_type_pattern_refuses(name: str) -> None:
    with pytest.raises(SiloError) as info:
        check_safe_name(name, "stateType")
    assert info.value.code == "unsafe_name"
    assert info.value.details == {"kind": "stateType", "name": name}
