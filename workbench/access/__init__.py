"""Evidence access: the reference-corpus ladder and what retrievers find on each of its tiers.

  ladder.py      the tiers (docs/METHOD.md §1), byte-identical for the same spec, seed and corpus
  indexing.py    one Tantivy (sparse) and one USearch (dense) index per tier, built in the background
  retrievers.py  the retriever registry (bm25, dense, hybrid): RETRIEVERS, preferred()
  runs.py        stored rankings per tier × system, keyed by what they depend on
  evaluate.py    rankings → access figures per tier × system (retrievers, model localizations, imports)
  metrics.py     SR@K, FR@K, R@1, MRR@K, nDCG@10: one code path for every system
  trec.py        TREC qrels and run files for trec_eval, ranx, ir_measures
"""
