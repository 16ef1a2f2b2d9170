"""Evidence use: long-context models per tier (docs/METHOD.md §1 "use" side).

Localization (DocIDs from the model's own output, scored by workbench.access.metrics like any
retriever), QA with the full tier, oracle (gold only) and retrieve-then-read, an LLM judge
(0–5), over any OpenAI-compatible endpoint with an embedded local SmolLM2 default.

Modules: server (embedded llama.cpp server), client (async calls, retries, cache),
providers (model/judge resolution), docids, prompts, judge, tasks, store, sources (which stored
runs count, in one order), answers (a stored answer checked), figures (use-side figures for eval
and the report). When an answer is right: workbench/correctness.py.
"""
