"""TREC interchange: qrels (gold = relevance 1) and run files, readable by trec_eval, ranx, ir_measures."""

from __future__ import annotations

import re
from pathlib import Path

from workbench.fsutil import atomic_write_bytes, safe_name
from workbench.project.files import Project
from workbench.records import Tier
from workbench.access.runs import RunStore, SystemRun


def qrels_text(project: Project) -> str:
    return "".join(f"{q.query_id} 0 {d} 1\n" for q in project.queries for d in q.gold_doc_ids)


def run_tag(system: str, tier: str) -> str:
    """The run column of a TREC line: one token, so every line keeps six columns (a tier name holds
    a domain, which may hold a tab or a space)."""
    return re.sub(r"\s+", "_", f"{system}@{tier}")


def run_text(run: SystemRun) -> str:
    tag = run_tag(run.system, run.tier)
    return "".join(
        f"{r.query_id} Q0 {h.doc_id} {rank} {h.score:.6f} {tag}\n"
        for r in run.rankings
        for rank, h in enumerate(r.hits, start=1)
    )


def export_trec(project: Project, tiers: list[Tier], out: Path) -> list[Path]:
    """Write out/qrels.txt and out/<tier>.<system>.run for every current stored run."""
    store = RunStore(project)
    written = [out / "qrels.txt"]
    atomic_write_bytes(written[0], qrels_text(project).encode())
    for tier in tiers:
        for system in store.systems(tier):
            run = store.load(system, tier.name)
            if run is None:
                continue
            path = out / f"{safe_name(tier.name)}.{safe_name(system)}.run"
            atomic_write_bytes(path, run_text(run).encode())
            written.append(path)
    return written
