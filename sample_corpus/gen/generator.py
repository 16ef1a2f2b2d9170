"""Generator: slots, rendering plans, gold documents with hard negatives, question choice,
random DocIDs and the output bytes (documents, queries, labels, workbench.toml)."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

import msgspec

from .config import BASE_BUDGET, DOMAINS, ENCODING, GLOBAL_BUDGETS, MIXING_BUDGETS, PROMPT_OVERHEAD, SEED
from .padding import PaddingBuilder
from .queries import QueryBuilder
from .schemas import make_schemas
from .schemas.base import Field, Schema
from .text import occurs, shared_ngram, substitute
from .world import GIVEN, build_world


# ============================================================== the build


class Out(msgspec.Struct):
    doc_id: int
    title: str
    text: str
    domain: str
    source_id: str | None = None


class QOut(msgspec.Struct, omit_defaults=True):
    query_id: str
    query: str
    answer: str
    gold_doc_ids: list[int]
    hard_negative_ids: list[int]
    domain: str
    kind: str
    canonical_answer: str = ""  # the short head of a comparison's or computed answer (workbench/correctness.py)


@dataclass
class Doc:
    key: int  # creation index; replaced by a random DocID at the end
    domain: str
    title: str
    text: str
    role: str = "padding"


@dataclass
class Plan:
    title: int
    fact: int
    body: list[tuple[int, int]]  # (group index, alternative index) in order
    fact_pos: int
    style: dict


class Generator(QueryBuilder, PaddingBuilder):
    def __init__(self, seed: int = SEED):
        import tiktoken

        self.enc = tiktoken.get_encoding(ENCODING)
        self.rng = random.Random(seed)
        self.world = build_world(random.Random(f"{seed}:world"))
        self.schemas = make_schemas(self.world)
        self.docs: list[Doc] = []
        self.used_keys: dict[str, set] = {}
        self.used_people: set[str] = set()
        self.queries: list[dict] = []
        self.labels: list[dict] = []
        self.exhausted: set[str] = set()

    def tok(self, s: str) -> int:
        return len(self.enc.encode(s, disallowed_special=()))

    # ---------------------------------------------------------- slots and rendering
    def field_value(self, r, schema: Schema, f: Field, current=None, slots=None):
        w = self.world
        if f.kind == "year":
            if current is None:
                return str(r.randint(2019, 2024))
            return str(int(current) + r.choice([-1, 1]))
        if f.kind == "person":
            return r.choice([g for g in GIVEN if g != current])
        pool = w.pools[f.pool] if isinstance(f.pool, str) else f.pool
        if pool and isinstance(pool[0], list):  # groups: vary inside the group
            if current is None:
                return r.choice(r.choice(pool))
            group = next(g for g in pool if current in g)
            return r.choice([x for x in group if x != current])
        return r.choice([x for x in pool if x != current])

    def fresh_slots(self, r, schema: Schema, fixed=None) -> dict:
        for _ in range(300):
            slots = {f.name: self.field_value(r, schema, f) for f in schema.fields}
            slots.update(fixed or {})
            if schema.key(slots) not in self.used_keys.setdefault(schema.name, set()):
                return slots
        raise RuntimeError(f"key space exhausted for {schema.name}")

    def claim(self, schema: Schema, slots: dict):
        k = schema.key(slots)
        assert k not in self.used_keys.setdefault(schema.name, set()), (schema.name, k)
        self.used_keys[schema.name].add(k)

    def all_slots(self, schema: Schema, slots: dict, plan: Plan) -> dict:
        full = dict(plan.style)
        full.update(slots)
        if schema.derive:
            full.update(schema.derive(slots))
        return full

    def render(self, schema: Schema, slots: dict, plan: Plan) -> tuple[str, str, str]:
        full = self.all_slots(schema, slots, plan)
        title = schema.titles[plan.title].format(**full)
        fact = schema.facts[plan.fact].format(**full)
        sents = [schema.body[g][a].format(**full) for g, a in plan.body]
        sents.insert(plan.fact_pos, fact)
        return title, " ".join(sents), fact

    def make_plan(self, r, schema: Schema, slots: dict, min_tokens=52) -> Plan:
        groups = list(range(len(schema.body)))
        r.shuffle(groups)
        plan = Plan(title=r.randrange(len(schema.titles)), fact=r.randrange(len(schema.facts)), body=[],
                    fact_pos=0, style=schema.style(r) if schema.style else {})
        pos_choice = r.random()
        for g in groups:
            plan.body.append((g, r.randrange(len(schema.body[g]))))
            plan.fact_pos = min(len(plan.body), int(pos_choice * 2.2))
            if self.tok(self.render(schema, slots, plan)[1]) >= min_tokens:
                break
        return plan

    def add_doc(self, domain, title, text, role) -> int:
        self.docs.append(Doc(len(self.docs), domain, title, text, role))
        return len(self.docs) - 1

    # ---------------------------------------------------------- gold + negatives
    def gold_with_negatives(self, r, schema: Schema, slots: dict, ctx=None, n_neg=3, neg_fields=None, people=False,
                            avoid=()):
        """Create a gold fact doc and `n_neg` one-field hard negatives of it. Returns (gold, negs)."""
        ctx = ctx or {}
        slots = dict(slots)
        slots["value"] = schema.value(r, slots, ctx)
        while slots["value"] in avoid:
            slots["value"] = schema.value(r, slots, ctx)
        self.claim(schema, slots)
        plan = self.make_plan(r, schema, slots)
        title, text, fact = self.render(schema, slots, plan)
        gid = self.add_doc(schema.domain, title, text, "gold")
        gold = {"doc": gid, "schema": schema.name, "slots": slots, "fact": fact, "value": slots["value"], "plan": plan}
        negs = []
        fields = neg_fields or schema.hn_fields
        tries = 0
        while len(negs) < n_neg:
            tries += 1
            assert tries < 500, (schema.name, slots)
            fname = fields[len(negs) % len(fields)]
            f = next(x for x in schema.fields if x.name == fname)
            ns = dict(slots)
            ns[fname] = self.field_value(r, schema, f, current=slots[fname], slots=slots)
            if schema.key(ns) in self.used_keys[schema.name]:
                continue
            if people and f"{ns['first']} {ns['last']}" in self.used_people:
                continue
            ns["value"] = schema.value(r, ns, {})
            if ns["value"] == slots["value"] or occurs(ns["value"], text) or occurs(slots["value"], ns[fname]):
                continue
            ntitle, ntext, _ = self.render(schema, ns, plan)
            # template identity and exclusivity, checked here and again by the tests
            if occurs(slots[fname], ntitle + "\n" + ntext) or occurs(ns[fname], title + "\n" + text) \
                    or occurs(slots["value"], ntext) or occurs(ns["value"], text) or fact in ntext:
                continue
            if substitute(ntitle + "\n" + ntext, {ns[fname]: slots[fname], ns["value"]: slots["value"]}) != title + "\n" + text:
                continue
            if self.tok(ntext) < 50:
                continue
            self.claim(schema, ns)
            if people:
                self.used_people.add(f"{ns['first']} {ns['last']}")
            nid = self.add_doc(schema.domain, ntitle, ntext, "negative")
            negs.append({"doc": nid, "imitates": gid, "field": fname, "field_kind": f.kind,
                         "gold_value": slots[fname], "negative_value": ns[fname],
                         "gold_fact_value": slots["value"], "negative_fact_value": ns["value"]})
        return gold, negs

    def question(self, r, templates, full, gold_texts, names):
        """Pick a paraphrased question template that shares no 6-word run with its gold docs."""
        opts = list(range(len(templates)))
        r.shuffle(opts)
        bad = []
        for i in opts:
            q = templates[i].format(**full)
            hits = [shared_ngram(q, t, names) for t in gold_texts]
            if not any(hits):
                return q
            bad.append((q, hits))
        raise RuntimeError(f"every question template copies its evidence: {bad}")

    def add_query(self, domain, kind, query, answer, golds, negs, names, canonical=""):
        self.queries.append({"domain": domain, "kind": kind, "query": query, "answer": answer, "canonical": canonical,
                             "gold": [g["doc"] for g in golds], "negs": [n["doc"] for n in negs]})
        self.labels.append({"kind": kind, "answer": answer,
                            "gold": [{"doc": g["doc"], "fact": g["fact"], "fact_value": g["value"]} for g in golds],
                            "negs": negs, "names": sorted(set(names))})

    def names_of(self, schema: Schema, slots: dict) -> list[str]:
        out = []
        for k, v in slots.items():
            if k in ("first", "last") or (any(f.name == k and f.kind == "entity" for f in schema.fields)):
                out.append(v)
        for link in ("bank", "drug", "court", "store", "airline", "company", "insurer", "vendor", "brand"):
            if link in slots:
                out.append(slots[link])
        return out

    # ---------------------------------------------------------- output
    def build(self):
        for d in DOMAINS:
            self.build_domain(d)
        for d in DOMAINS:
            self.build_padding(d)
        # random DocIDs: 4-6 digits, not year-like, never a number that appears in any text
        numbers = {int(x) for doc in self.docs for x in re.findall(r"\d+", doc.title + " " + doc.text) if len(x) <= 7}
        pool = [i for i in range(1000, 1000000) if not 1900 <= i <= 2100]
        ids = []
        seen = set()
        rr = random.Random(f"{SEED}:docids")
        while len(ids) < len(self.docs):
            i = rr.choice(pool)
            if i in seen or i in numbers:
                continue
            seen.add(i)
            ids.append(i)
        self.doc_id = {doc.key: ids[doc.key] for doc in self.docs}

    def outputs(self) -> dict[str, bytes]:
        docs = sorted((Out(self.doc_id[x.key], x.title, x.text, x.domain) for x in self.docs), key=lambda o: o.doc_id)
        doc_lines = b"".join(msgspec.json.encode(o) + b"\n" for o in docs)
        counters: dict[str, int] = {}
        qlines, llines = [], []
        for q, lab in zip(self.queries, self.labels):
            counters[q["domain"]] = counters.get(q["domain"], 0) + 1
            qid = f"{q['domain']}-{counters[q['domain']]:02d}"
            m = self.doc_id
            qlines.append(msgspec.json.encode(QOut(qid, q["query"], q["answer"], [m[g] for g in q["gold"]],
                                                   [m[n] for n in q["negs"]], q["domain"], q["kind"], q["canonical"])) + b"\n")
            label = {
                "query_id": qid, "kind": lab["kind"], "answer": lab["answer"], "entity_names": lab["names"],
                "gold": [{"doc_id": m[g["doc"]], "fact": g["fact"], "fact_value": g["fact_value"]} for g in lab["gold"]],
                "hard_negatives": [{"doc_id": m[n["doc"]], "imitates": m[n["imitates"]], "field": n["field"],
                                    "field_kind": n["field_kind"], "gold_value": n["gold_value"],
                                    "negative_value": n["negative_value"], "gold_fact_value": n["gold_fact_value"],
                                    "negative_fact_value": n["negative_fact_value"]} for n in lab["negs"]],
            }
            llines.append(msgspec.json.encode(label) + b"\n")
        order = sorted(range(len(qlines)), key=lambda i: msgspec.json.decode(qlines[i])["query_id"])
        toml = (
            '# Generated by sample_corpus/generate.py: edit the generator, not this file.\n'
            'name = "sample_corpus"\n'
            f'tokenizer = "{ENCODING}"\n\n'
            '[ladder]\n'
            f'seed = {SEED % 1000}\n'
            f'# domain-isolated base tier: fits the 8K local model with room for prompt and answer\n'
            f'base_budget = {BASE_BUDGET}\n'
            f'prompt_overhead = {PROMPT_OVERHEAD}\n'
            f'mixing_budgets = {MIXING_BUDGETS}\n'
            f'global_budgets = {GLOBAL_BUDGETS}\n\n'
            '[retrievers]\nk = 10\n\n'
            '# the access fix the demo can try offline: pointwise yes/no relevance from the embedded model\n'
            '# (`workbench rerank`, the Diagnosis tab\'s t); a real cross-encoder does better (README: Trying a fix)\n'
            '[rerankers.local]\nbackend = "llm"\nmodel = "local"\n'
        )
        return {
            "documents.jsonl": doc_lines,
            "queries.jsonl": b"".join(qlines[i] for i in order),
            "labels.jsonl": b"".join(llines[i] for i in order),
            "workbench.toml": toml.encode(),
        }
