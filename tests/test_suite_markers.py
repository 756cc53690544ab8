"""The suite has a fast subset for development (issue 19, item 22): the heavy tests carry the
``slow`` marker, ``make test-fast`` leaves them out, and ``make test`` (what CI runs) keeps them."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: The 1,000-variant sweeps, marked test by test (checked by collecting their files).
MARKED_TESTS = {
    "tests/project/test_project_solver.py": ["test_solver_scores_1_and_a_blind_replay_fails_on_1000_variants"],
    "tests/demo/test_demo_variants.py": ["test_a_thousand_variants_of_each_task"],
}
#: Other heavy tests marked one by one (checked in their source: collecting them is slow itself).
MARKED_IN_SOURCE = {
    "tests/test_bench_worlds.py": ["test_bench_runs_at_each_scale_and_compares",
                                   "test_tools_bench_compares_each_size_with_1x_side_by_side"],
    "tests/validation/test_differential.py": ["test_decision_equals_jsonschema"],
    "tests/test_benchmarks_smoke.py": ["test_quick_benchmarks_write_their_results"],
    "tests/test_diff.py": ["test_property_matches_reference_algorithm", "test_property_state_vs_its_deep_copy_is_empty"],
}
#: Modules marked slow as a whole (a real training run, a Ray cluster, wheel builds).
MARKED_MODULES = ["tests/integrations/test_training_example.py", "tests/integrations/test_trl_grpo.py",
                  "tests/collect/test_ray_backend.py", "tests/test_packaging.py"]


def _collected(*args: str) -> list[str]:
    done = subprocess.run([sys.executable, "-m", "pytest", "--co", "-n", "0", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    assert done.returncode in (0, 5), done.stdout + done.stderr  # 5: every test deselected
    return [line for line in done.stdout.splitlines() if "::" in line]


def test_the_slow_marker_is_registered_and_markers_are_strict() -> None:
    options = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    assert any(marker.startswith("slow:") for marker in options["markers"])
    assert "--strict-markers" in options["addopts"]


def test_the_thousand_variant_sweeps_are_slow() -> None:
    files = list(MARKED_TESTS)
    slow = _collected("-m", "slow", *files)
    fast = _collected("-m", "not slow", *files)
    names = {re.sub(r"\[.*", "", node.split("::")[-1]) for node in slow}
    assert names == {name for tests in MARKED_TESTS.values() for name in tests}
    assert len([n for n in slow if "1000_variants" in n]) == 15  # one per project task
    assert len([n for n in slow if "thousand_variants" in n]) == 6  # one per demo task
    assert fast and not any(name in node for node in fast for tests in MARKED_TESTS.values() for name in tests)


def test_other_heavy_tests_are_marked_slow_in_their_source() -> None:
    for rel, names in MARKED_IN_SOURCE.items():
        source = (ROOT / rel).read_text(encoding="utf-8")
        for name in names:
            decorators = re.search(rf"((?:^@.*\n)+)def {name}\(", source, re.MULTILINE)
            assert decorators is not None and "@pytest.mark.slow" in decorators.group(1), (rel, name)


def test_heavy_modules_are_marked_slow_as_a_whole() -> None:
    for rel in MARKED_MODULES:
        source = (ROOT / rel).read_text(encoding="utf-8")
        assert re.search(r"^pytestmark = .*pytest\.mark\.slow", source, re.MULTILINE), rel


def test_make_test_runs_everything_and_make_test_fast_leaves_the_slow_tests_out() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8").replace("\\\n", " ")  # join continued lines
    recipes = dict(re.findall(r"^([a-z-]+):[^\n]*\n\t([^\n]+)", makefile, re.MULTILINE))
    assert '-m "not slow"' in recipes["test-fast"] and "pytest" in recipes["test-fast"]
    assert "pytest" in recipes["test"] and " -m " not in recipes["test"]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "`make test-fast`" in readme and "@pytest.mark.slow" in readme
