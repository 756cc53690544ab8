"""What the viewer shows, in real headless Chromium (issue 19, item 18): chart labels that fit at
three-digit counts, latencies rounded for people, tool inputs shown beside their outputs, the
verifier's name, and an index split into pages of bounded size."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import gymnasium as gym
import pytest

pytest.importorskip("jinja2")

from golden import gate as g  # noqa: E402

import silo_gym  # noqa: E402
from silo_gym.view import ViewResult, build_view  # noqa: E402
from silo_gym.wrappers import RecordRun  # noqa: E402

COPIES = 121  # three-digit counts in the chart
PER_PAGE = 50


def _copy_run(template: Path, root: Path, index: int) -> Path:
    run_id = f"run_20260102{index // 3600:02d}{index // 60 % 60:02d}{index % 60:02d}_{index % 10000:04d}"
    target = root / run_id
    shutil.copytree(template, target)
    for name in ("trace.jsonl", "run.json"):
        path = target / name
        path.write_bytes(path.read_bytes().replace(template.name.encode(), run_id.encode()))
    return target


def _model_run(root: Path) -> Path:
    env = RecordRun(gym.make("silo/demo-TASK-002"), runs_dir=root)
    _, info = env.reset(seed=0)
    log = env.get_wrapper_attr("log_model_step")
    log([{"role": "user", "content": "go"}], {"role": "assistant", "content": "ok"}, usage=None,
        latency_ms=200.94734999997854, model="m")
    env.step({"tool": "search_leads", "input": {"query": "Fjord Maritime"}})
    env.step({"answer": "done"})
    return Path(info["run_dir"])


def _long_title_run(template: Path, root: Path) -> Path:
    """A copy whose task title is 200,000 characters (trace and run.json agree)."""
    target = _copy_run(template, root, 9999)
    title = json.loads((target / "run.json").read_text())["task"]["title"]
    for name in ("trace.jsonl", "run.json"):
        path = target / name
        path.write_text(path.read_text().replace(json.dumps(title)[1:-1], "T" * 200_000))
    return target


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, ViewResult]:
    root = tmp_path_factory.mktemp("visuals")
    runs = root / "runs"
    solved = Path(silo_gym.run_task("demo", "TASK-001", g.silo_agent("solver"), runs_dir=root / "template").run_dir)
    runs.mkdir()
    for i in range(COPIES):
        _copy_run(solved, runs, i)
    _model_run(runs)
    _long_title_run(solved, runs)
    return runs, build_view(runs, root / "out", runs_per_page=PER_PAGE)


def test_the_index_is_split_into_pages_of_bounded_size(report: tuple[Path, ViewResult]) -> None:
    runs, view = report
    total = COPIES + 2
    pages = sorted(view.out_dir.glob("index*.html"), key=lambda p: int(re.sub(r"\D", "", p.name) or 1))
    assert [p.name for p in pages] == ["index.html", "index-2.html", "index-3.html"]
    seen: list[str] = []
    for number, page in enumerate(pages, 1):
        html = page.read_text("utf-8")
        rows = re.findall(r'<tr class="run-row[^"]*" data-run="([^"]+)"', html)
        assert len(rows) == (PER_PAGE if number < len(pages) else total - 2 * PER_PAGE)
        seen += rows
        assert f"page {number} of {len(pages)}" in html
        assert len(html.encode()) < 250_000, page.name  # a 200,000-character title is shortened
        for other in range(1, len(pages) + 1):  # every page links every other one
            target = "index.html" if other == 1 else f"index-{other}.html"
            assert (f'href="{target}"' in html) == (other != number), (page.name, target)
    assert sorted(seen) == sorted(p.name for p in runs.iterdir())
    # A run page links back to the index page that lists it.
    last = seen[-1]
    assert 'href="../index-3.html"' in (view.out_dir / "runs" / f"{last}.html").read_text("utf-8")


# -- in the browser ------------------------------------------------------------------------------

pytest.importorskip("selenium")

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.remote.webdriver import WebDriver  # noqa: E402

from . import test_view_browser as shared  # noqa: E402

browser = shared.browser  # the same headless Chromium fixture (one per module)


def _open(browser: WebDriver, page: Path) -> list[dict]:
    """Load a page; return the console entries it logged."""
    browser.get_log("browser")
    browser.get(page.as_uri())
    assert browser.execute_script("return document.readyState") == "complete"
    return list(browser.get_log("browser"))


def _run_page(view: ViewResult, run_dir: Path) -> Path:
    return view.out_dir / "runs" / f"{run_dir.name}.html"


def test_chart_labels_fit_at_three_digit_counts(report: tuple[Path, ViewResult], browser: WebDriver) -> None:
    _, view = report
    assert _open(browser, view.index) == []
    first = browser.find_element(By.CSS_SELECTOR, "#reward-chart g.task-row")
    assert f"{COPIES + 1} runs, {COPIES + 1}/{COPIES + 1} passed" in first.text
    clipped = browser.execute_script("""
        const svg = document.getElementById('reward-chart');
        const width = svg.width.baseVal.value;
        return [...svg.querySelectorAll('text')].filter(t => {
            const box = t.getBBox();
            return box.x < 0 || box.x + box.width > width;
        }).map(t => t.textContent);
    """)
    assert clipped == []


def test_latency_is_rounded_and_inputs_show_beside_outputs(report: tuple[Path, ViewResult],
                                                           browser: WebDriver) -> None:
    runs, view = report
    model_run = next(p for p in runs.iterdir() if json.loads((p / "run.json").read_text())["taskId"] == "TASK-002")
    assert _open(browser, _run_page(view, model_run)) == []
    model = browser.find_element(By.CSS_SELECTOR, "ol.timeline li.model")
    assert "200.9 ms" in model.text and "200.947" not in model.text
    call = browser.find_element(By.CSS_SELECTOR, "ol.timeline li.call")
    facts = [f.text for f in call.find_elements(By.CSS_SELECTOR, ".fact") if f.is_displayed()]
    assert any(f.startswith("input: ") and "Fjord Maritime" in f for f in facts), facts
    assert any(f.startswith("output: ") for f in facts), facts


def test_the_verifier_is_named(report: tuple[Path, ViewResult], browser: WebDriver) -> None:
    runs, view = report
    some_run = sorted(runs.iterdir())[0]
    run = json.loads((some_run / "run.json").read_text())
    assert run["verifierName"]
    assert _open(browser, _run_page(view, some_run)) == []
    verifier = browser.find_element(By.ID, "verifier")
    assert verifier.is_displayed()
    assert run["verifierName"] in verifier.text and run["verifierId"] in verifier.text


def test_every_index_page_opens_without_console_errors(report: tuple[Path, ViewResult], browser: WebDriver) -> None:
    _, view = report
    for page in sorted(view.out_dir.glob("index*.html")):
        assert _open(browser, page) == [], page.name
