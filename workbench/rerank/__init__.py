"""The rerank stage: re-score the top documents of any ranking system with a second model.

A reranked system is named ``<base>>rerank:<NAME>@<depth>`` (workbench/names.py); ``NAME`` is a
``[rerankers.NAME]`` table (workbench/records.py: RerankerConfig). ``scorers`` turns the table
into a scorer (cross-encoder, HTTP endpoint, or a chat model's pointwise yes/no), ``cache``
keeps every (reranker, query, document) score, and ``stage`` writes the reranked run beside the
other runs, so eval, compare, diagnose, report, export-trec and the TUI read it like any other.
"""
