"""Arm construction: what each model call of a sweep reads, rebuilt from the spec and the arm's seed.

Volume (docs/METHOD.md §2). One case = one query with its gold documents. For each (case, repeat) a seed
draws a depth per gold document and an order of the padding pool; every length of that
(case, repeat) uses the same depths and a prefix of the same padding order. So across lengths the
question, gold, answer budget and evidence depth are fixed and only the volume of padding grows;
across repeats the evidence moves. The two-hop gold-only arm gives the same questions their gold
documents alone.

Depth (Protocol A) and distribution (Protocol B, docs/METHOD.md §3): fact sentences planted at sentence
boundaries of padding documents. Protocol B plants the same ten facts, into the same padding, at
the depths each distribution gives; its context is shared by all of its questions (literal,
inference, absent), which come after it, so the server's prompt cache serves the prefix.
"""

from __future__ import annotations

import hashlib
import random
from functools import lru_cache

from workbench.llm import prompts
from workbench.correctness import normalize
from workbench.llm.tasks import messages_tokens, window_budget
from workbench.project.files import Project
from workbench.records import Document, ModelConfig, Query
from workbench.sweeps import distributions
from workbench.sweeps.facts import Fact, planted_and_absent
from workbench.sweeps.haystack import (
    answer_sentence,
    doc_depths,
    fill,
    padding_pool,
    place_documents,
    plant,
    query_padding_pool,
)
from workbench.sweeps.records import Arm, ArmInput, SweepSpec
from workbench.tokens import count_tokens, doc_tokens, serialize_docs

FAMILY_KINDS = {"needle": "needle", "single-hop": "single-hop", "two-hop": "two-hop"}
FAMILY_ALIASES = {"single": "single-hop", "two": "two-hop", "twohop": "two-hop", "2hop": "two-hop"}
GOLD_ONLY = "two-hop-gold"
TOKENIZER_HEADROOM = 0.95


def seed_of(*parts: object) -> int:
    return int(hashlib.sha256(":".join(map(str, parts)).encode()).hexdigest()[:12], 16)


