"""The diagnosis: a verdict per query (rules.py) and a reading per tier (overview.py), from stored
results only (collect.py), with use scores that can be trusted (answers.py, deciding by
workbench/correctness.py) and seeded intervals (workbench/stats.py). Headless: no Rich, no Textual."""
