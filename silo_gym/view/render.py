"""``silo-gym view``: a static HTML report of run directories (issue 15).

Pages are rendered with Jinja2 (autoescape on, so everything an agent wrote is text, never
markup) and carry a Content-Security-Policy that allows no script at all: the report needs no
JavaScript, no server and no network. The reward chart is inline SVG drawn here.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import webbrowser
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import SiloError
from ..replay import Replayer
from ..rounding import to_fixed
from ..runs.rundir import RUN_ARTIFACTS
from .eval_page import find_evals, load_evals, render_evals
from .model import RunView, TaskSummary, load_run, summarize

__all__ = ["RUNS_PER_PAGE", "ViewResult", "build_view", "find_run_dirs"]

_GENERATOR = '<meta name="generator" content="silo-gym view">'
#: The index pages a report holds: ``index.html``, then ``index-2.html``... (the run list split).
_INDEX_PAGE = re.compile(r"(?:index|runs)(?:-[1-9][0-9]*)?\.html")
_SPAN = 360
_ROW = 26
#: A generous width per character of the chart's 12 px labels (digits and capitals are the widest
#: in common sans-serif faces), so a label never runs past the chart's edge.
_CHAR_PX = 7.5
_GAP = 10
#: Runs listed per index page (``index.html``, then ``index-2.html``...).
RUNS_PER_PAGE = 200


@dataclass
class ViewResult:
    """What ``build_view`` wrote: ``index`` (the page to open) and the runs it shows."""

    out_dir: Path
    index: Path
    runs: list[RunView]

    def text(self) -> str:
        broken = sum(1 for r in self.runs if r.problem is not None)
        extra = f" ({broken} unreadable)" if broken else ""
        return f"Wrote {len(self.runs)} run page{'s' if len(self.runs) != 1 else ''}{extra}; open {self.index}\n"


def _holds_a_run(names: set[str]) -> bool:
    return not names.isdisjoint(RUN_ARTIFACTS)


def find_run_dirs(runs_dir: Path, skip: Path | None = None) -> list[Path]:
    """The run directories under ``runs_dir``, or ``runs_dir`` itself when it is one. A run
    directory holds any of ``trace.jsonl``, ``result.json``, ``state-diff.json``, ``run.json``
    (whatever they are: one that cannot be read makes a row saying why); a directory that cannot
    be listed is one too, so it gets a row rather than vanishing. Hidden directories and ``skip``
    (the output) are left out.

    Raises:
        SiloError: ``run_invalid`` when ``runs_dir`` is not a directory or cannot be listed.
    """
    if not runs_dir.is_dir():
        raise SiloError("run_invalid", f"{runs_dir}: not a directory of runs (it does not exist or is not a "
                                       "directory).", {"runDir": str(runs_dir)})
    try:
        names = set(os.listdir(runs_dir))
    except OSError as exc:
        raise SiloError("run_invalid", f"{runs_dir}: cannot be read ({exc.strerror or exc}).",
                        {"runDir": str(runs_dir)}) from None
    if _holds_a_run(names):
        return [runs_dir]
    found = []
    for name in sorted(names):
        child = runs_dir / name
        if name.startswith(".") or not os.path.isdir(child) or (skip is not None and child == skip):
            continue
        try:
            inside = set(os.listdir(child))
        except OSError:
            found.append(child)  # read_run says why it cannot be read
            continue
        if _holds_a_run(inside):
            found.append(child)
    return found


def _text_px(text: str) -> float:
    return len(text) * _CHAR_PX


def _chart(summaries: list[TaskSummary]) -> dict[str, Any]:
    """The reward chart's geometry: the label column and the chart as wide as their longest text."""
    captions = []
    for s in summaries:
        caption = f"{s.runs} run{'s' if s.runs != 1 else ''}, {s.passed}/{s.graded} passed"
        if s.mean is not None:
            caption = f"mean {to_fixed(s.mean, 2)} · " + caption
        captions.append(caption)
    label_width = round(max([190.0, *(_text_px(s.label) + _GAP for s in summaries)]), 1)
    width = round(label_width + _SPAN + _GAP + max([200.0, *(_text_px(c) + _GAP for c in captions)]), 1)

    def x(reward: float) -> float:
        return round(label_width + max(0.0, min(1.0, reward)) * _SPAN, 1)

    rows = []
    top = 8
    for i, (s, caption) in enumerate(zip(summaries, captions, strict=True)):
        rows.append({
            "label": s.label,
            "y": top + i * _ROW,
            "bar": round(max(0.0, min(1.0, s.mean)) * _SPAN, 1) if s.mean is not None else None,
            "low": x(s.low) if s.low is not None else None,
            "high": x(s.high) if s.high is not None else None,
            "caption": caption,
        })
    ticks = [{"x": x(v), "label": label} for v, label in ((0.0, "0"), (0.5, "0.5"), (1.0, "1"))]
    return {"rows": rows, "ticks": ticks, "width": width, "height": top + len(rows) * _ROW + 22,
            "left": label_width, "span": _SPAN, "top": top}


