"""Explain a rank (`workbench explain`, the inspector's why pane): which tier, which system, then
workbench/inspection/explain.py over the tier's indexes and stored rankings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.errors import BadInput
from workbench.project.settings import access_k

if TYPE_CHECKING:
    from pathlib import Path

    from workbench.inspection.explain import Explanation
    from workbench.project.files import Project
    from workbench.records import Tier
    from workbench.session.selection import Selection


def resolved_doc_ids(project: "Project", values: list[str]) -> list[int]:
    """Documents as the user names them, as add-query's --gold takes them: a source id (the
    document's ID in the imported data), else a DocID; one that is neither: BadInput naming it."""
    from workbench.project.files import ProjectError
    from workbench.triage.queries import resolve_doc_ids

    try:
        return resolve_doc_ids(project, values, "DOC")
    except ProjectError as exc:
        raise BadInput("\n".join(str(p) for p in exc.problems), title="Unknown document",
                       hint="Give a document's source id (its ID in the imported data) or its DocID.") from None


def explain_tier(sel: "Selection", query_id: str, doc_ids: list[int]) -> "Tier":
    """The selection's tier to explain on: the last (largest) that holds the query and every document."""
    missing = [d for d in doc_ids if d not in sel.project.documents]
    if missing:
        raise BadInput(f"DocID {missing[0]} is not in the corpus (documents.jsonl)")
    for t in reversed(sel.tiers):
        if query_id in sel.project.tier_query_ids(t) and set(doc_ids) <= set(t.doc_ids):
            return t
    raise BadInput(f"no selected tier holds query {query_id} and DocID(s) {', '.join(map(str, doc_ids))}",
                   hint="name the tier with --tier (workbench tiers PROJECT lists them)")


def explained(sel: "Selection", query_id: str, doc_ids: list[int], system: str | None = None) -> "Explanation":
    """Why each document ranks where it does for the query (BM25 terms, dense chunk, fusion parts)."""
    return explain_on(sel.project, explain_tier(sel, query_id, doc_ids), query_id, doc_ids, system)


def explain_on(project: "Project", tier: "Tier", query_id: str, doc_ids: list[int], system: str | None = None) -> "Explanation":
    """The explanation on a given tier (the inspector's: the tier it shows)."""
    from workbench.inspection.explain import explain

    if query_id not in {q.query_id for q in project.queries}:
        raise BadInput(f"unknown query id {query_id!r}")
    return explain(project, tier, project.query(query_id), doc_ids, access_k(project), system)


def named_doc_ids(root: "Path", values: list[str], queries_version: str | None = None) -> list[int]:
    """``resolved_doc_ids`` of the project at ``root`` (`explain`: before any ranking is computed)."""
    from workbench.project.load import load_project

    return resolved_doc_ids(load_project(root, queries_version), values)
