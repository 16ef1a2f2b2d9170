"""The project folder: its files, its query-set versions, its labels, and the demo.

  files.py      reading, validating and writing workbench.toml, documents.jsonl, queries.jsonl
  versions.py   query-set versions (relabelled query sets on the original's tiers)
  load.py       load_project(root, queries_version): files + the version's queries
  corpus_store.py  documents.jsonl read lazily once validated (its stat, hashes, each document's span)
  labels.py     labelling from the TUI (gold / hard negative / not relevant, undo) and export-labels
  importers.py  `workbench import` (JSONL, BEIR)
  demo.py       the bundled sample corpus copied to the user's data folder
"""
