"""docs/authoring.md is executed: its commands run, its files are written, its outputs match."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "authoring.md"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n", re.DOTALL | re.MULTILINE)


def blocks() -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2)) for m in FENCE.finditer(GUIDE.read_text(encoding="utf-8"))]


def pattern(expected: str) -> re.Pattern[str]:
    """Expected output as a regex: ``<placeholder>`` matches anything, the duration any value."""
    parts = re.split(r"<[a-z]+>", expected)
    body = ".+?".join(re.escape(p) for p in parts)
    body = body.replace(re.escape("Duration:    0.0s"), r"Duration:\ \ \ \ [0-9.]+s")
    return re.compile(body, re.DOTALL)


def test_authoring_guide_runs(project: Path, cli) -> None:
    items = blocks()
    assert items, "the guide has code blocks"
    ran_python = 0
    for index, (lang, body) in enumerate(items):
        if lang == "bash":
            outputs = []
            for line in body.replace("\\\n", " ").splitlines():
                argv = shlex.split(line)
                assert argv[0] == "silo-gym", line
                code, out, err = cli(*argv[1:])
                assert (code, err) == (0, ""), (line, out, err)
                outputs.append(out)
            following = items[index + 1] if index + 1 < len(items) else None
            if following is not None and following[0] == "":
                assert pattern(following[1]).fullmatch("".join(outputs)), ("".join(outputs), following[1])
        elif lang == "python":
            first = body.splitlines()[0]
            if first.startswith("# ") and first.endswith(".py"):
                target = project / first[2:]
                target.write_text(body, encoding="utf-8")
            else:
                env = {**os.environ, "SILO_GYM_PATH": ""}
                done = subprocess.run([sys.executable, "-c", body], cwd=project, env=env,
                                      capture_output=True, text=True, timeout=120)
                assert done.returncode == 0, done.stderr
                ran_python += 1
    assert ran_python == 3


def test_the_guide_documents_every_finding_code() -> None:
    import inspect

    from silo_gym import validate_env, validate_variants

    table = re.findall(r"^\| `([a-z_]+)` \| (error|warning) \|", GUIDE.read_text(encoding="utf-8"), re.MULTILINE)
    codes = [code for code, _ in table]
    assert codes == [c for c in validate_env.FINDING_CODES if c != "typecheck_config_invalid"]
    source = inspect.getsource(validate_env) + inspect.getsource(validate_variants)
    emitted = set(re.findall(r'run\.(?:error|warning)\(\s*"([a-z_]+)"', source))
    emitted |= set(re.findall(r'guard\([^()]*"([a-z_]+)"', source))
    emitted |= set(re.findall(r'\.add\(\s*"(?:error|warning)",\s*"([a-z_]+)"', source))
    assert emitted <= set(validate_env.FINDING_CODES)
    assert emitted == set(codes)  # every documented code is emitted somewhere
