"""The run viewer's pages in real headless Chromium (Debian's ``chromium`` + ``chromedriver``,
which ``make test`` installs through ``scripts/ensure_browser.sh``; ``SILO_GYM_CHROMIUM`` and
``SILO_GYM_CHROMEDRIVER`` point elsewhere): DOM assertions, no console errors, no agent script
ever runs.

Screenshots are kept under the session's temporary directory (the path is printed)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("jinja2")
pytest.importorskip("selenium")

from conftest import REQUIRE_EXTRAS  # noqa: E402
from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.remote.webdriver import WebDriver  # noqa: E402

from silo_gym.view import ViewResult, build_view  # noqa: E402

from .runs import HOSTILE, Runs, make_runs  # noqa: E402

CHROMIUM = os.environ.get("SILO_GYM_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("SILO_GYM_CHROMEDRIVER", "/usr/bin/chromedriver")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1280,1600"]


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Runs, ViewResult]:
    runs = make_runs(tmp_path_factory.mktemp("viewer") / "runs")
    return runs, build_view(runs.root)


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebDriver]:
    missing = [path for path in (CHROMIUM, CHROMEDRIVER) if not Path(path).is_file()]
    if missing:
        message = f"{', '.join(missing)} not installed: run sh scripts/ensure_browser.sh (make test does)"
        if REQUIRE_EXTRAS:
            pytest.fail(message)
        pytest.skip(message)
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("view-screenshots")
    print(f"\nviewer screenshots: {path}")
    return path


def _open(browser: WebDriver, page: Path) -> list[dict[str, Any]]:
    """Load a page; return the console entries it logged (read and cleared)."""
    browser.get_log("browser")  # drop whatever an earlier page left
    browser.get(page.as_uri())
    assert browser.execute_script("return document.readyState") == "complete"
    return list(browser.get_log("browser"))


def _page(view: ViewResult, run_dir: Path) -> Path:
    return view.out_dir / "runs" / f"{run_dir.name}.html"


def _result(run_dir: Path) -> dict[str, Any]:
    return json.loads((run_dir / "result.json").read_text())


def test_index_lists_every_run_and_charts_each_task(report: tuple[Runs, ViewResult], browser: WebDriver,
                                                    shots: Path) -> None:
    runs, view = report
    assert _open(browser, view.index) == []
    rows = browser.find_elements(By.CSS_SELECTOR, "#run-table tr.run-row")
    assert len(rows) == 6
    by_run = {row.get_attribute("data-run"): row for row in rows}
    solver = by_run[runs.solver.name]
    cells = [td.text for td in solver.find_elements(By.TAG_NAME, "td")]
    assert cells[1].startswith("demo / TASK-001") and cells[2] == "1.00" and cells[3] == "PASS"
    assert cells[4] == "completed" and cells[5] == "2"
    tool_path = [td.text for td in by_run[runs.tool_path.name].find_elements(By.TAG_NAME, "td")]
    assert tool_path[3] == "PASS" and tool_path[5] == "10 (4 errors)"
    crashed = [td.text for td in by_run[runs.crashed.name].find_elements(By.TAG_NAME, "td")]
    assert crashed[3] == "not graded" and crashed[4] == "not ended"
    unreadable = browser.find_element(By.CSS_SELECTOR, "tr.unreadable")
    assert "does not start with a run_start event" in unreadable.text
    # One chart row per task; TASK-001 mixes a pass (solver), a hostile fail and the crash.
    tasks = [g.get_attribute("data-task") for g in browser.find_elements(By.CSS_SELECTOR, "#reward-chart g.task-row")]
    assert tasks == ["demo / TASK-001", "demo / TASK-002", "demo / TASK-003"]
    first = browser.find_element(By.CSS_SELECTOR, "#reward-chart g.task-row")
    assert "mean 1.00 · 2 runs, 1/1 passed" in first.text
    bar = float(first.find_element(By.CSS_SELECTOR, "rect.mean-bar").get_attribute("width") or "0")
    assert bar == 360.0
    solver.find_element(By.TAG_NAME, "a").click()
    assert browser.current_url == _page(view, runs.solver).as_uri()
    browser.save_screenshot(str(shots / "index.png"))


def test_a_run_page_shows_timeline_checks_and_before_after(report: tuple[Runs, ViewResult], browser: WebDriver,
                                                           shots: Path) -> None:
    runs, view = report
    assert _open(browser, _page(view, runs.solver)) == []
    result = _result(runs.solver)
    assert browser.find_element(By.ID, "verdict").text == "PASS"
    checks = browser.find_elements(By.CSS_SELECTOR, "#check-table tr.check-row")
    assert [c.find_element(By.CSS_SELECTOR, "td").text for c in checks] == [c["label"] for c in result["checks"]]
    assert [c.find_element(By.CSS_SELECTOR, "td.verdict").text for c in checks] == ["PASS"] * len(result["checks"])
    calls = browser.find_elements(By.CSS_SELECTOR, "ol.timeline li.call")
    assert [c.find_element(By.CSS_SELECTOR, ".item-title").text for c in calls] == ["#1 search_leads", "#2 convert_lead"]
    # The converted lead: its changed fields, and its full before and after once unfolded.
    lead = browser.find_element(By.CSS_SELECTOR, '.collection[data-key="leads"] .diff-entry[data-id="LEAD-004"]')
    fields = {row.find_elements(By.TAG_NAME, "td")[0].text: [td.text for td in row.find_elements(By.TAG_NAME, "td")[1:]]
              for row in lead.find_elements(By.CSS_SELECTOR, "table.field-changes tbody tr")}
    assert fields["status"] == ['"qualified"', '"converted"']
    assert fields["convertedAccountId"] == ["null", '"ACC-012"']
    before = lead.find_element(By.CSS_SELECTOR, "pre.before")
    assert not before.is_displayed()
    lead.find_element(By.TAG_NAME, "summary").click()
    assert before.is_displayed() and '"status": "qualified"' in before.text
    assert '"status": "converted"' in lead.find_element(By.CSS_SELECTOR, "pre.after").text
    added = browser.find_element(By.CSS_SELECTOR, '.collection[data-key="opportunities"] .diff-entry.added')
    assert added.get_attribute("data-id") == "OPP-017"
    # Inputs and outputs are folded until asked for.
    output = calls[1].find_elements(By.CSS_SELECTOR, "details pre")[1]
    assert not output.is_displayed()
    browser.save_screenshot(str(shots / "run-solver.png"))


def test_errors_and_unfinished_runs_are_shown(report: tuple[Runs, ViewResult], browser: WebDriver) -> None:
    runs, view = report
    assert _open(browser, _page(view, runs.tool_path)) == []
    result = _result(runs.tool_path)
    assert len(browser.find_elements(By.CSS_SELECTOR, "ol.timeline li.call")) == result["toolCalls"]
    assert len(browser.find_elements(By.CSS_SELECTOR, "ol.timeline li.call.is-error")) == result["toolErrors"]
    assert browser.find_element(By.CSS_SELECTOR, "ol.timeline li.answer").text.startswith("answer")

    assert _open(browser, _page(view, runs.crashed)) == []
    notes = browser.find_element(By.CSS_SELECTOR, "ul.notes").text
    assert "trace.jsonl: the last line (line 3, 30 bytes) has no line end" in notes and "No result.json" in notes
    assert browser.find_element(By.ID, "verdict").text == "not graded"


def test_hostile_agent_output_never_executes(report: tuple[Runs, ViewResult], browser: WebDriver,
                                             shots: Path) -> None:
    runs, view = report
    for page in (view.index, _page(view, runs.hostile)):
        assert _open(browser, page) == []
        assert browser.execute_script("return typeof window.__pwned") == "undefined"
        assert browser.execute_script("return document.querySelectorAll('script, img').length") == 0
    for details in browser.find_elements(By.TAG_NAME, "summary"):
        details.click()
    assert browser.execute_script("return typeof window.__pwned") == "undefined"
    assert browser.find_element(By.ID, "answer").text == HOSTILE
    timeline = browser.find_element(By.CSS_SELECTOR, "ol.timeline").text
    assert timeline.count(HOSTILE) >= 4  # the model turn, a tool's input, an unknown tool's name, the answer
    model = browser.find_element(By.CSS_SELECTOR, "ol.timeline li.model")
    assert "3.5 ms" in model.text and HOSTILE in model.find_element(By.CSS_SELECTOR, ".item-title").text
    browser.save_screenshot(str(shots / "run-hostile.png"))


def test_every_page_opens_without_console_errors(report: tuple[Runs, ViewResult], browser: WebDriver) -> None:
    _, view = report
    pages = [view.index, *sorted((view.out_dir / "runs").iterdir())]
    assert len(pages) == 1 + 5  # the unreadable run has a row, not a page
    for page in pages:
        assert _open(browser, page) == [], page.name
