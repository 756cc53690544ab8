"""Every error silo_gym raises on purpose derives from one base, ``SiloGymError`` (issue 23).

The test walks every module of the package, so an error class added later without the base fails
here, naming its module.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import pickle
import pkgutil
from pathlib import Path
from typing import get_args

import pytest

import silo_gym
from silo_gym.errors import (
    SILO_ERROR_CODES,
    TOOL_ERROR_CODES,
    SiloError,
    SiloErrorCode,
    SiloGymError,
    ToolError,
    ToolErrorCode,
    VerifierError,
)
from silo_gym.loader import open_environment

#: Exception classes that are signals, not errors: ``--help`` ends a command with exit 0.
NOT_ERRORS = {"silo_gym.cli.parser.HelpRequested"}


def _walk() -> tuple[list[type[BaseException]], list[tuple[str, Path]]]:
    """Import every module; return the exception classes defined there and the modules that did not
    import (optional extras that are not installed)."""
    classes: list[type[BaseException]] = []
    unimported: list[tuple[str, Path]] = []
    for info in pkgutil.walk_packages(silo_gym.__path__, "silo_gym."):
        if info.name.endswith("__main__"):
            continue  # running it is the CLI
        try:
            module = importlib.import_module(info.name)
        except ImportError:
            spec = importlib.util.find_spec(info.name)
            assert spec is not None and spec.origin is not None
            unimported.append((info.name, Path(spec.origin)))
            continue
        for value in vars(module).values():
            if inspect.isclass(value) and issubclass(value, Exception) and value.__module__ == info.name:
                classes.append(value)
    return classes, unimported


def test_every_public_exception_class_in_silo_gym_derives_from_silo_gym_error() -> None:
    classes, _ = _walk()
    names = {f"{c.__module__}.{c.__qualname__}" for c in classes}
    # The walk really sees the package's errors (a walk that found nothing would pass vacuously).
    assert {"silo_gym.errors.SiloError", "silo_gym.eval.worlds.EvalError", "silo_gym.runs.trace.TraceCorrupt"} <= names
    missing = sorted(
        f"{c.__module__}.{c.__qualname__}"
        for c in classes
        if not issubclass(c, Warning)
        and not c.__name__.startswith("_")  # private: never leaves its module
        and f"{c.__module__}.{c.__qualname__}" not in NOT_ERRORS
        and not issubclass(c, SiloGymError)
    )
    assert missing == []


def test_modules_that_need_an_extra_define_no_exception_class() -> None:
    # Their classes cannot be imported without the extra, so check their source instead.
    _, unimported = _walk()
    for name, path in unimported:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                bases = [ast.unparse(base) for base in node.bases]
                assert not any(b.endswith(("Error", "Exception")) for b in bases), (name, node.name, bases)


@pytest.mark.parametrize(
    ("name", "old_base"),
    [
        ("silo_gym.eval.worlds.EvalError", ValueError),
        ("silo_gym.data.stream.ResumeError", ValueError),
        ("silo_gym.runs.trace.TraceCorrupt", ValueError),
        ("silo_gym.runs.files.NotARegularFile", OSError),
        ("silo_gym.runs.files.RunFileTooLarge", OSError),
        ("silo_gym.spaces.flatten.SpaceNotFlattenableError", NotImplementedError),
        ("silo_gym.spaces.flatten.SharedMemoryUnsupportedError", ValueError),
        ("silo_gym.cli.parser.FlagError", importlib.import_module("silo_gym.cli.parser").UsageError),
    ],
)
def test_errors_keep_the_bases_callers_catch(name: str, old_base: type[BaseException]) -> None:
    module, _, cls = name.rpartition(".")
    error = getattr(importlib.import_module(module), cls)
    assert issubclass(error, old_base)
    assert issubclass(error, SiloGymError)


def test_except_silo_gym_error_catches_a_real_failure(tmp_path: Path) -> None:
    with pytest.raises(SiloGymError) as caught:
        open_environment("no-such-world", cwd=tmp_path)
    assert isinstance(caught.value, SiloError)
    assert caught.value.code == "environment_not_found"


def test_signals_are_not_errors() -> None:
    from silo_gym.cli import Terminated
    from silo_gym.cli.parser import HelpRequested
    from silo_gym.errors import SiloRegistrationWarning

    assert not issubclass(HelpRequested, SiloGymError)
    assert not issubclass(Terminated, SiloGymError)
    assert not issubclass(SiloRegistrationWarning, SiloGymError)


def test_error_codes_are_a_typed_set_in_the_spec_order() -> None:
    assert SILO_ERROR_CODES == get_args(SiloErrorCode)
    assert len(set(SILO_ERROR_CODES)) == len(SILO_ERROR_CODES) == 30
    assert SILO_ERROR_CODES[0] == "environment_not_found"
    assert SILO_ERROR_CODES[-1] == "not_registered"
    assert TOOL_ERROR_CODES == get_args(ToolErrorCode)
    assert TOOL_ERROR_CODES == ("invalid_input", "not_found", "invalid_state", "not_allowed", "limit_exceeded", "conflict")


def test_errors_still_pickle_with_their_facts() -> None:
    # Vector workers send errors back to the parent; a new base must not lose code or details.
    error = pickle.loads(pickle.dumps(VerifierError("boom", {"taskId": "T"})))
    assert (type(error), error.code, error.details, str(error)) == (VerifierError, "verifier_failed", {"taskId": "T"}, "boom")
    tool = pickle.loads(pickle.dumps(ToolError("not_found", "No such item.", {"id": 3})))
    assert (tool.code, tool.message, tool.details) == ("not_found", "No such item.", {"id": 3})
