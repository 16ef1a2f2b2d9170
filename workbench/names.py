"""Names with one home: the use-side tasks and the names of systems.

- ``TASKS``: every model task (name, label, inspector key, whether it localizes, what the model
  reads). The CLI's `--task`, the inspector's keys and labels, the command palette and the
  prompt builder all read it; adding a task is one line here (see docs/ARCHITECTURE.md).
- ``SystemName``: the one parser/formatter of system names as stored in run files:
  ``bm25`` (a retriever), ``model:<name>:<task>[-<variant>][:<retriever>@<k>]`` (a model task),
  ``run:<name>`` (an imported production run), ``<base>>rerank:<reranker>@<depth>`` (the top
  ``depth`` of any ranking system re-scored by ``[rerankers.<reranker>]``). Retriever names and
  their preference order live with the retrievers (workbench/access/retrievers.py, ``RETRIEVERS``).

Light on purpose (msgspec only): every layer imports it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Literal

import msgspec

# what the model reads: the whole tier, the gold only, a retriever's top documents, or the gold with
# the query's hard negatives (the near-miss arm: interference apart from volume)
Context = Literal["tier", "gold", "retrieved", "nearmiss"]


class TaskSpec(msgspec.Struct, frozen=True):
    name: str
    label: str  # how screens, reports and the command palette name it
    short: str  # the footer's label for its key
    key: str  # the query inspector's key that runs it on the current tier
    localizes: bool  # asks for DocIDs (scored on the access side), not for an answer (judged)
    context: Context  # the whole tier, the query's gold documents (+ its hard negatives), or a retriever's top documents
    in_footer: bool = True


TASK_SPECS: tuple[TaskSpec, ...] = (
    TaskSpec("localize", "localization", "Localize", "l", True, "tier"),
    TaskSpec("qa", "QA (whole tier in context)", "QA", "a", False, "tier"),
    TaskSpec("oracle", "oracle QA (gold only)", "Oracle", "o", False, "gold"),
    TaskSpec("rag", "retrieve-then-read", "Retrieve+read", "g", False, "retrieved", in_footer=False),
    TaskSpec("nearmiss", "near-miss QA (gold + HNs)", "Near-miss", "h", False, "nearmiss", in_footer=False),
)
TASKS: dict[str, TaskSpec] = {t.name: t for t in TASK_SPECS}

VARIANTS = ("standard", "strict")  # strict = "if the answer is not in the documents, say you do not know"

if TYPE_CHECKING:
    TaskName = str
    Variant = str
else:
    # Built from the registry so a new task is one line above; msgspec validates stored fields.
    TaskName = Literal[tuple(TASKS)]
    Variant = Literal[VARIANTS]

Stage = Literal["model", "judge"]  # which call of a query run failed
SystemKind = Literal["retriever", "model", "run", "rerank"]

MODEL_PREFIX, RUN_PREFIX = "model", "run"
RERANK_MARK = ">rerank:"  # base system, then this, then <reranker>@<depth>
TUNED_SUFFIX = "@tuned"  # a retriever over the embedder `workbench tune` fine-tuned: dense@tuned, hybrid@tuned
_RAG_SOURCE = re.compile(r"^(?P<retriever>.+)@(?P<k>\d+)$")
_RERANK_TAIL = re.compile(r"^(?P<reranker>[^@>:\s]+)@(?P<depth>\d+)$")


class SystemName(msgspec.Struct, frozen=True):
    """A parsed system name. ``str(name)`` gives back the stored form exactly."""

    kind: SystemKind
    name: str  # retriever, model or imported-run name
    task: str = ""  # model only
    variant: str = "standard"  # model QA tasks
    retriever: str = ""  # model rag only: whose stored run gave the documents
    rag_k: int = 0
    base: str = ""  # rerank only: the ranking system whose top ``depth`` is re-scored
    depth: int = 0  # rerank only

    @classmethod
    def for_retriever(cls, name: str) -> "SystemName":
        return cls("retriever", name)

    @classmethod
    def for_model(cls, model: str, task: str, variant: str = "standard", retriever: str = "", rag_k: int = 0) -> "SystemName":
        if TASKS[task].localizes:
            variant = "standard"  # localization has one prompt
        return cls("model", model, task, variant, retriever if TASKS[task].context == "retrieved" else "",
                   rag_k if TASKS[task].context == "retrieved" else 0)

    @classmethod
    def for_run(cls, name: str) -> "SystemName":
        return cls("run", name)

    @classmethod
    def for_rerank(cls, base: str, reranker: str, depth: int) -> "SystemName":
        return cls("rerank", reranker, base=base, depth=depth)

    @classmethod
    def parse(cls, text: str) -> "SystemName":
        base, mark, tail = text.rpartition(RERANK_MARK)
        if mark and base and (m := _RERANK_TAIL.match(tail)):
            return cls.for_rerank(base, m["reranker"], int(m["depth"]))
        head, _, rest = text.partition(":")
        if head == RUN_PREFIX and rest:
            return cls.for_run(rest)
        if head != MODEL_PREFIX or not rest:
            return cls.for_retriever(text)
        parts = rest.split(":")
        retriever, rag_k = "", 0
        m = _RAG_SOURCE.match(parts[-1]) if len(parts) >= 3 else None
        if m:
            retriever, rag_k = m["retriever"], int(m["k"])
            parts = parts[:-1]
        if len(parts) < 2:
            return cls.for_retriever(text)  # not a model system name after all
        task, variant = parts[-1], "standard"
        for v in VARIANTS:  # a task name may hold a dash: only a known variant is split off
            if task.endswith(f"-{v}") and task not in TASKS:
                task, variant = task[: -len(v) - 1], v
        return cls("model", ":".join(parts[:-1]), task, variant, retriever, rag_k)

    def __str__(self) -> str:
        if self.kind == "retriever":
            return self.name
        if self.kind == "run":
            return f"{RUN_PREFIX}:{self.name}"
        if self.kind == "rerank":
            return f"{self.base}{RERANK_MARK}{self.name}@{self.depth}"
        suffix = "" if self.variant == "standard" else f"-{self.variant}"
        tail = f":{self.retriever}@{self.rag_k}" if self.retriever else ""
        return f"{MODEL_PREFIX}:{self.name}:{self.task}{suffix}{tail}"

    @property
    def is_model(self) -> bool:
        return self.kind == "model"

    @property
    def localizes(self) -> bool:
        """Produces a ranking (a retriever, a model's localization, an imported run)."""
        return not self.is_model or (self.task in TASKS and TASKS[self.task].localizes)

    @property
    def short(self) -> str:
        """For narrow table headers: ``local (loc)``, ``local:qa``, ``bm25``."""
        if self.kind != "model":
            return str(self)
        if self.task in TASKS and TASKS[self.task].localizes:
            return f"{self.name} (loc)"
        return str(self)[len(MODEL_PREFIX) + 1:]


def system_label(system: str) -> str:
    return SystemName.parse(system).short


def split_level(side: str) -> tuple[str, str | None]:
    """``SYSTEM[@LEVEL]`` (compare's sides) → (system, level or None). A trailing ``@<digits>``
    that belongs to the system's own name (a rerank depth, a rag source's k) is not a level."""
    head, at, level = side.rpartition("@")
    if not at or not head:
        return side, None
    whole = SystemName.parse(side)
    if level.isdigit() and (whole.kind == "rerank" or whole.retriever) or side.endswith(TUNED_SUFFIX):
        return side, None
    return head, level


def untuned(system: str) -> str | None:
    """The base retriever of a tuned one (``dense@tuned`` → ``dense``), else None."""
    return system[: -len(TUNED_SUFFIX)] if system.endswith(TUNED_SUFFIX) and len(system) > len(TUNED_SUFFIX) else None


def task_of(system: str) -> str:
    """The task of a model system name, "" for retrievers and imported runs."""
    return SystemName.parse(system).task
