"""The diagnosis: a verdict per query (rules.py) and a reading per tier (overview.py), from stored
results only (collect.py: loading and verdicts; systems.py: what a system is; next_steps.py: the
command that fills what a verdict misses), with use scores that can be trusted
(workbench/llm/answers.py, deciding by workbench/correctness.py) and seeded intervals
(workbench/stats.py); a tried fix's measured effect (fix_effect.py). Headless: no Rich, no Textual."""
