"""Why a document ranks where it does for a query (an explain API, as Elasticsearch's `_explain`):
BM25 per query term from Tantivy's own explanation (idf, term frequency, length norm, its share),
the dense side's best chunk with its cosine, the fusion's parts (each retriever's rank and its RRF
share), each beside the stored score it must add up to; and, for every document after the first,
what separates it from the first (terms one matched that the other lacks, today's word diff).

Reads the tier's indexes (the same BM25 query and the same dense scoring the runs used) and the
stored rankings; writes nothing."""

from __future__ import annotations

import msgspec

from workbench.access.runs import Hit
from workbench.errors import BadInput
from workbench.inspection.rankings import RowKind, row_kind, stored_rankings
from workbench.inspection.worddiff import salient_changes, word_diff
from workbench.project.files import Project
from workbench.records import Query, Tier

FUSED = "hybrid"  # the fused retriever (workbench/access/retrievers.py HybridRetriever): bm25 ⊕ dense by RRF
ARMS = ("bm25", "dense")


class TermShare(msgspec.Struct, frozen=True):
    term: str
    score: float  # (k1 + 1) * idf * tf_norm: this term's share of the BM25 score
    idf: float
    doc_freq: int
    num_docs: int
    tf: float
    tf_norm: float
    doc_len: float
    avg_len: float


class Bm25Part(msgspec.Struct, frozen=True):
    score: float  # Tantivy's explanation's total (0: no query term in the document)
    stored: float | None  # the stored bm25 run's score (None: beyond its stored depth)
    rank: int | None
    terms: list[TermShare]  # the matched terms, largest share first
    unmatched: list[str]  # query terms the document lacks


class DensePart(msgspec.Struct, frozen=True):
    score: float  # the best chunk's cosine: the document's dense score
    stored: float | None
    rank: int | None
    best_chunk: int  # 0-based, in chunking order
    chunks: int
    chunk_text: str  # the best chunk's text ("" when the embedder's chunker gives fewer chunks than stored)
    chunk_scores: list[float]


class FusionPart(msgspec.Struct, frozen=True):
    retriever: str
    rank: int | None  # in that retriever's stored ranking (None: beyond its depth: no share)
    share: float  # 1 / (rrf_k + rank)


class Fusion(msgspec.Struct, frozen=True):
    system: str
    rrf_k: int
    score: float  # the sum of the parts' shares
    stored: float | None
    rank: int | None
    parts: list[FusionPart]


class DocExplain(msgspec.Struct, frozen=True):
    doc_id: int
    title: str
    role: RowKind
    ranks: dict[str, int | None]  # every stored system's rank of the document (None: beyond its depth)
    bm25: Bm25Part | None
    dense: DensePart | None
    fusion: Fusion | None


class Contrast(msgspec.Struct, frozen=True):
    """What separates a document from the first one asked about (usually the gold)."""

    doc_id: int
    against: int
    matched_only: list[str]  # query terms this document matched and the first lacks
    lacks: list[str]  # query terms the first matched and this one lacks
    this_only: list[str]  # the word diff: words only in this document, salient first
    against_only: list[str]
    line: str
    # The comparison in words, from the two documents' ranks in every stored system (the Why pane's
    # title): "Why it outranks the gold", "Why it ranks below the gold in every system", or both with
    # the systems named. Never worded before the ranks are read (comparison_heading).
    heading: str = ""
    above_in: list[str] = []  # systems ranking this document above the first (or only this one)
    below_in: list[str] = []  # systems ranking the first above this document (or only the first)


class Explanation(msgspec.Struct, frozen=True):
    query_id: str
    query: str
    tier: str
    system: str  # whose rank is explained first (the fused one when stored)
    k: int
    terms: list[str]  # the analysed query terms BM25 ORs
    docs: list[DocExplain]
    contrasts: list[Contrast]


def _rank_of(hits: list[Hit] | None, doc_id: int) -> tuple[int | None, float | None]:
    for i, h in enumerate(hits or [], 1):
        if h.doc_id == doc_id:
            return i, float(h.score)
    return None, None


