"""Every relative link in the repository's Markdown files points to a file or folder that
exists inside the repository."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SKIPPED_DIRS = {".venv", "results", "build", "dist", "node_modules"}
FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)
INLINE_LINK = re.compile(r"!?\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_DEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$", re.M)
EXTERNAL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")  # http:, https:, mailto:, ...


def markdown_files(root: Path) -> list[Path]:
    """The *.md files under ``root``, outside hidden and generated folders."""
    return sorted(
        p
        for p in root.rglob("*.md")
        if not any(
            part.startswith(".") or part in SKIPPED_DIRS for part in p.relative_to(root).parts[:-1]
        )
    )


def link_targets(text: str) -> list[str]:
    """The targets of inline links, images and reference definitions, outside code."""
    prose = CODE_SPAN.sub("", FENCE.sub("", text))
    return INLINE_LINK.findall(prose) + REFERENCE_DEF.findall(prose)


def broken_links(path: Path, root: Path) -> list[str]:
    """The relative links of ``path`` whose file or folder is missing or outside ``root``."""
    broken = []
    for target in link_targets(path.read_text(encoding="utf-8")):
        if EXTERNAL.match(target) or target.startswith("#"):
            continue
        local = target.split("#", 1)[0].split("?", 1)[0]
        base = root if local.startswith("/") else path.parent
        resolved = (base / local.lstrip("/")).resolve()
        if not resolved.is_relative_to(root.resolve()) or not resolved.exists():
            broken.append(target)
    return broken


@pytest.mark.parametrize("path", markdown_files(ROOT), ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_point_to_files_that_exist(path):
    assert broken_links(path, ROOT) == []


def test_the_readme_and_the_docs_are_checked():
    checked = {str(p.relative_to(ROOT)) for p in markdown_files(ROOT)}
    assert {"README.md", "docs/usage.md", "benchmarks/README.md"} <= checked


def test_a_missing_file_an_escape_and_a_bad_fragment_path_are_found(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "there.md").write_text("# there\n")
    page = tmp_path / "docs" / "page.md"
    page.write_text(
        "[ok](there.md) [ok with anchor](there.md#there) [top](#page) [web](https://example.org)\n"
        "![ok image](../docs/there.md) [root](/docs/there.md)\n"
        "[missing](gone.md) [anchor on missing](gone.md#x) [outside](../../elsewhere.md)\n"
        "`[in code](gone-in-code.md)`\n"
        "```\n[in a fence](gone-in-fence.md)\n```\n"
        "[ref]: missing-ref.md\n"
    )
    assert broken_links(page, tmp_path) == [
        "gone.md",
        "gone.md#x",
        "../../elsewhere.md",
        "missing-ref.md",
    ]
