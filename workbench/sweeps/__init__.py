"""Sweeps (docs/METHOD.md §2, §3): vary the context a model reads while holding everything else fixed.

  volume        context rot: the same questions, gold evidence and answer budget at growing input
                lengths, padded with same-domain passages that do not answer; evidence depth drawn
                per (case, repeat) and held across lengths, so position is never confounded with volume
  depth         Protocol A: a depth × length grid of one planted fact
  distribution  Protocol B: ten facts placed by a named density over 5% depth bins at full window

Placement sweeps run under the standard and the anti-hallucination prompt (safety tax, Fisher's
exact test, faithfulness masking). Every sweep is stored under .workbench/sweeps/<id>/ and resumes:
finished arms are never recomputed, and each arm's input is rebuilt from its recorded seed.

Modules: records, haystack (padding and planting), facts (seeded fact bank), distributions,
arms (arm construction), store, runner, summary (figures), charts (Rich renderables for the TUI).
Their statistics are workbench/stats.py, their scoring workbench/correctness.py, their report
sections workbench/report/sweeps.py, their commands workbench/cli/sweeps.py.
"""
