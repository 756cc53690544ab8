"""Everything a user needs is in the repository (issue 19, item 3): no page of README.md or docs/
points to a file a clone lacks (the team's spec pages beside the repository included), every
link and anchor resolves, and every "§N" names a numbered section that exists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
PAGE_IDS = [p.relative_to(ROOT).as_posix() for p in PAGES]

#: Pages of the development workspace's specification, which a clone does not have.
OUTSIDE = re.compile(r"silo-format|gym-api\.md|demo-crm\.md|project-world\.md|erp-world\.md|erp-tools\.md"
                     r"|\.\./shared|shared/spec|VARIANTS_CONTRACT", re.IGNORECASE)
LINK = re.compile(r"(?<!!)\[([^\]]+)\]\(([^)\s]+)\)")
CODE_PATH = re.compile(r"`((?:docs|examples|environments|tests|benchmarks|silo_gym|scripts)/[^`\s]*)`")
FENCE = re.compile(r"^```.*?^```", re.DOTALL | re.MULTILINE)
#: Paths a command creates (and .gitignore keeps out of the repository).
CREATED = {"benchmarks/results/"}


def _text(page: Path) -> str:
    return FENCE.sub("", page.read_text(encoding="utf-8"))  # code blocks show commands, not references


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = heading.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    headings = re.findall(r"^#{1,6} (.+)$", _text(page), re.MULTILINE)
    return {slug(h) for h in headings}


def _numbered_sections(page: Path) -> set[str]:
    headings = re.findall(r"^#{1,6} ([0-9]+(?:\.[0-9]+)*)[. ]", _text(page), re.MULTILINE)
    return set(headings)


def test_the_pages_are_found() -> None:
    assert {"README.md", "docs/format.md", "docs/worlds/demo.md", "docs/worlds/project.md"} <= set(PAGE_IDS)
    assert slug("6.2 `result.json`") == "62-resultjson"
    assert slug("1.1 `create_state(variant: int | None = None) -> State`") == \
        "11-create_statevariant-int--none--none---state"


@pytest.mark.parametrize("page", PAGES, ids=PAGE_IDS)
def test_no_page_points_outside_the_repository(page: Path) -> None:
    found = [(n, line.strip()) for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1)
             if OUTSIDE.search(line)]
    assert found == []


@pytest.mark.parametrize("page", PAGES, ids=PAGE_IDS)
def test_every_link_and_anchor_resolves(page: Path) -> None:
    broken = []
    for label, target in LINK.findall(_text(page)):
        if re.match(r"[a-z]+:", target):  # https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists() or ROOT not in file.parents and file != ROOT:
            broken.append(f"[{label}]({target}): no {path}")
        elif anchor and file.suffix == ".md" and anchor not in _anchors(file):
            broken.append(f"[{label}]({target}): no heading #{anchor} in {file.relative_to(ROOT)}")
    assert broken == []


@pytest.mark.parametrize("page", PAGES, ids=PAGE_IDS)
def test_every_repository_path_named_exists(page: Path) -> None:
    missing = [p for p in CODE_PATH.findall(_text(page))
               if not any(c in p for c in "<>*{}") and "..." not in p and p not in CREATED
               and not (ROOT / p.rstrip("/")).exists()]
    assert missing == []


@pytest.mark.parametrize("page", PAGES, ids=PAGE_IDS)
def test_every_section_sign_names_a_section_that_exists(page: Path) -> None:
    wrong = []
    text = _text(page)
    for match in re.finditer(r"§ ?([0-9]+(?:\.[0-9]+)*)", text):
        before = text[max(0, match.start() - 40):match.start()]
        named = re.findall(r"([\w./-]+\.md)\]?\s*$", before.rstrip("[ "))
        target = (page.parent / named[-1]).resolve() if named else page
        if not target.exists() or match.group(1) not in _numbered_sections(target):
            wrong.append(f"§{match.group(1)} (in {target.name})")
    assert wrong == []
