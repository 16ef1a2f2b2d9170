"""A tiny project whose rankings are fixed by construction, for the sharper diagnosis (workbench/insight/).

support/diagnosis.py's six documents plus document 7, "Paris museums", which carries q1's answer and
is labelled by nobody (likely missing gold). K = 2. Rankings on every tier (documents outside a
tier are left out), scores 10, 9, 8, … by rank:

  hybrid  q1 [3, 2, 1, …]  gold 1 at #3 > K: stolen by 3 (q1's hard negative, gap 2) and 2 (gap 1)
          q2 [4, 6, 5]     gold first: no steal
          q3 [4, 6, 5]     both gold in the top 2: no steal
  bm25    q1 [7, 1, …]     gold 1 at #2: stolen by 7 (unjudged, contains "Paris": answer-bearing)
          q2 [5, 6, 4]     gold 4 at #3 > K: stolen by 5 and 6 (q2's hard negative)
          q3 [5, 4, 6]     gold 4 at #2, gold 6 at #3 > K: both stolen by 5 (q3's hard negative)

So document 5 displaces three (query, gold) pairs in two queries per tier; document 2 is labelled
not relevant for q1 in the version "judged" (a label record without effect), so it is then judged.
"""

from __future__ import annotations

from pathlib import Path

from support.diagnosis import DOCS, QUERIES, store_ranking
from workbench.project.files import write_config, write_project_files
from workbench.project.load import load_project
from workbench.project.versions import LabelRecord, write_version
from workbench.records import Document, LadderConfig, ProjectConfig, RetrieverConfig

PARIS = Document(7, "Paris museums", "Paris has the Louvre and the Musee d'Orsay.", "geo")
RANKINGS = {
    "hybrid": {"q1": [3, 2, 1, 4, 5, 6, 7], "q2": [4, 6, 5, 1, 2, 3, 7], "q3": [4, 6, 5, 1, 2, 3, 7]},
    "bm25": {"q1": [7, 1, 3, 2, 4, 5, 6], "q2": [5, 6, 4, 1, 2, 3, 7], "q3": [5, 4, 6, 1, 2, 3, 7]},
}


def make_insight_project(root: Path) -> Path:
    from workbench.access.ladder import write_ladder

    root.mkdir(parents=True, exist_ok=True)
    write_config(root, ProjectConfig(name="tiny insight", ladder=LadderConfig(seed=7, base_budget=600, prompt_overhead=100),
                                     retrievers=RetrieverConfig(k=2)))
    write_project_files(root, [*DOCS, PARIS], QUERIES)
    project = load_project(root)
    for tier in write_ladder(project).tiers:
        for system, table in RANKINGS.items():
            store_ranking(project, tier, system, table)
    return root


def judge_not_relevant(root: Path, query_id: str = "q1", doc_id: int = 2) -> str:
    project = load_project(root)
    info = write_version(project, list(project.queries), [LabelRecord(query_id, "none", doc_id, label="not_relevant", by="user:test")],
                         made_by="user:test", name="judged")
    return info.name


def make_indexed_insight_project(root: Path) -> Path:
    """The same project with real indexes built (labelling recomputes the figures, which opens them)
    and the fixed rankings stored under each retriever's current key, so evaluating reuses them
    rather than ranking anew: dense ranks as hybrid does."""
    from workbench.access.indexing import build_indexes
    from workbench.access.ladder import load_tiers
    from workbench.access.retrievers import make_retrievers
    from workbench.access.runs import RunStore, SystemRun, query_text_hash, tier_hash
    from workbench.records import Hit, RankedList

    make_insight_project(root)
    project = load_project(root)
    tiers = list(load_tiers(project).tiers)
    build_indexes(project, tiers)
    retrievers = make_retrievers(project)
    store = RunStore(project)
    for tier in tiers:
        texts = {q: query_text_hash(project.query(q).query) for q in tier.query_ids}
        for system, table in {**RANKINGS, "dense": RANKINGS["hybrid"]}.items():
            lists = [RankedList(q, [Hit(d, float(10 - i)) for i, d in enumerate(table[q]) if d in tier.doc_ids])
                     for q in tier.query_ids]
            store.save(SystemRun(system, tier.name, tier_hash(project, tier), retrievers[system].key(tier), 100, lists, texts))
    return root