def _bm25(project: Project, tier: Tier, query: Query, doc_id: int, hits: list[Hit] | None) -> Bm25Part | None:
    from index import SparseIndex
    from workbench.access.indexing import sparse_dir

    try:
        found = SparseIndex.open(sparse_dir(project, tier)).explain(query.query, doc_id)
    except FileNotFoundError:
        return None
    if found is None:
        return None
    total, terms = found
    shares = sorted((TermShare(**vars(t)) for t in terms), key=lambda t: -t.score)
    matched = {t.term for t in shares}
    rank, stored = _rank_of(hits, doc_id)
    return Bm25Part(score=total, stored=stored, rank=rank, terms=shares,
                    unmatched=[t for t in SparseIndex.terms(query.query) if t not in matched])


class _Dense:
    """The tier's dense index, the query's vector and the embedder's chunker (loaded once per explain)."""

    def __init__(self, project: Project, tier: Tier, query: Query) -> None:
        from workbench.access.indexing import embedding_errors, make_project_embedder, open_dense

        self.project = project
        self.index = open_dense(project, tier)
        self.embedder = make_project_embedder(project)
        with embedding_errors(project):
            self.qvec = self.embedder.embed([query.query])[0]

    def part(self, doc_id: int, hits: list[Hit] | None) -> DensePart | None:
        from workbench.access.indexing import embedding_errors

        scores = self.index.chunk_scores(self.qvec, doc_id)
        if not scores:
            return None
        best = max(range(len(scores)), key=lambda i: scores[i])
        doc = self.project.documents[doc_id]
        e = self.project.config.embedding
        with embedding_errors(self.project):
            chunks = self.embedder.chunk(f"{doc.title}\n{doc.text}", e.chunk_tokens, e.chunk_overlap)
        rank, stored = _rank_of(hits, doc_id)
        return DensePart(score=scores[best], stored=stored, rank=rank, best_chunk=best, chunks=len(scores),
                         chunk_text=chunks[best] if len(chunks) == len(scores) else "", chunk_scores=scores)


def _fusion(project: Project, rankings: dict[str, list[Hit]], doc_id: int) -> Fusion | None:
    if FUSED not in rankings:
        return None
    rrf_k = project.config.retrievers.rrf_k
    parts = []
    for arm in ARMS:
        rank, _ = _rank_of(rankings.get(arm), doc_id)
        parts.append(FusionPart(arm, rank, 1.0 / (rrf_k + rank) if rank is not None else 0.0))
    rank, stored = _rank_of(rankings[FUSED], doc_id)
    return Fusion(system=FUSED, rrf_k=rrf_k, score=sum(p.share for p in parts), stored=stored, rank=rank, parts=parts)


def _quoted(words: list[str], limit: int = 6) -> str:
    return ", ".join(f"'{w}'" for w in words[:limit]) + (" …" if len(words) > limit else "")


def rank_sides(doc: DocExplain, first: DocExplain) -> tuple[list[str], list[str]]:
    """The systems that rank ``doc`` above ``first`` and those that rank it below (a document a
    system did not retrieve ranks below every one it did; neither retrieved: on no side)."""
    above, below = [], []
    for system, mine in doc.ranks.items():
        theirs = first.ranks.get(system)
        if mine is not None and (theirs is None or mine < theirs):
            above.append(system)
        elif theirs is not None and (mine is None or theirs < mine):
            below.append(system)
    return above, below


def comparison_heading(doc: DocExplain, first: DocExplain) -> str:
    """What the ranks say of ``doc`` against ``first``, in words a title can carry truly."""
    them = "the gold" if first.role == "gold" else f"{first.doc_id}"
    above, below = rank_sides(doc, first)
    if above and not below:
        return f"Why it outranks {them}" + ("" if len(above) == len(doc.ranks) else f" (in {', '.join(above)})")
    if below and not above:
        every = "in every system" if len(below) == len(doc.ranks) else f"in {', '.join(below)}"
        return f"Why it ranks below {them} {every}"
    if above and below:
        return f"Where it outranks {them} ({', '.join(above)}) and where it ranks below it ({', '.join(below)})"
    return f"Neither it nor {them} is ranked by a stored system"


