"""One query's evidence, ready to paste into a bug report: Markdown and JSON.

Per tier: every system's top-K list (rank, DocID, kind, title, score), the rank of every gold
document (including ones below the top K or never retrieved), the near-miss distractors with the
word-level differences from the gold document each imitates; then any model results (answer,
judge score and reason, extracted DocIDs). Headless: no Rich, no Textual.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import msgspec

from workbench.fsutil import atomic_write_bytes, safe_name
from workbench.inspection.rankings import QueryInspection
from workbench.project.files import Project
from workbench.records import Query
from workbench.names import TaskName
from workbench.inspection.worddiff import salient_changes

FORMAT_VERSION = 1


class ModelEvidence(msgspec.Struct, frozen=True):
    """One model result on this query (a task on a tier), in a provider-neutral shape."""

    system: str
    tier: str
    task: TaskName
    fits: bool = True
    prompt_tokens: int = 0
    budget_tokens: int = 0
    answer: str = ""
    judge_score: float | None = None
    judge_scores: list[int] = []
    judge_reason: str = ""  # the judge's words beyond its score, only when its reply parsed as a score
    # Beside the judge score, always: the deterministic matches and the decision the diagnosis takes
    judge_trusted: bool | None = None  # False: the judge failed its calibration; None: not calibrated
    exact: bool | None = None
    contains: bool | None = None
    f1: float | None = None
    correct: bool | None = None
    basis: str = ""  # why `correct` is what it is (for a comparison: which candidate the answer named)
    decision: str = ""  # right | wrong | undecided (the rule abstained); "" = not decided yet (judging)
    named: list[str] = []  # a comparison's candidates the answer named
    doc_ids: list[int] = []
    cached: bool = False
    note: str = ""
    prompt: str = ""  # the exact prompt sent, as text (one-query runs of the TUI, trace imports); "" = not stored
    prompt_cut: bool = False  # longer than max_stored_chars: its start and end are kept


def _rank(r: int | None, depth: int) -> str:
    return f"#{r}" if r is not None else f">{depth} (not retrieved)"


def evidence_dict(project: Project, query: Query, inspections: list[QueryInspection], models: Sequence[ModelEvidence] = ()) -> dict:
    tiers = []
    for ins in inspections:
        systems = {}
        for s in ins.systems:
            systems[s.system] = {
                "gold_ranks": {str(g): r for g, r in s.gold_ranks.items()},
                "depth": s.depth,
                "top_k": [
                    {"rank": r.rank, "doc_id": r.doc_id, "kind": r.kind, "title": r.title, "score": round(r.score, 6)}
                    for r in s.rows
                ],
            }
        misses = []
        for m in ins.near_misses:
            d = ins.diffs[m.doc_id]
            left, right = salient_changes(d)
            misses.append({
                "doc_id": m.doc_id, "title": m.title, "kind": m.kind, "ranks": m.ranks, "above_gold": m.above_gold,
                "imitates": m.imitates, "imitates_title": project.documents[m.imitates].title,
                "similarity": m.similarity,
                "diff": {"distractor_only": d.left_only, "gold_only": d.right_only,
                         "salient_distractor": left, "salient_gold": right, "ratio": d.similarity},
            })
        tiers.append({"tier": ins.tier, "k": ins.k, "systems": systems, "near_misses": misses})
    return {
        "format": FORMAT_VERSION,
        "project": project.config.name,
        "query": {
            "query_id": query.query_id, "query": query.query, "answer": query.answer, "domain": query.domain,
            "kind": query.kind, "multi_source": query.is_multi_source,
            "gold": [{"doc_id": g, "title": project.documents[g].title} for g in sorted(query.gold_doc_ids)],
            "hard_negatives": sorted(query.hard_negative_ids),
        },
        "tiers": tiers,
        "models": [msgspec.to_builtins(m) for m in models],
    }


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def evidence_markdown(doc: dict) -> str:
    q = doc["query"]
    out = [f"## Query `{q['query_id']}`: {q['query']}", ""]
    out.append(f"- expected answer: **{q['answer']}**")
    out.append(f"- {'multi' if q['multi_source'] else 'single'}-source; domain `{q['domain'] or '–'}`; kind `{q['kind'] or '–'}`")
    out.append("- gold: " + ", ".join(f"{g['doc_id']} ({g['title']})" for g in q["gold"]))
    if q["hard_negatives"]:
        out.append("- hard negatives: " + ", ".join(str(i) for i in q["hard_negatives"]))
    out.append("")
    for t in doc["tiers"]:
        out.append(f"### Tier `{t['tier']}` (K={t['k']})")
        out.append("")
        if not t["systems"]:
            out.append("_no stored runs for this tier_")
            out.append("")
        else:
            out.append("| system | " + " | ".join(f"gold {g['doc_id']}" for g in q["gold"]) + " |")
            out.append("|---|" + "---|" * len(q["gold"]))
            for name, s in t["systems"].items():
                ranks = [_rank(s["gold_ranks"].get(str(g["doc_id"])), s["depth"]) for g in q["gold"]]
                out.append(f"| {name} | " + " | ".join(ranks) + " |")
            out.append("")
            for name, s in t["systems"].items():
                out.append(f"<details><summary>{name}: top {t['k']}</summary>")
                out.append("")
                out.append("| rank | DocID | kind | title | score |")
                out.append("|---:|---:|---|---|---:|")
                for r in s["top_k"]:
                    mark = {"gold": "**gold**", "hard_negative": "hard negative"}.get(r["kind"], "")
                    out.append(f"| {r['rank']} | {r['doc_id']} | {mark} | {_md_cell(r['title'])} | {r['score']:.4f} |")
                out.append("")
                out.append("</details>")
                out.append("")
        if t["near_misses"]:
            out.append("Near misses (non-gold documents ranked above a gold document):")
            out.append("")
            for m in t["near_misses"]:
                miss_ranks = ", ".join(f"{s} #{r}" for s, r in m["ranks"].items())
                kind = " (hard negative)" if m["kind"] == "hard_negative" else ""
                out.append(f"- **{m['doc_id']}** {_md_cell(m['title'])}{kind}: {miss_ranks}; imitates gold "
                           f"{m['imitates']} ({_md_cell(m['imitates_title'])}), word overlap {m['similarity']:.2f}")
                d = m["diff"]
                sal_l, sal_r = d["salient_distractor"] or d["distractor_only"][:8], d["salient_gold"] or d["gold_only"][:8]
                out.append(f"  - distractor has: {', '.join(sal_l[:12]) or '–'}")
                out.append(f"  - gold has: {', '.join(sal_r[:12]) or '–'}")
            out.append("")
    if doc["models"]:
        out.append("### Model results")
        out.append("")
        for m in doc["models"]:
            head = f"- `{m['system']}` on `{m['tier']}` ({m['task']})"
            if not m["fits"]:
                out.append(f"{head}: does not fit ({m['prompt_tokens']} > {m['budget_tokens']} tokens)")
                continue
            out.append(f"{head}: prompt {m['prompt_tokens']} tokens" + (" (cached)" if m["cached"] else ""))
            if m["answer"]:
                out.append(f"  - answer: {_md_cell(m['answer'])}")
            if m["judge_score"] is not None:
                out.append(f"  - judge: {m['judge_score']:g}/5 {m['judge_scores']}" +
                           (f": {_md_cell(m['judge_reason'])}" if m["judge_reason"] else ""))
            if m["task"] == "localize":
                out.append(f"  - DocIDs: {m['doc_ids']}")
            if m["note"]:
                out.append(f"  - note: {_md_cell(m['note'])}")
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def evidence_json(doc: dict) -> bytes:
    return msgspec.json.format(msgspec.json.encode(doc), indent=2) + b"\n"


def write_evidence(directory: Path, doc: dict) -> tuple[Path, Path]:
    """Write <query_id>.md and <query_id>.json into directory; returns both paths."""
    stem = safe_name(doc["query"]["query_id"])  # injective and bounded: "a:b" and "a_b" get two files
    md, js = directory / f"evidence-{stem}.md", directory / f"evidence-{stem}.json"
    atomic_write_bytes(md, evidence_markdown(doc).encode())
    atomic_write_bytes(js, evidence_json(doc))
    return md, js
