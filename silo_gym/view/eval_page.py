"""The viewer's page of evaluations (``silo-gym view EVAL_DIR``): the pass^k curve of each policy as
an inline SVG chart, each evaluation's per-task table with its health alarms, and links to the
page of every trial's run.

``EVAL_DIR`` is one evaluation's directory (it holds ``eval.json``), or a directory whose
subdirectories are evaluations (one curve per policy, to put several side by side). The runs are
those under each evaluation's ``runs/``; the trial of each run comes from its ``episodes.jsonl``.
An evaluation whose files cannot be read is shown with the reason, never failing the page.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..rounding import to_fixed
from .model import RunView, slug_for

__all__ = ["EvalView", "find_evals", "load_evals", "render_evals"]

_WIDTH, _PLOT_HEIGHT = 760, 260
_LEFT, _RIGHT, _TOP, _BOTTOM = 56, 24, 16, 44
_LEGEND_ROW = 20
#: Colours of the curves, in turn (readable on white, told apart in greyscale by their marks).
_COLOURS = ("#3f6fd8", "#d9480f", "#2b8a3e", "#862e9c", "#c2255c", "#0b7285", "#5c940d", "#495057")


def find_evals(source: Path) -> list[Path]:
    """The evaluation directories ``source`` stands for: itself when it holds ``eval.json``, else
    its subdirectories that do (by name); ``[]`` when none does."""
    if (source / "eval.json").is_file():
        return [source]
    if not source.is_dir():
        return []
    try:
        children = sorted(source.iterdir())
    except OSError:
        return []
    return [c for c in children if not c.name.startswith(".") and (c / "eval.json").is_file()]


@dataclass
class EvalView:
    """One evaluation as the page shows it: its label, the ``eval.json`` object (``None`` with a
    ``problem``), and per ``(task key, trial)`` the run id of the trial."""

    directory: Path
    label: str
    data: dict[str, Any] | None
    run_ids: dict[tuple[str, int], str] = field(default_factory=dict)
    problem: str | None = None


def load_evals(dirs: list[Path]) -> list[EvalView]:
    """Read each evaluation directory (its ``eval.json`` and ``episodes.jsonl``)."""
    from ..data.stream import STREAM_FILE, ResumeError, read_stream
    from ..eval import EvalError, load_report

    views = []
    for directory in dirs:
        try:
            report = load_report(directory / "eval.json")
        except EvalError as exc:
            views.append(EvalView(directory, directory.name, None, problem=str(exc)))
            continue
        run_ids: dict[tuple[str, int], str] = {}
        try:
            for row in read_stream(directory / STREAM_FILE):
                if isinstance(row.get("run_id"), str) and isinstance(row.get("episode"), int):
                    run_ids[(f"{row.get('environment')}/{row.get('task_id')}", row["episode"])] = row["run_id"]
        except (ResumeError, OSError):
            pass  # no links to runs; the figures stand without them
        views.append(EvalView(directory, report.policy, report.data, run_ids))
    labels = [v.label for v in views]
    for view in views:  # two evaluations of one policy: tell them apart by directory
        if labels.count(view.label) > 1:
            view.label = f"{view.label} ({view.directory.name})"
    return views


def _fixed(value: Any, digits: int = 2) -> str:
    return "-" if value is None else to_fixed(float(value), digits)


def _chart(views: list[EvalView]) -> dict[str, Any]:
    """The pass^k chart: per evaluation a solid pass^k polyline and a dashed pass@k one over
    ``k = 1..n``; dotted lines for the baselines' pass rates (of the first evaluation with them)."""
    shown = [v for v in views if v.data is not None]
    top_k = max((int(v.data["trials"]) for v in shown if v.data is not None), default=1)
    span_x = _WIDTH - _LEFT - _RIGHT
    span_y = _PLOT_HEIGHT - _TOP - _BOTTOM

    def x(k: int) -> float:
        return round(_LEFT + (span_x / 2 if top_k == 1 else (k - 1) * span_x / (top_k - 1)), 1)

    def y(value: float) -> float:
        return round(_TOP + (1.0 - max(0.0, min(1.0, value))) * span_y, 1)

    curves = []
    for i, view in enumerate(shown):
        assert view.data is not None
        overall = view.data["overall"]
        colour = _COLOURS[i % len(_COLOURS)]
        for name, dashed in (("pass_hat_k", False), ("pass_at_k", True)):
            values = overall.get(name) or {}
            points = [(int(k), v) for k, v in values.items() if isinstance(v, (int, float))]
            curves.append({
                "label": view.label, "metric": "pass^k" if name == "pass_hat_k" else "pass@k", "colour": colour,
                "dashed": dashed, "points": " ".join(f"{x(k)},{y(v)}" for k, v in points),
                "marks": [{"x": x(k), "y": y(v), "title": f"{view.label}: {'pass^' if not dashed else 'pass@'}{k} = "
                           f"{_fixed(v, 3)}"} for k, v in points],
            })
    baselines: list[dict[str, Any]] = []
    for view in shown:
        assert view.data is not None
        for name, words in (("reference", "reference"), ("do_nothing", "do-nothing")):
            base = (view.data["overall"].get("baselines") or {}).get(name)
            if base and base.get("pass_rate") is not None and not any(b["name"] == name for b in baselines):
                baselines.append({"name": name, "label": f"{words} pass rate {_fixed(base['pass_rate'])}",
                                  "y": y(base["pass_rate"])})
    ticks_y = [{"y": y(v), "label": _fixed(v, 2 if v not in (0.0, 1.0) else 0)} for v in (0.0, 0.25, 0.5, 0.75, 1.0)]
    ticks_x = [{"x": x(k), "label": str(k)} for k in range(1, top_k + 1)]
    legend = [{"label": v.label, "colour": _COLOURS[i % len(_COLOURS)], "y": _PLOT_HEIGHT + 8 + i * _LEGEND_ROW}
              for i, v in enumerate(shown)]
    return {"width": _WIDTH, "height": _PLOT_HEIGHT + 16 + len(legend) * _LEGEND_ROW, "left": _LEFT,
            "right": _WIDTH - _RIGHT, "top": _TOP, "bottom": _PLOT_HEIGHT - _BOTTOM, "curves": curves,
            "baselines": baselines, "ticks_y": ticks_y, "ticks_x": ticks_x, "legend": legend, "legend_x": _LEFT}


