"""Hostile text in the reports (issue 20 item 8): bare URLs in titles and answers must not become
links under GitHub-flavoured Markdown (checked with cmark-gfm, GitHub's own renderer), and
zero-width characters must show, in Markdown and HTML, as <U+XXXX>."""

from __future__ import annotations

import cmarkgfm
import msgspec
import pytest

from support import diagnosis as ds
from workbench.access.ladder import load_tiers
from workbench.project.load import load_project
from workbench.report import build_query_page, build_report, render
from workbench.report.markdown import md
from workbench.report.text import shown

URL_TITLE = "Berlin https://evil.example/login www.evil.example ftp://x.example/f HTTPS://UP.example"
ZW = "Ber\u200blin\u200d \ufeffWall\u2060"
URL_ANSWER = "see https://phish.example/p or www.phish.example\u200b now"


def gfm(markdown: str) -> str:
    return cmarkgfm.github_flavored_markdown_to_html(markdown)


@pytest.fixture(scope="module")
def hostile_root(tmp_path_factory):
    """The tiny project with document 3 (q1's near miss) titled with URLs and zero-width characters,
    and q1's retrieve-then-read answer carrying a URL."""
    docs = [msgspec.structs.replace(d, title=f"{URL_TITLE} {ZW}") if d.doc_id == 3 else d for d in ds.DOCS]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ds, "DOCS", docs)
        root = ds.make_project(tmp_path_factory.mktemp("text") / "tiny")
    ds.fill(root)
    p = load_project(root)
    for t in load_tiers(p).tiers:
        if t.kind != "base":
            ds.store_answers(p, t, "rag", {**ds.RAG["full"], "q1": (URL_ANSWER, [3, 2])})
    return root


def test_md_escapes_autolinks_and_shows_zero_width():
    for text in (URL_TITLE, URL_ANSWER, "mixed www.a.example and http://b.example/x?y=1"):
        assert "<a " not in gfm(md(text)), md(text)
        assert gfm(md(text)).count("example") == text.count("example")  # the text itself is all there
    assert "<a " in gfm(URL_TITLE)  # the unescaped text does link: what is being prevented
    assert md(ZW) == "Ber&lt;U+200B&gt;lin&lt;U+200D&gt; &lt;U+FEFF&gt;Wall&lt;U+2060&gt;"
    assert shown("a\u200cb\u00adc\u202ed") == "a<U+200C>b<U+00AD>c<U+202E>d"


def test_project_and_query_reports_have_no_links_and_no_invisible_characters(hostile_root):
    p = load_project(hostile_root)
    tiers = load_tiers(p).tiers
    for doc in (build_report(p, tiers, seed=0), build_query_page(p, tiers, "q1", seed=0)):
        markdown = render(doc, "md").decode()
        assert "evil.example" in markdown and "phish.example" in markdown  # both title and answer are shown
        rendered = gfm(markdown)
        assert "<a " not in rendered and "href" not in rendered
        assert "Ber&lt;U+200B&gt;lin&lt;U+200D&gt;" in rendered  # visible once rendered, too
        page = render(doc, "html").decode()
        for c in ("\u200b", "\u200d", "\ufeff", "\u2060"):
            assert c not in markdown and c not in page
        assert "Ber&lt;U+200B&gt;lin&lt;U+200D&gt; &lt;U+FEFF&gt;Wall&lt;U+2060&gt;" in page
        assert "<a " not in page
