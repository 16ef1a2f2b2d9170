"""SparseIndex (Tantivy BM25) against real data and the pure-Python ReferenceBM25."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import tantivy

from index import ReferenceBM25, SparseIndex
from index.bm25_reference import FIELD_NORMS_TABLE, quantize_fieldnorm, tokenize
from support.paths import HOTPOT



def _build(tmp_path: Path, docs: list[tuple[int, str, str]], name: str = "sp") -> SparseIndex:
    SparseIndex.build(tmp_path / name, docs)
    return SparseIndex.open(tmp_path / name)


@pytest.fixture(scope="module")
def hotpot() -> tuple[list[tuple[int, str, str]], list[str]]:
    if not HOTPOT.is_dir():
        pytest.skip(f"{HOTPOT} missing")
    rows = [json.loads(line) for line in (HOTPOT / "corpus.jsonl").open(encoding="utf-8")]
    # Real ids are strings; give them ints in a scrambled order so doc_id != insertion order.
    docs = [(7919 * i % 100_003, r["title"], r["text"]) for i, r in enumerate(rows)]
    queries = [json.loads(line)["query"] for line in (HOTPOT / "queries.jsonl").open(encoding="utf-8")]
    return docs, queries


@pytest.fixture(scope="module")
def hotpot_index(tmp_path_factory, hotpot) -> SparseIndex:
    docs, _ = hotpot
    return _build(tmp_path_factory.mktemp("hotpot"), docs)


def test_build_open_counts_and_progress(tmp_path):
    docs = [(i, f"title {i}", f"text number {i}") for i in range(1200)]
    seen: list[int] = []
    SparseIndex.build(tmp_path / "new" / "dir", docs, progress=seen.append)
    assert seen[-1] == 1200 and len(seen) >= 3 and seen == sorted(seen)
    idx = SparseIndex.open(tmp_path / "new" / "dir")
    assert idx.num_docs == 1200
    assert idx.search("number 77", 1)[0][0] == 77


def test_stemming_running_finds_runs(tmp_path):
    idx = _build(
        tmp_path,
        [(1, "Marathon", "She runs every morning."), (2, "Cooking", "He bakes bread daily.")],
    )
    assert [d for d, _ in idx.search("running", 5)] == [1]
    assert [d for d, _ in idx.search("RUN", 5)] == [1]
    assert [d for d, _ in idx.search("baking", 5)] == [2]


def test_title_is_searchable(tmp_path):
    idx = _build(tmp_path, [(3, "Zanzibar archipelago", "An island."), (4, "Other", "Nothing.")])
    assert [d for d, _ in idx.search("zanzibar", 5)] == [3]


@pytest.mark.parametrize(
    "query",
    [
        'what "AND" (foo:bar)?',
        "title:x OR body:y AND NOT z",
        "a AND ( ( ( unbalanced",
        '"unclosed quote',
        "C++ vs C# -- 100% [sure]? {x} ^2 ~3 \\ / * !",
        "field:value:more:colons",
        "é ü ñ 東京 😀",
    ],
)
def test_punctuation_heavy_queries_never_raise(hotpot_index, query):
    res = hotpot_index.search(query, 10)
    assert isinstance(res, list)
    assert all(isinstance(d, int) and isinstance(s, float) for d, s in res)


def test_query_syntax_is_not_interpreted(tmp_path):
    idx = _build(tmp_path, [(1, "t", "apples and pears"), (2, "t", "bananas")])
    # "NOT" / "-" would exclude doc 1 under query-parser syntax; here they are plain words.
    assert [d for d, _ in idx.search("apples -pears NOT apples", 5)] == [1]
    assert [d for d, _ in idx.search("body:bananas", 5)] == [2]


def test_empty_and_stopword_only_queries_return_nothing(hotpot_index):
    assert hotpot_index.search("", 10) == []
    assert hotpot_index.search("   ?!  ", 10) == []
    assert hotpot_index.search("the of and AND is", 10) == []
    assert hotpot_index.search("demon", 0) == []


def test_deterministic_tie_order_by_doc_id(tmp_path):
    # Identical documents get identical BM25 scores; insert them in scrambled id order.
    ids = [50, 3, 977, 12, 400, 8, 61, 2, 999, 150, 33, 700]
    docs = [(i, "same", "identical words here") for i in ids] + [(5000, "other", "unrelated")]
    idx = _build(tmp_path, docs)
    res = idx.search("identical words", 5)
    assert [d for d, _ in res] == sorted(ids)[:5]
    assert len({s for _, s in res}) == 1
    # k cutting through the tie group still returns the smallest ids.
    assert [d for d, _ in idx.search("identical", 1)] == [2]
    assert [d for d, _ in idx.search("identical", 100)] == sorted(ids)


def test_scores_descending_and_k_respected(hotpot_index):
    res = hotpot_index.search("American film director born", 25)
    assert len(res) == 25
    assert [s for _, s in res] == sorted((s for _, s in res), reverse=True)
    assert len({d for d, _ in res}) == 25


def test_duplicate_doc_id_rejected(tmp_path):
    with pytest.raises(ValueError, match="duplicate"):
        SparseIndex.build(tmp_path / "x", [(1, "a", "b"), (1, "c", "d")])


def test_python_analyzer_matches_builtin_en_stem(tmp_path):
    """Our TextAnalyzerBuilder chain must produce exactly the terms Tantivy's en_stem indexes."""
    text = (
        "Running RUNS runner's naïve café Ĳsselmeer U.S.A. 3.14 don't "
        + "x" * 39 + " " + "y" * 40 + " " + "z" * 41 + " Straße İstanbul generously"
    )
    idx = _build(tmp_path, [(1, "Title Words", text)])
    tokens = tokenize("Title Words\n" + text)
    assert "run" in tokens and "x" * 39 in tokens and "z" * 41 not in tokens
    searcher = tantivy.Index.open(str(tmp_path / "sp")).searcher()
    for tok in set(tokens):
        assert searcher.doc_freq("body", tok) == 1, tok
    # Field length Tantivy records == our token count: a single-term query pins it down.
    ref = ReferenceBM25([(1, "Title Words", text)])
    for term in ["running", "generously"]:
        [(d, s)] = idx.search(term, 1)
        assert s == pytest.approx(ref.score(term, 1), rel=1e-5)


