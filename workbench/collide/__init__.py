"""Collision testing (docs/METHOD.md §1): mine near-miss candidates, verify them with a model, apply
the rules, and write the result as a new query-set version (workbench.project.versions).

  mining.py   candidates per query from the project's own dense (and optionally BM25) index
  verify.py   one model call per candidate → HARD_NEGATIVE / CONFLICT / FALSE_NEGATIVE + reason
  rules.py    verdicts → what happens to each query (pure functions)
  run.py      the resumable run: mine, verify with the model layer, apply rules, write the version
  export.py   eval_set.jsonl
  truth.py    scoring mined-and-verified labels against known labels
"""