def default_lengths(cfg: ModelConfig, max_tokens: int, kind: str) -> list[int]:
    """Total input lengths scaled to the window: volume 1/8, 1/4, 1/2, 7/8 of it (8K: 1K, 2K, 4K, ~7K);
    depth ten steps of 10%; distribution the full usable window."""
    # 5% below the usable window: the budgeting tokenizer is not the model's (SmolLM2 counts ~13%
    # more tokens than cl100k on the sample corpus, more than the default safety margin alone covers)
    usable = int((window_budget(cfg) - max_tokens) * TOKENIZER_HEADROOM)
    if kind == "volume":
        lengths = [cfg.context_window * f // 8 for f in (1, 2, 4, 7)]
        return [min(x, usable) for x in lengths]
    if kind == "depth":
        return [usable * i // 10 for i in range(1, 11)]
    return [usable]


def check_lengths(lengths: list[int], cfg: ModelConfig, max_tokens: int) -> None:
    usable = window_budget(cfg) - max_tokens
    too_long = [x for x in lengths if x > usable]
    if too_long:
        raise ValueError(
            f"length(s) {too_long} + answer budget {max_tokens} exceed the model's usable window "
            f"{window_budget(cfg)} (context_window {cfg.context_window} × (1 − safety_margin {cfg.safety_margin}))"
        )


def family_name(name: str) -> str:
    n = FAMILY_ALIASES.get(name.strip().lower(), name.strip().lower())
    if n not in FAMILY_KINDS:
        raise ValueError(f"unknown family {name!r}; known: {list(FAMILY_KINDS)}")
    return n


def pick_cases(project: Project, kind: str, n: int, seed: int) -> list[Query]:
    """n queries of this kind (seeded); only queries with a non-empty answer."""
    pool = sorted((q for q in project.queries if q.kind == kind and normalize(q.answer)), key=lambda q: q.query_id)
    rng = random.Random(f"{seed}:cases:{kind}")
    return sorted(rng.sample(pool, min(n, len(pool))), key=lambda q: q.query_id)


class Planner:
    """Arms of one sweep and, for any arm, its exact input."""

    def __init__(self, project: Project, spec: SweepSpec, cfg: ModelConfig):
        self.project, self.spec, self.cfg = project, spec, cfg
        self.tok = cfg.tokenizer
        if spec.kind == "distribution":
            self.planted, self.absent = planted_and_absent(spec.seed, spec.n_facts, spec.n_absent)

    # ------------------------------------------------------------ arms

    def arms(self) -> list[Arm]:
        return {"volume": self._volume_arms, "depth": self._depth_arms, "distribution": self._distribution_arms}[self.spec.kind]()

    def _volume_arms(self) -> list[Arm]:
        s = self.spec
        cases = {family: pick_cases(self.project, FAMILY_KINDS[family], s.cases, s.seed) for family in s.families}
        out = []
        # repeat-major: a sweep stopped part-way holds whole repeats of every family and length, so
        # its partial curves are comparable across lengths rather than missing the last family
        for r in range(s.repeats):
            for family in s.families:
                for q in cases[family]:
                    seed = seed_of(s.seed, q.query_id, r)
                    for length in s.lengths:
                        out.append(Arm(f"{family}/{q.query_id}/L{length}/r{r}", seed, q.query, q.answer, family, q.query_id, length, r))
                    if family == "two-hop":
                        out.append(Arm(f"{GOLD_ONLY}/{q.query_id}/r{r}", seed, q.query, q.answer, GOLD_ONLY, q.query_id, 0, r))
        return [msgspec_replace(a, context_key=a.arm_id) for a in out]

    @lru_cache(maxsize=1)
    def depth_cases(self) -> list[tuple[str, str, str, str, Query | None]]:
        """(case id, fact sentence, question, answer, query) for Protocol A: the project's needle
        queries whose gold document states the answer in one sentence; else the seeded fact bank."""
        cases: list[tuple[str, str, str, str, Query | None]] = []
        for q in pick_cases(self.project, "needle", self.spec.cases, self.spec.seed):
            sentence = answer_sentence(self.project.documents[q.gold_doc_ids[0]], q.answer)
            if sentence:
                cases.append((q.query_id, sentence, q.query, q.answer, q))
        if not cases:
            planted, _ = planted_and_absent(self.spec.seed, self.spec.cases, 0)
            cases = [(f.fact_id, f.sentence, f.literal_q, f.literal_a, None) for f in planted]
        return cases

    def _depth_arms(self) -> list[Arm]:
        s = self.spec
        out = []
        for case_id, _, question, answer, _ in self.depth_cases():
            for r in range(s.repeats):
                seed = seed_of(s.seed, case_id, r)
                for length in s.lengths:
                    for depth in s.depths:
                        key = f"{case_id}/L{length}/d{depth:g}/r{r}"
                        for v in s.variants:
                            out.append(Arm(f"{key}/{v}", seed, question, answer, "literal", case_id, length, r, v, depth, "", key))
        return out

    def _distribution_arms(self) -> list[Arm]:
        s = self.spec
        out = []
        length = s.lengths[0]
        for dist in s.distributions:
            seed = seed_of(s.seed, dist)
            for v in s.variants:
                key = f"{dist}/{v}"
                for f in self.planted:
                    out.append(Arm(f"{key}/literal/{f.fact_id}", seed, f.literal_q, f.literal_a, "literal", f.fact_id, length, 0, v, None, dist, key))
                    out.append(Arm(f"{key}/inference/{f.fact_id}", seed, f.inference_q, f.inference_a, "inference", f.fact_id, length, 0, v, None, dist, key))
                for f in self.absent:
                    out.append(Arm(f"{key}/absent/{f.fact_id}", seed, f.literal_q, "", "absent", f.fact_id, length, 0, v, None, dist, key))
        return out

    # ------------------------------------------------------------ inputs

    def build(self, arm: Arm) -> ArmInput:
        if self.spec.kind == "volume":
            docs, evidence_ids = self._volume_docs(arm)
            depths = doc_depths(docs, evidence_ids, self.tok)
        elif self.spec.kind == "depth":
            docs, depths = self._depth_docs(arm)
        else:
            docs, depths = self._distribution_docs(arm.distribution, arm.seed)
        messages = prompts.sweep_qa_messages(serialize_docs(docs), arm.question, arm.variant)
        return ArmInput(messages, messages_tokens(messages, self.cfg), [d.doc_id for d in docs], depths)

    def _wrapper(self, question: str, variant: str) -> int:
        return messages_tokens(prompts.sweep_qa_messages("", question, variant), self.cfg)

    @lru_cache(maxsize=256)
    def _pool(self, query_id: str) -> list[int]:
        return query_padding_pool(self.project, self.project.query(query_id))

    def _order(self, pool: list[int], seed: int) -> list[int]:
        order = list(pool)
        random.Random(seed).shuffle(order)
        return order

    def _volume_docs(self, arm: Arm) -> tuple[list[Document], list[int]]:
        q = self.project.query(arm.case_id)
        rng = random.Random(arm.seed)
        depths = [rng.random() for _ in q.gold_doc_ids]  # drawn first: the same at every length
        gold = self.project.docs(q.gold_doc_ids)
        if arm.family == GOLD_ONLY:
            order = sorted(range(len(gold)), key=lambda i: depths[i])
            return [gold[i] for i in order], list(q.gold_doc_ids)
        budget = arm.length - self._wrapper(q.query, arm.variant) - sum(doc_tokens(d, self.tok) for d in gold)
        padding = fill(self.project, self._order(self._pool(q.query_id), arm.seed), budget, self.tok)
        return place_documents(padding, list(zip(gold, depths)), self.tok), list(q.gold_doc_ids)

    def _depth_docs(self, arm: Arm) -> tuple[list[Document], list[float]]:
        case = next(c for c in self.depth_cases() if c[0] == arm.case_id)
        _, sentence, question, answer, q = case
        pool = self._pool(q.query_id) if q is not None else padding_pool(self.project, None, set(), [answer])
        budget = arm.length - self._wrapper(question, arm.variant) - count_tokens(sentence, self.tok) - 1
        padding = fill(self.project, self._order(pool, arm.seed), budget, self.tok)
        return plant(padding, [(sentence, arm.depth or 0.0)], self.tok)

    @lru_cache(maxsize=32)
    def _distribution_docs(self, dist: str, seed: int) -> tuple[list[Document], list[float]]:
        facts: list[Fact] = self.planted
        names_free = self._fact_free_pool()
        wrapper = max(self._wrapper(q, v) for v in self.spec.variants for f in facts + self.absent for q in (f.literal_q, f.inference_q))
        budget = self.spec.lengths[0] - wrapper - sum(count_tokens(f.sentence, self.tok) + 1 for f in facts)
        # the same padding for every distribution: only where the facts go changes
        padding = fill(self.project, self._order(names_free, seed_of(self.spec.seed, "padding")), budget, self.tok)
        return plant(padding, list(zip((f.sentence for f in facts), distributions.depths(dist, len(facts), seed))), self.tok)

    @lru_cache(maxsize=1)
    def _fact_free_pool(self) -> list[int]:
        # fictional names never occur in the corpus; excluded anyway, should one collide
        words = {w for f in self.planted + self.absent for w in f.sentence.split() if w[:1].isupper() and len(w) > 4}
        return [d for d in padding_pool(self.project, None, set(), []) if not any(w in self.project.documents[d].text for w in words)]


def msgspec_replace(arm: Arm, **changes) -> Arm:
    import msgspec

    return msgspec.structs.replace(arm, **changes)


def input_summary(arms: list[Arm], inputs: list[ArmInput]) -> dict[str, object]:
    """What --dry-run prints: arms, calls, token totals per length."""
    by_len: dict[int, list[int]] = {}
    for a, i in zip(arms, inputs):
        by_len.setdefault(a.length, []).append(i.input_tokens)
    return {"arms": len(arms), "by_length": {k: (len(v), min(v), max(v), sum(v)) for k, v in sorted(by_len.items())}}
