"""Every README section the code points a user to exists (issue 40: the rerank error named a
section "Rerankers" that the README does not have). A citation is `README: Section` or
`README "Section"` in any module of workbench/, screens/ or index/; the section is a heading of
the documentation — README.md or a page of the site under docs/ (issue 41 moved the manual there,
each old README section a page of the same heading) — that starts with those words. A backticked
citation (`README: \\`eval --json\\``) names text the documentation must hold."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CITED = re.compile(r"README(?::\s*|\s+\")(`[^`]+`|[A-Z][^)\"\n.;,]*)")


def citations() -> list[tuple[str, int, str]]:
    out = []
    for folder in ("workbench", "screens", "index"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                out += [(str(path.relative_to(ROOT)), n, m.group(1).strip()) for m in CITED.finditer(line)]
    return out


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def headings() -> list[str]:
    out, fenced = [], False
    for page in pages():
        for line in page.read_text(encoding="utf-8").splitlines():
            if line.lstrip().startswith("```"):
                fenced = not fenced
            elif not fenced and line.startswith("#") and not line.startswith("#!"):
                out.append(line.lstrip("#").strip())
    return out


def test_every_readme_section_the_code_cites_exists():
    found = citations()
    assert any(name == "Trying a fix" for _, _, name in found)  # the scan sees the citations it must check
    readme = "\n".join(page.read_text(encoding="utf-8") for page in pages())
    heads = [h.lower() for h in headings()]
    missing = []
    for where, line, name in found:
        if name.startswith("`"):
            ok = name.strip("`") in readme
        else:
            ok = any(h.startswith(name.lower()) for h in heads)
        if not ok:
            missing.append(f"{where}:{line} cites README {name!r}")
    assert not missing, "\n".join(missing)


def test_the_rerank_error_points_to_a_section_that_exists():
    from types import SimpleNamespace

    import pytest

    from workbench.rerank.errors import RerankError
    from workbench.rerank.scorers import reranker_config

    project = SimpleNamespace(config=SimpleNamespace(rerankers={}))
    with pytest.raises(RerankError) as raised:
        reranker_config(project, "ce")  # type: ignore[arg-type]
    said = f"{raised.value} {raised.value.hint}"
    [name] = [m.group(1).strip() for m in CITED.finditer(said)]
    assert any(h.lower().startswith(name.lower()) for h in headings()), said
