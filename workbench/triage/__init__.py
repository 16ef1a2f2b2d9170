"""Production triage: what production did, brought in beside the workbench's own systems.

  runs.py     `import-run`: production rankings (TREC / JSONL) as the system run:NAME
  answers.py  `import-answers`: production answers as the judged use run run:NAME:answers
  queries.py  `add-query`: a failing query pasted from a log, with who/when in query_edits.jsonl
"""