def _jinja() -> Any:
    try:
        import jinja2
    except ModuleNotFoundError as exc:
        raise ModuleNotFoundError('silo-gym view needs Jinja2: pip install "silo-gym[view]"', name="jinja2") from exc
    return jinja2.Environment(
        loader=jinja2.PackageLoader("silo_gym.view", "templates"),
        autoescape=True,  # every template, whatever its name: agent text is never markup
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def _refused(out: Path, problem: str) -> SiloError:
    return SiloError("output_invalid", f"--out {out} {problem}", {"out": str(out)})


def _is_page(path: Path) -> bool:
    """A regular file (not a link) named ``*.html`` whose head carries this viewer's generator tag."""
    if path.suffix != ".html" or path.is_symlink() or not path.is_file():
        return False
    with open(path, "rb") as fh:
        head = fh.read(4000)
    return _GENERATOR.encode() in head


def _report_files(out: Path) -> tuple[list[Path], Path | None]:
    """The files of the earlier report in ``out`` (its pages), and the first thing in ``out`` this
    viewer does not write (``None`` when there is none): another file or directory, a link, a
    page without its generator tag, anything inside ``runs/`` but pages. ``out`` holds an earlier
    report only when its ``index.html`` is one of the viewer's pages."""
    files: list[Path] = []
    for name in sorted(os.listdir(out)):
        path = out / name
        if name == "runs" and path.is_dir() and not path.is_symlink():
            for page in sorted(os.listdir(path)):
                if not _is_page(path / page):
                    return files, path / page
                files.append(path / page)
        elif _INDEX_PAGE.fullmatch(name) and _is_page(path):
            files.append(path)
        else:
            return files, path
    return files, None


def _check_out_dir(out: Path, source: Path) -> None:
    """Refuse to replace anything but a missing or empty directory or an earlier report (nothing
    in it but the pages this viewer writes); a symbolic link is refused too (replacing it would
    either follow it and replace its target, or turn the user's link into a directory), and so is
    an ``out`` that holds the runs shown."""
    if os.path.islink(out):
        raise _refused(out, f"is a symbolic link (to {os.readlink(out)}); the report replaces its --out directory "
                            "whole, so give the directory itself, or remove the link.")
    inside = os.path.realpath(source)
    if os.path.commonpath([inside, os.path.realpath(out)]) == os.path.realpath(out):
        raise _refused(out, f"holds the runs to show ({source}); the report replaces its --out directory whole, "
                            "so write it somewhere else (the default is RUNS_DIR/view).")
    if not out.exists():
        return
    if not out.is_dir():
        raise _refused(out, "exists and is not a directory.")
    try:
        if not os.listdir(out):
            return
        _, foreign = _report_files(out)
        earlier = _is_page(out / "index.html")
    except OSError as exc:
        raise _refused(out, f"cannot be read ({exc.strerror or exc}).") from None
    if not earlier:
        raise _refused(out, "is not empty and holds no earlier silo-gym view; choose another directory (the "
                            "report replaces its --out directory).")
    if foreign is not None:
        raise _refused(out, f"holds an earlier silo-gym view and also {foreign}, which the view did not write; "
                            "move that out, or choose another directory (the report replaces its --out directory "
                            "and deletes only its own pages).")


def _remove_report(out: Path) -> None:
    """Delete the earlier report in ``out`` file by file, then its directories: only what
    :func:`_report_files` vouches for, so something added meanwhile makes this fail (``OSError``:
    the directory is not empty) instead of being deleted."""
    files, foreign = _report_files(out)
    if foreign is not None:
        raise _refused(out, f"changed while the report was written: it now holds {foreign}, which the view did not "
                            "write; nothing was replaced.")
    for path in files:
        path.unlink()
    if (out / "runs").is_dir():
        os.rmdir(out / "runs")
    os.rmdir(out)


def _index_name(page: int, stem: str = "index") -> str:
    """The file of page ``page`` of the run list: ``<stem>.html``, then ``<stem>-<page>.html``."""
    return f"{stem}.html" if page == 1 else f"{stem}-{page}.html"


def build_view(runs_dir: str | os.PathLike[str], out_dir: str | os.PathLike[str] | None = None, *,
               replay: bool = True, cwd: str | os.PathLike[str] | None = None,
               open_browser: bool = False, runs_per_page: int = RUNS_PER_PAGE) -> ViewResult:
    """Write the static report of every run under ``runs_dir`` (or of ``runs_dir`` itself).

    Writes ``<out_dir>/index.html`` and ``<out_dir>/runs/<run>.html``; ``out_dir`` defaults to
    ``<runs_dir>/view``. The run list is split into pages of ``runs_per_page`` runs
    (``index.html``, ``index-2.html``, ...), each with the reward chart of all runs and links to
    the others, and each row's text bounded, so no page grows with the runs. When ``runs_dir`` is
    an evaluation's directory (``eval.json``), or holds evaluations' directories, ``index.html``
    is the evaluations' page (:mod:`.eval_page`), the runs are those of their ``runs/``, and their
    list is ``runs.html``, ``runs-2.html``, ... The pages are built in a temporary directory beside ``out_dir`` and
    moved into place at the end, so an earlier report is replaced whole or not at all.
    ``replay`` replays each run that changed records (with its environment found from ``cwd``)
    to show their before and after; a run that cannot be replayed shows ids only, with a note.

    Every run directory that cannot be read, or breaks its format (see
    :func:`silo_gym.rundir.read_run`), is a row saying why; it never fails the report.

    Raises:
        SiloError: ``run_invalid`` when ``runs_dir`` is not a directory; ``output_invalid`` when
            ``out_dir`` is an empty path, a symbolic link, or a directory that holds something
            other than an earlier report.
        ValueError: ``runs_per_page`` below 1.
        ModuleNotFoundError: Jinja2 is missing (the ``view`` extra).
    """
    if isinstance(runs_per_page, bool) or not isinstance(runs_per_page, int) or runs_per_page < 1:
        raise ValueError(f"runs_per_page must be a whole number of at least 1, got {runs_per_page!r}.")
    if out_dir is not None and os.fspath(out_dir) == "":
        raise SiloError("output_invalid", 'The output directory is an empty path (""); give a directory, or leave '
                                          "--out out for the default RUNS_DIR/view.", {"out": ""})
    source = Path(runs_dir)
    out = Path(out_dir) if out_dir is not None else source / "view"
    out = Path(os.path.abspath(out))
    evals = find_evals(source)  # an evaluation's directory: its page is the index (.eval_page)
    if evals == [source]:
        run_dirs = find_run_dirs(source / "runs", skip=out) if (source / "runs").is_dir() else []
    else:  # the evaluations' runs, and any runs beside them
        run_dirs = [d for e in evals if (e / "runs").is_dir() for d in find_run_dirs(e / "runs", skip=out)]
        run_dirs += find_run_dirs(source, skip=out)
    _check_out_dir(out, source)
    env = _jinja()
    replayer = Replayer(cwd) if replay else None
    try:
        views = [load_run(run_dir, replayer) for run_dir in run_dirs]
    finally:
        if replayer is not None:
            replayer.close()
    # Newest first (ISO start times sort as text); unreadable runs last.
    views.sort(key=lambda v: (v.started_at, v.run_id), reverse=True)
    views.sort(key=lambda v: v.problem is not None)
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    os.chmod(staging, 0o755)  # mkdtemp makes 0700; the report is a directory to share
    try:
        (staging / "runs").mkdir()
        pages = [views[i:i + runs_per_page] for i in range(0, len(views), runs_per_page)] or [[]]
        listing_stem = "runs" if evals else "index"  # with evaluations, index.html is theirs
        links = [{"number": n, "href": _index_name(n, listing_stem)} for n in range(1, len(pages) + 1)]
        for number, listed in enumerate(pages, 1):
            for view in listed:
                view.index_href = f"../{_index_name(number, listing_stem)}"
        page = env.get_template("run.html.j2")
        for view in views:
            if view.problem is None:
                _write_page(staging / "runs" / f"{view.slug}.html", page.render(run=view))
        chart = _chart(summarize(views))
        listing = env.get_template("index.html.j2")
        for number, listed in enumerate(pages, 1):
            index = listing.render(runs=listed, total=len(views), source=str(source), chart=chart,
                                   page=number, pages=links, first=(number - 1) * runs_per_page + 1)
            _write_page(staging / _index_name(number, listing_stem), index)
        if evals:
            _write_page(staging / "index.html", render_evals(env, load_evals(evals), views, str(source)))
        if out.exists():
            _remove_report(out)
        os.replace(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    result = ViewResult(out, out / "index.html", views)
    if open_browser:
        webbrowser.open(result.index.as_uri())
    return result


def _write_page(path: Path, text: str) -> None:
    """Write a page as UTF-8; a lone surrogate an agent wrote (valid in a Python str, not in
    UTF-8) is shown as its escape, ``\\ud800``, instead of failing the whole report."""
    path.write_bytes(text.encode("utf-8", "backslashreplace"))
