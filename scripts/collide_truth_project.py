"""Make a collide test project from a labelled one: the same documents and config, queries with
their hard-negative labels dropped (and, with --hide-gold multi, the last gold document of every
multi-source query hidden). Then run collide on it and score the version against the source's
queries.jsonl (`workbench collide-score NEW --queries-version collide-1 --truth SOURCE/queries.jsonl`).

    python scripts/collide_truth_project.py SOURCE_PROJECT NEW_PROJECT [--hide-gold none|multi]
"""

from __future__ import annotations

import argparse
import random
import shutil
from pathlib import Path

import msgspec

from workbench.project.files import CONFIG_FILE, DOCUMENTS_FILE, write_project_files
from workbench.project.load import load_project


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("source", type=Path)
    ap.add_argument("target", type=Path)
    ap.add_argument("--hide-gold", choices=["none", "multi"], default="none")
    ap.add_argument("--per-domain", type=int, default=0, help="Keep N queries per domain (seeded sample); 0 = all.")
    ap.add_argument("--seed", type=int, default=13)
    args = ap.parse_args()
    src = load_project(args.source)
    kept = src.queries
    if args.per_domain:
        by_domain: dict[str, list] = {}
        for q in src.queries:
            by_domain.setdefault(q.domain, []).append(q)
        chosen = {q.query_id for d in sorted(by_domain)
                  for q in random.Random(f"{args.seed}:{d}").sample(by_domain[d], min(args.per_domain, len(by_domain[d])))}
        kept = [q for q in src.queries if q.query_id in chosen]
    if args.target.exists():
        raise SystemExit(f"{args.target} exists: choose a new folder")
    args.target.mkdir(parents=True)
    shutil.copy(args.source / CONFIG_FILE, args.target / CONFIG_FILE)
    queries = []
    for q in kept:
        gold = q.gold_doc_ids[:-1] if args.hide_gold == "multi" and len(q.gold_doc_ids) > 1 else q.gold_doc_ids
        queries.append(msgspec.structs.replace(q, gold_doc_ids=gold, hard_negative_ids=[]))
    write_project_files(args.target, list(src.documents.values()), queries)
    hidden = sum(len(a.gold_doc_ids) - len(b.gold_doc_ids) for a, b in zip(kept, queries))
    dropped = sum(len(q.hard_negative_ids) for q in kept)
    print(f"{args.target}: {len(queries)} queries, {dropped} hard-negative labels dropped, {hidden} gold documents hidden")
    assert (args.target / DOCUMENTS_FILE).exists()


if __name__ == "__main__":
    main()
