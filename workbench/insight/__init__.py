"""The sharper diagnosis (issue 22), from stored results only (no model call, no new ranking):

- effective_size: per system and metric, the largest ladder level that keeps 85% of the smallest's;
- stealers: the documents ranked above an outranked gold document, with how much they resemble it;
- unjudged: the share of a system's top K that nobody labelled, and those that carry the answer;
- position: long-context recall and correctness by the gold's depth in the serialised tier.

The near-miss arm (the `nearmiss` task) lives with the other tasks (workbench/names.py,
workbench/llm/tasks.py) and its verdict split with the rules (workbench/diagnosis/rules.py).
"""
