"""The project at a glance as one view record, read in a worker: its size, each tier (documents,
tokens, domains, queries, the state of its two indexes, whether each model's window holds it) and
each model. The TUI's Overview tab draws it; reading it touches the disk (the index manifests, the
corpus hash of a freshly loaded project)."""

from __future__ import annotations

import msgspec

from workbench.access.indexing import index_status
from workbench.session.state import Session
from workbench.session.use import window_budget

PROMPT_ALLOWANCE = 400  # the estimate's prompt tokens beside the tier (the model panel counts the exact prompt)


class TierLine(msgspec.Struct, frozen=True):
    name: str
    docs: int
    tokens: int
    domains: tuple[str, ...]
    queries: int
    sparse: str  # the index's state: "ok", "missing", "stale", …
    dense: str
    fits: tuple[bool, ...]  # per model (OverviewView.models' order): tier + prompt + answer within the usable window


class ModelLine(msgspec.Struct, frozen=True):
    name: str
    endpoint: str  # "" for the embedded llama.cpp server
    window: int
    usable: int
    answer_budget: int


class OverviewView(msgspec.Struct, frozen=True):
    name: str
    root: str
    documents: int
    queries: int
    multi_source: int
    domains: int
    query_set: str  # the corpus hash's first 12 characters
    tiers_built: bool
    tiers: tuple[TierLine, ...]
    models: tuple[ModelLine, ...]
    prompt_allowance: int = PROMPT_ALLOWANCE


def overview_view(s: Session) -> OverviewView:
    """The Overview as the project is now (blocking: a worker's call)."""
    p = s.project
    models = s.models()
    budgets = [window_budget(cfg) for _, cfg in models]
    tiers = []
    for t in s.tiers:
        st = index_status(p, t)
        tiers.append(TierLine(
            name=t.name, docs=len(t.doc_ids), tokens=t.tokens, domains=tuple(t.domains), queries=len(t.query_ids),
            sparse=st["sparse"], dense=st["dense"],
            fits=tuple(t.tokens + cfg.max_tokens + PROMPT_ALLOWANCE <= b for (_, cfg), b in zip(models, budgets))))
    return OverviewView(
        name=p.config.name, root=str(s.root), documents=len(p.documents), queries=len(p.queries),
        multi_source=sum(q.is_multi_source for q in p.queries), domains=len(p.domains), query_set=p.corpus_hash()[:12],
        tiers_built=s.tierset is not None, tiers=tuple(tiers),
        models=tuple(ModelLine(name=name, endpoint=cfg.base_url or "", window=cfg.context_window, usable=b,
                               answer_budget=cfg.max_tokens) for (name, cfg), b in zip(models, budgets)))
