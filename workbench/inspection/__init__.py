"""One query up close: every system's ranking with gold and near-miss marks, the word-level
difference between a near miss and the gold it imitates, and what models answered.

  rankings.py        inspect_stored: rankings, gold ranks, near misses of one query on one tier
  worddiff.py        word-level diff and its salient changes (entity, year, number…)
  model_evidence.py  a model's result for one query, from the stored runs that count (ModelEvidence)
  movement.py        rank movement between two systems (gold and near misses), for compare and the fixes
  evidence.py        the evidence export: Markdown + JSON for a bug report
"""
