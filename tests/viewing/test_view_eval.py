"""``silo-gym view`` of evaluation directories: the pass^k chart per policy, the per-task tables with
their alarms and the links to each trial's run, in the files and in headless Chromium."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("jinja2")

import gymnasium as gym  # noqa: E402

from silo_gym.eval import evaluate, load_report  # noqa: E402
from silo_gym.view import ViewResult, build_view  # noqa: E402
from silo_gym.wrappers import RecordRun  # noqa: E402

from .runs import HOSTILE  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SOLVER = f"{ROOT / 'examples' / 'agents' / 'crm_solver.py'}:make_policy"
IDS = ["silo/demo-TASK-002", "silo/demo-TASK-004"]
MEMORISED = "The probability-weighted value of all open deals across the team is $507500."


def _flaky(observation: Any, info: dict[str, Any]) -> dict[str, Any]:
    """Fails every TASK-002 episode (a model error); answers TASK-004 from memory, no tool call (right
    in the canonical world only)."""
    if info.get("task_id") == "TASK-002":
        raise RuntimeError("HTTP 500 from the model server")
    return {"answer": MEMORISED}


@pytest.fixture(scope="module")
def evals(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, ViewResult]:
    root = tmp_path_factory.mktemp("evals")
    evaluate(IDS, SOLVER, trials=3, out_dir=root / "solver", reference=SOLVER)
    worlds = load_report(root / "solver").tasks
    evaluate(IDS, _flaky, trials=3, out_dir=root / "flaky", policy_name=HOSTILE, max_retries=0,
             variants={key: task["variants"] for key, task in worlds.items()})
    return root, build_view(root)


def test_the_eval_page_and_the_run_list_are_written(evals: tuple[Path, ViewResult]) -> None:
    root, view = evals
    assert view.index == root / "view" / "index.html"
    page = view.index.read_text()
    runs_page = (view.out_dir / "runs.html").read_text()
    assert 'id="pass-hat-k-chart"' in page and 'id="run-table"' in runs_page
    # 6 solver runs and 3 flaky ones (TASK-004: TASK-002's failed trials have no run).
    assert len(view.runs) == 9 and len(list((view.out_dir / "runs").iterdir())) == 9
    assert page.count('class="curve"') == 4  # pass^k and pass@k for each of the two policies
    links = re.findall(r'href="(runs/[^"]+\.html)"', page)
    assert len(links) == 9 and all((view.out_dir / link).is_file() for link in links)
    assert page.count('<span class="trial failed"') == 3
    assert "<script>" not in page and HOSTILE not in page  # the label is text, escaped
    # A second view of the same directory replaces the first (runs.html included).
    again = build_view(root)
    assert again.index.read_text().count('class="curve"') == 4


def test_a_single_evaluation_directory_is_viewed_alone(evals: tuple[Path, ViewResult], tmp_path: Path) -> None:
    root, _ = evals
    view = build_view(root / "solver", tmp_path / "one")
    page = view.index.read_text()
    assert page.count('class="curve"') == 2 and len(view.runs) == 6
    assert 'data-baseline="reference"' in page and 'data-baseline="do_nothing"' in page


def test_an_unreadable_evaluation_is_a_section_saying_why(tmp_path: Path) -> None:
    bad = tmp_path / "evals" / "broken"
    bad.mkdir(parents=True)
    (bad / "eval.json").write_text("{not json")
    # A run recorded beside the evaluations is listed too.
    env = RecordRun(gym.make("silo/demo-TASK-004"), runs_dir=tmp_path / "evals")
    env.reset()
    env.step({"answer": "nothing"})
    view = build_view(tmp_path / "evals", tmp_path / "out")
    page = view.index.read_text()
    assert "unreadable:" in page and "is not JSON" in page
    assert [r.task_id for r in view.runs] == ["TASK-004"] and "all 1 run" in page


selenium = pytest.importorskip("selenium")

from selenium.webdriver.common.by import By  # noqa: E402

from .test_view_browser import _open, browser, shots  # noqa: E402, F401  (fixtures)


def test_the_eval_page_in_chromium(evals: tuple[Path, ViewResult], browser: Any, shots: Path) -> None:  # noqa: F811
    _, view = evals
    assert _open(browser, view.index) == []
    assert browser.execute_script("return typeof window.__pwned") == "undefined"
    assert browser.execute_script("return document.querySelectorAll('script, img').length") == 0
    curves = browser.find_elements(By.CSS_SELECTOR, "#pass-hat-k-chart g.curve")
    assert [(c.get_attribute("data-policy"), c.get_attribute("data-metric")) for c in curves] == [
        (HOSTILE, "pass^k"), (HOSTILE, "pass@k"), (SOLVER, "pass^k"), (SOLVER, "pass@k")]
    solver_curve = curves[2].find_elements(By.TAG_NAME, "circle")
    assert len(solver_curve) == 3  # k = 1, 2, 3
    # pass^k of the solver is 1 at every k: every mark on the top line of the plot.
    assert len({c.get_attribute("cy") for c in solver_curve}) == 1
    sections = browser.find_elements(By.CSS_SELECTOR, "section.eval")
    assert [s.get_attribute("data-policy") for s in sections] == [HOSTILE, SOLVER]
    flaky_rows = {r.get_attribute("data-task"): r for r in sections[0].find_elements(By.CSS_SELECTOR, "tr.task-row")}
    alarms = [a.text for a in flaky_rows["demo/TASK-004"].find_elements(By.CSS_SELECTOR, ".alarm")]
    assert alarms == ["reward_without_tool_calls"]
    assert [a.text for a in flaky_rows["demo/TASK-002"].find_elements(By.CSS_SELECTOR, ".alarm")] == ["model_failures"]
    assert "failed 3" in flaky_rows["demo/TASK-002"].find_element(By.CSS_SELECTOR, "td.health").text
    assert flaky_rows["overall"].find_element(By.CSS_SELECTOR, ".alarm").text == "2 alarms"
    solver_rows = sections[1].find_elements(By.CSS_SELECTOR, "tr.task-row")
    first = solver_rows[0]
    assert first.find_element(By.CSS_SELECTOR, "td.pass-hat").text == "1.00"
    assert first.get_attribute("data-alarms") == "0"
    trial = first.find_elements(By.CSS_SELECTOR, "td.runs a.trial")
    assert [t.text for t in trial] == ["1", "2", "3"]
    browser.save_screenshot(str(shots / "eval.png"))
    href = trial[0].get_attribute("href")
    trial[0].click()
    assert browser.current_url == href and "/runs/run_" in href
    assert browser.find_element(By.ID, "verdict").text == "PASS"
    assert _open(browser, view.out_dir / "runs.html") == []
    assert len(browser.find_elements(By.CSS_SELECTOR, "#run-table tr.run-row")) == 9