#: The health counters a table shows when not zero, with their words.
_HEALTH_WORDS = (("malformed_calls", "malformed"), ("unknown_tools", "unknown tool"),
                 ("invalid_arguments", "bad arguments"), ("answer_only_episodes", "answer only"),
                 ("model_failures", "failed"))


def _health_text(health: dict[str, Any]) -> list[dict[str, Any]]:
    """The non-zero health counters, each ``{"text", "bad"}`` (``bad``: it raises an alarm)."""
    bad = {"malformed_calls", "model_failures"}
    if health.get("answer_only_rewarded"):
        bad.add("answer_only_episodes")
    return [{"text": f"{words} {health[key]}", "bad": key in bad}
            for key, words in _HEALTH_WORDS if health.get(key)]


def _tables(views: list[EvalView], pages: set[str]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for view in views:
        if view.data is None:
            out.append({"label": view.label, "directory": str(view.directory), "problem": view.problem, "rows": []})
            continue
        data = view.data
        n = int(data["trials"])
        rows = []
        for key, entry in [*data["tasks"].items(), ("overall", data["overall"])]:
            health = entry["health"]
            bases = entry.get("baselines") or {}
            runs = []
            for episode in entry.get("episodes", []) if key != "overall" else []:
                run_id = view.run_ids.get((key, episode.get("trial")))
                slug = slug_for(Path(run_id)) if run_id else None
                state = ("failed" if episode.get("failure") else "pass" if episode.get("passed") else "fail")
                runs.append({"trial": int(episode.get("trial", 0)) + 1, "state": state,
                             "href": f"runs/{slug}.html" if slug in pages else None,
                             "title": f"trial {int(episode.get('trial', 0)) + 1}: "
                                      + (episode.get("error") or f"reward {_fixed(episode.get('reward'))}")})
            interval = entry.get("reward_ci95")
            alarms = health.get("alarms") or []
            rows.append({
                "key": key, "overall": key == "overall",
                "passes": f"{entry['successes']}/{entry['trials']}",
                "reward": _fixed(entry.get("mean_reward")),
                "interval": f"[{_fixed(interval[0])}, {_fixed(interval[1])}]" if interval else "",
                "pass1": _fixed(entry["pass_at_k"].get("1")), "pass_n": _fixed(entry["pass_at_k"].get(str(n))),
                "hat_n": _fixed(entry["pass_hat_k"].get(str(n))),
                "calls": _fixed(entry.get("tool_calls_per_episode"), 1),
                "errors": _fixed(entry.get("tool_errors_per_episode"), 1),
                "health": _health_text(health),
                "do_nothing": _fixed((bases.get("do_nothing") or {}).get("mean_reward")),
                "reference": _fixed((bases.get("reference") or {}).get("mean_reward")),
                "alarms": alarms if key != "overall" else [],
                "alarm_count": len(alarms),
                "runs": runs,
            })
        overall = data["overall"]
        tokens, latency = overall.get("tokens") or {}, overall.get("latency_ms") or {}
        facts = [f"{n} trial{'s' if n != 1 else ''} per task", f"worlds: {data.get('variants')}",
                 f"seed {data.get('seed')}"]
        if tokens.get("model_calls"):
            facts.append(f"{tokens['model_calls']} model calls")
            if tokens.get("in") is not None:
                facts.append(f"tokens in {tokens['in']}, out {tokens['out']}")
            if latency.get("calls"):
                facts.append(f"latency p50 {_fixed(latency['p50'], 0)} ms, p95 {_fixed(latency['p95'], 0)} ms")
        if overall.get("cost_usd") is not None:
            facts.append(f"cost ${overall['cost_usd']:.4f}")
        out.append({"label": view.label, "directory": str(view.directory), "problem": None, "rows": rows,
                    "n": n, "facts": facts})
    return out


def render_evals(jinja: Any, views: list[EvalView], runs: list[RunView], source: str) -> str:
    """The page (``index.html`` of the report) for ``views``, linking the pages of ``runs``."""
    pages = {run.slug for run in runs if run.problem is None}
    return str(jinja.get_template("eval.html.j2").render(
        source=source, evals=views, chart=_chart(views), tables=_tables(views, pages), run_count=len(runs)))