def _contrast(project: Project, doc: DocExplain, first: DocExplain, system: str) -> Contrast:
    mine = {t.term for t in doc.bm25.terms} if doc.bm25 else set()
    theirs = {t.term for t in first.bm25.terms} if first.bm25 else set()
    only = [t.term for t in (doc.bm25.terms if doc.bm25 else []) if t.term not in theirs]
    lacks = [t.term for t in (first.bm25.terms if first.bm25 else []) if t.term not in mine]
    a, b = project.documents[doc.doc_id], project.documents[first.doc_id]
    this_only, against_only = salient_changes(word_diff(f"{a.title}\n{a.text}", f"{b.title}\n{b.text}"))
    who = {"gold": "the gold", "hard_negative": "the hard negative", "other": "document"}
    parts = []
    if only:
        parts.append(f"{who[doc.role]} {doc.doc_id} matched {_quoted(only)}")
    if lacks:
        parts.append(f"{who[first.role]} {first.doc_id} matched {_quoted(lacks)} that {doc.doc_id} lacks")
    if not only and not lacks:
        parts.append(f"both match the same query terms ({len(mine)})")
    if doc.dense and first.dense:
        parts.append(f"best chunks' cosine {doc.dense.score:.3f} vs {first.dense.score:.3f}")
    r_doc, r_first = doc.ranks.get(system), first.ranks.get(system)
    if r_doc is not None or r_first is not None:
        parts.append(f"{system} #{r_doc or '–'} vs #{r_first or '–'}")
    if this_only or against_only:
        parts.append(f"the texts differ in {_quoted(this_only, 4) or '–'} / {_quoted(against_only, 4) or '–'}")
    above, below = rank_sides(doc, first)
    return Contrast(doc_id=doc.doc_id, against=first.doc_id, matched_only=only, lacks=lacks, this_only=this_only,
                    against_only=against_only, line="; ".join(parts), heading=comparison_heading(doc, first),
                    above_in=above, below_in=below)


def explain(project: Project, tier: Tier, query: Query, doc_ids: list[int], k: int, system: str | None = None,
            dense: bool = True) -> Explanation:
    """Each document's BM25, dense and fusion parts for the query on the tier, and how each after
    the first differs from the first. ``system``: whose rank leads (default: hybrid when stored)."""
    from index import SparseIndex

    if not doc_ids:
        raise BadInput("name at least one DocID to explain")
    missing = [d for d in doc_ids if d not in project.documents]
    if missing:
        raise BadInput(f"DocID {missing[0]} is not in the corpus (documents.jsonl)")
    outside = [d for d in doc_ids if d not in set(tier.doc_ids)]
    if outside:
        raise BadInput(f"DocID {outside[0]} is not in tier {tier.name}", hint="choose its tier with --tier")
    rankings = stored_rankings(project, tier, query.query_id)
    shown = system or (FUSED if FUSED in rankings else next(iter(rankings), FUSED))
    if system is not None and system not in rankings:
        raise BadInput(f"no stored ranking of {system!r} for {query.query_id} on {tier.name}; stored: {sorted(rankings)}")
    side = _Dense(project, tier, query) if dense and "dense" in rankings else None
    docs = []
    for d in doc_ids:
        ranks = {s: _rank_of(h, d)[0] for s, h in rankings.items()}
        docs.append(DocExplain(doc_id=d, title=project.documents[d].title, role=row_kind(d, query), ranks=ranks,
                               bm25=_bm25(project, tier, query, d, rankings.get("bm25")),
                               dense=side.part(d, rankings.get("dense")) if side else None,
                               fusion=_fusion(project, rankings, d)))
    contrasts = [_contrast(project, x, docs[0], shown) for x in docs[1:]]
    return Explanation(query_id=query.query_id, query=query.query, tier=tier.name, system=shown, k=k,
                       terms=SparseIndex.terms(query.query), docs=docs, contrasts=contrasts)
