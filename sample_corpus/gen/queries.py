"""Per-domain query building: single-hop, comparison, two-hop, computed and needle queries
(QueryBuilder is mixed into Generator)."""

from __future__ import annotations

import random

from .config import SEED
from .padding import PAD_SENTENCES
from .schemas.medical import POPULATION_AGE
from .schemas.retail import CATEGORY_ITEMS
from .specs import NEEDLES, SINGLE, TWO_HOP
from .world import GIVEN, num_of, sortable


class QueryBuilder:
    """Queries and their gold/negative documents; mixed into Generator, which provides the
    slot, rendering and gold-with-negatives machinery."""

    # ---------------------------------------------------------- per-domain queries
    def build_domain(self, d: str):
        r = random.Random(f"{SEED}:{d}")
        s1, s2 = (self.schemas[n] for n in SINGLE[d])
        # singles: 2 on s1, 2 on s2; each pair also forms a comparison
        singles = {}
        for sch, n in ((s1, 2), (s2, 2)):
            made = []
            for i in range(n):
                if i == 1:  # comparison partner: same non-entity keys, another entity
                    ent = sch.fields[0].name
                    base = made[0][0]["slots"]
                    fixed = {f.name: base[f.name] for f in sch.fields[1:]
                             if not (isinstance(f.pool, str) and f.pool.endswith("_line"))}
                    while True:
                        slots = self.fresh_slots(r, sch, fixed)
                        if slots[ent] != base[ent]:
                            break
                else:
                    slots = self.fresh_slots(r, sch)
                gold, negs = self.gold_with_negatives(r, sch, slots, avoid=[g["value"] for g, _ in made])
                full = self.all_slots(sch, gold["slots"], gold["plan"])
                names = self.names_of(sch, gold["slots"])
                q = self.question(r, sch.questions, full, [self.docs[gold["doc"]].text], names)
                self.add_query(d, "single-hop", q, gold["value"], [gold], negs, names)
                made.append((gold, negs))
            singles[sch.name] = made
        for sch in (s1, s2):
            if not sch.compare_q:
                continue
            (ga, na), (gb, nb) = singles[sch.name][0], singles[sch.name][1]
            fa = self.all_slots(sch, ga["slots"], ga["plan"])
            fb = self.all_slots(sch, gb["slots"], gb["plan"])
            da, db = sch.desc.format(**fa), sch.desc.format(**fb)
            va, vb = sortable(ga["value"]), sortable(gb["value"])
            if va == vb:
                continue
            a_wins = (va > vb) if sch.compare_word == "higher" else (va < vb)
            answer = f"{da if a_wins else db} ({da}: {ga['value']}; {db}: {gb['value']})"
            names = self.names_of(sch, ga["slots"]) + self.names_of(sch, gb["slots"])
            q = self.question(r, [sch.compare_q], {**fa, "a": da, "b": db},
                              [self.docs[ga["doc"]].text, self.docs[gb["doc"]].text], names)
            self.add_query(d, "comparison", q, answer, [ga, gb], na + nb, names, canonical=da if a_wins else db)
        # two-hop (3) and computed (1): person record A -> fact doc B
        bname, aname, bfixed, compute, computed_q = TWO_HOP[d]
        bs, as_ = self.schemas[bname], self.schemas[aname]
        for i in range(4):
            computed = i == 3
            bslots = self.fresh_slots(r, bs, bfixed)
            ctx = {}
            bneg_fields = bs.hn_fields[:2]  # the fixed key (e.g. "per day") is varied too: a sharp near miss
            gold_b, negs_b = self.gold_with_negatives(r, bs, bslots, n_neg=2, neg_fields=bneg_fields)
            aslots = self.person_slots(r, d, gold_b["slots"], computed)
            if computed:
                ctx = self.compute_ctx(r, d, gold_b["value"])
            gold_a, negs_a = self.gold_with_negatives(r, as_, aslots, ctx=ctx, n_neg=1, neg_fields=["first"], people=True)
            self.used_people.add(f"{aslots['first']} {aslots['last']}")
            full = self.all_slots(as_, gold_a["slots"], gold_a["plan"])
            texts = [self.docs[gold_a["doc"]].text, self.docs[gold_b["doc"]].text]
            names = self.names_of(as_, gold_a["slots"]) + self.names_of(bs, gold_b["slots"])
            if computed:
                q = self.question(r, [computed_q], full, texts, names)
                answer = compute(gold_a["value"], gold_b["value"], gold_a["slots"], gold_b["slots"])
                kind = "computed"
            else:
                q = self.question(r, as_.questions, full, texts, names)
                answer = gold_b["value"]
                kind = "two-hop"
            # a computed answer "HEAD (how)" has its head as the canonical answer
            self.add_query(d, kind, q, answer, [gold_a, gold_b], negs_a + negs_b, names,
                           canonical=answer.split(" (", 1)[0] if computed and " (" in answer else "")
        self.build_needle(r, d)

    def person_slots(self, r, d, b: dict, computed: bool) -> dict:
        while True:
            first, last = r.choice(GIVEN), r.choice(self.world.pools["surname"])
            if f"{first} {last}" not in self.used_people:
                break
        s = {"first": first, "last": last}
        for k in ("bank", "product", "year", "drug", "court", "case_type", "store", "category", "airline", "fare",
                  "company", "leave", "insurer", "plan", "vendor"):
            if k in b:
                s[k] = b[k]
        if d == "medical":
            lo, hi = POPULATION_AGE[b["population"]]
            s["age"] = r.randint(lo, hi)
        if d == "retail":
            s["item"] = r.choice(CATEGORY_ITEMS[b["category"]])
        return s

    def compute_ctx(self, r, d, bvalue: str) -> dict:
        v = num_of(bvalue)
        if d == "medical":
            divs = [x for x in (5, 10, 20) if v % x == 0 and v // x >= 2]
            return {"strength": r.choice(divs)}
        if d == "travel":
            return {"bag": int(v) + r.randint(2, 9)}
        if d == "technology":
            return {"batch": int(v) * r.randint(3, 20) + r.randint(1, int(v) - 1)}
        return {}

    def build_needle(self, r, d):
        sentence, qt = NEEDLES[d]
        words = self.world.pools["needle_word"]
        fill = [s for s in PAD_SENTENCES[d] if "{" not in s]
        r.shuffle(fill)
        before, after = fill[:1], fill[1:3]
        archives = [a for a in self.world.pools["archive"] if a not in self.used_people]
        chosen = r.sample(archives, 4)
        for a in chosen:
            self.world.pools["archive"].remove(a)
        values = []
        while len(values) < 4:
            v = f"{r.choice(words)}-{r.choice(words)}-{r.randint(11, 97)}"
            if v not in values and len(set(v.split("-")[:2])) == 2:
                values.append(v)
        title = {"finance": "Branch operations memo — {archive}", "medical": "Facilities bulletin — {archive} wing",
                 "legal": "Registry housekeeping note — {archive}", "retail": "Depot operations memo — {archive}",
                 "travel": "Crew notice — {archive} terminal", "hr": "Office facilities memo — {archive}",
                 "insurance": "Branch operations memo — {archive}", "technology": "Ops runbook excerpt — {archive}"}[d]
        docs = []
        for a, v in zip(chosen, values):
            text = " ".join(before + [sentence.format(archive=a, value=v)] + after)
            docs.append((a, v, title.format(archive=a), text))
        a0, v0, t0, x0 = docs[0]
        gid = self.add_doc(d, t0, x0, "gold")
        gold = {"doc": gid, "fact": sentence.format(archive=a0, value=v0), "value": v0}
        negs = []
        for a, v, t, x in docs[1:]:
            nid = self.add_doc(d, t, x, "negative")
            negs.append({"doc": nid, "imitates": gid, "field": "archive", "field_kind": "entity",
                         "gold_value": a0, "negative_value": a, "gold_fact_value": v0, "negative_fact_value": v})
        self.add_query(d, "needle", qt.format(archive=a0), v0, [gold], negs, [a0])
