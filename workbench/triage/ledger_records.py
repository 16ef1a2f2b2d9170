"""The production ledger's records (triage/ledger.py keeps them): what one source said production
served for one query (Entry, its slots), a row as read back, a row to add, what an import said about
itself, and a change of source a batch made (never silent: the commands print it)."""

from __future__ import annotations

from typing import Literal

import msgspec

from workbench.records import Hit

# the doors production's evidence comes through (a Phoenix URL or a collector is the door "traces": its
# source says which)
Door = Literal["traces", "import-run", "import-answers"]
Slot = Literal["ranking", "reranked", "answer", "trace"]
ALL_TIERS = "*"
DOOR_WORDS = {"traces": "traces", "import-run": "import-run", "import-answers": "import-answers"}


Matched = Literal["id", "text", "added"]


class TraceQuery(msgspec.Struct, frozen=True):
    """What a trace kept beside its ranking and answer: how it was matched, its prompt and latencies."""

    query_id: str
    trace_id: str
    matched: Matched
    where: str
    prompt: str = ""
    answer: str | None = None
    llm_latency_s: float | None = None
    trace_latency_s: float | None = None
    context_doc_ids: list[int] = []
    start_ns: int = 0  # when production's trace began (Unix ns; 0: not known, an import of before): report --since


class ProductionAnswer(msgspec.Struct, frozen=True):
    query_id: str
    answer: str
    context_doc_ids: list[int]  # mapped; unknown IDs reported at import
    has_context: bool  # the source gave the context (an empty list is "read nothing")
    latency_s: float | None = None
    undecided: str | None = None  # why the answer could not be isolated (ProductionTrace.answer_undecided): UNDECIDED


class Entry(msgspec.Struct, frozen=True, omit_defaults=True):
    """What one source says production served for one query: the slots it fills."""

    query_id: str
    ranking: list[Hit] | None = None  # DocIDs in production's order
    reranked: list[Hit] | None = None
    depth: int | None = None  # the ranking says nothing past this depth (ProductionTrace.ranking_depth)
    unresolved: bool = False  # the ranking is unknown (documents that could not be resolved): not empty
    answer: ProductionAnswer | None = None
    trace: TraceQuery | None = None

    def slots(self) -> list[Slot]:
        out: list[Slot] = []
        if self.ranking is not None or self.unresolved:
            out.append("ranking")
        if self.reranked is not None:
            out.append("reranked")
        if self.answer is not None:
            out.append("answer")
        if self.trace is not None:
            out.append("trace")
        return out


class Row(msgspec.Struct, frozen=True):
    """One ledger row as read back."""

    id: int
    door: str
    part: str  # the tier an import-run ranks (or "*": every tier)
    source: str
    added_at: float
    entry: Entry


class ImportInfo(msgspec.Struct, frozen=True, omit_defaults=True):
    """What one import said about itself (import-run's format and ID space, unknown IDs)."""

    format: str = ""
    id_space: str = ""
    unknown_doc_ids: int = 0
    unknown_query_ids: int = 0


class NewRow(msgspec.Struct, frozen=True):
    """A row to add: the entry, where it came from, and (traces) the parsed trace as production sent it."""

    door: Door
    source: str
    entry: Entry
    part: str = ALL_TIERS
    parsed: bytes | None = None  # msgspec JSON of the ProductionTrace (with its matched query id)


class Change(msgspec.Struct, frozen=True):
    """Queries whose slot a batch took from another source (never silent: the command prints it)."""

    name: str
    slot: str
    old: str  # the door that filled it before
    new: str
    queries: list[str]

    def line(self) -> str:
        what = {"ranking": "rankings", "reranked": "reranked lists", "answer": "answers", "trace": "traces"}[self.slot]
        n = len(self.queries)
        return (f"run:{self.name}: {n} quer{'y' if n == 1 else 'ies'} from {self.new} replace their {self.old} {what} "
                f"(first: {self.queries[0]})")


class Added(msgspec.Struct, frozen=True):
    added: int  # rows new to the ledger
    kept: int  # rows whose content the ledger held already (not added twice)
    changes: list[Change]
