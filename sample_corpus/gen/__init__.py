"""The sample_corpus generator, one job per module (entry point: sample_corpus/generate.py).

    config      seed, domains, ladder sizing, tokenizer
    world       name grammar, organisation pools, date/money helpers
    schemas/    template families (one module per domain) and make_schemas
    specs       which schemas each domain's queries use; comparators; needles
    queries     per-domain query building (single-hop, comparison, two-hop, computed, needle)
    padding     padding prose and its near-collision fact sentences
    text        whole-token matching, substitution, shared n-gram check
    generator   Generator: slots, rendering, gold + hard negatives, DocIDs, output bytes

How the phenomena are built in
------------------------------
* A *fact document* is rendered from a schema (template family) with key fields (entity,
  year, product variant, unit, number, person) and one value field (the fact). A rendering
  *plan* (title, sentence alternatives, order, incidental details) is chosen once per gold
  document; each hard negative re-uses the plan of the gold document it imitates and changes
  exactly one key field, which changes the fact value too. So a negative is template-identical
  to its gold: substituting (negative field value -> gold field value, negative fact value ->
  gold fact value) in the negative gives back the gold text exactly. labels.jsonl records that.
* Every key tuple of a schema occurs at most once in the whole corpus (gold, negative or
  padding), so no other document can answer a query.
* Padding is same-domain prose about the same fictional organisations, with near-collision
  fact sentences for *other* key tuples mixed in, so larger tiers bring more near misses.
* Two-hop queries join a person record (doc A) to a fact document (doc B) that the question
  never names; computed queries do arithmetic on both; comparisons join two single-hop golds.
* A verbatim needle per domain is the control.
"""