def test_fieldnorm_table_matches_tantivy():
    assert FIELD_NORMS_TABLE[:41] == list(range(41))
    assert FIELD_NORMS_TABLE[41:50] == [42, 44, 46, 48, 50, 52, 54, 56, 60]
    assert FIELD_NORMS_TABLE[-1] == 2013265944 and len(FIELD_NORMS_TABLE) == 256
    assert quantize_fieldnorm(41) == 40 and quantize_fieldnorm(59) == 56 and quantize_fieldnorm(60) == 60


def test_agreement_with_reference_bm25_on_hotpot(hotpot, hotpot_index):
    docs, queries = hotpot
    ref = ReferenceBM25(docs)
    assert hotpot_index.num_docs == ref.num_docs == len(docs)
    exact_lists = 0
    for q in queries:
        ours = hotpot_index.search(q, 10)
        theirs = ref.search(q, 10)
        assert len(ours) == len(theirs)
        # Every returned doc scores the same under both implementations (f32 vs f64 only).
        for d, s in ours:
            assert s == pytest.approx(ref.score(q, d), rel=1e-4), (q, d)
        # Rank-wise scores agree, and doc sets differ only inside near-ties at the cut.
        for (_, s1), (_, s2) in zip(ours, theirs, strict=True):
            assert s1 == pytest.approx(s2, rel=1e-4), q
        cut = theirs[-1][1]
        for d in {d for d, _ in ours} ^ {d for d, _ in theirs}:
            assert ref.score(q, d) == pytest.approx(cut, rel=1e-4), (q, d)
        exact_lists += [d for d, _ in ours] == [d for d, _ in theirs]
    assert exact_lists >= 0.95 * len(queries)
