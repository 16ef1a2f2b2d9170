"""K has one home (workbench/project/settings.py: `access_k(project)`): no module of workbench/ or screens/
writes the cut-off as a literal 10 — a `k=10` argument or default, a call that scores at 10, a rank
compared with 10, or "@10" / "top 10" / "K=10" in a string a user reads. A new one fails here,
named by file:line; ALLOWED lists the few 10s that are not K."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from support.paths import REPO

K_NAMES = {"k", "top_k"}
# calls whose positional 10 is the cut-off K
K_CALLS = {"score_run", "evaluate", "query_access", "summarize_access", "access_summary"}
K_TEXT = re.compile(r"(?<!nDCG)@10\b|\btop[ -]10\b|\bK ?= ?10\b")

# (file, the line's code, why 10 is not K there): a fixed metric name, the config default itself
ALLOWED: list[tuple[str, str, str]] = [
    ("workbench/records.py", "k: PositiveInt = 10", "the `[retrievers] k` default itself: where K comes from"),
    ("workbench/access/metrics.py", "math.log2(r + 1) for r in gold_ranks.values() if r is not None and r <= 10",
     "nDCG@10: a fixed metric name, not the cut-off K"),
    ("workbench/llm/records.py", "k: int = 10  # DocIDs asked for (localize) / documents given (rag)",
     "a stored record's default: what runs written before the field existed asked for"),
]


def _is_ten(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value == 10


def _name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def literal_k(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, what) of every literal K in a module."""
    hits: list[tuple[int, str]] = []
    docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                  if isinstance(n, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                  and n.body and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg in K_NAMES and _is_ten(node.value):
            hits.append((node.value.lineno, f"{node.arg}=10 argument"))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args.posonlyargs + node.args.args
            for arg, default in zip(args[len(args) - len(node.args.defaults):], node.args.defaults):
                if arg.arg in K_NAMES and _is_ten(default):
                    hits.append((default.lineno, f"{arg.arg}=10 default"))
            for arg, kw_default in zip(node.args.kwonlyargs, node.args.kw_defaults):
                if arg.arg in K_NAMES and _is_ten(kw_default):
                    hits.append((arg.lineno, f"{arg.arg}=10 default"))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id in K_NAMES \
                and _is_ten(node.value):
            hits.append((node.lineno, f"{node.target.id}: … = 10 field"))
        elif isinstance(node, ast.Call) and _name(node.func) in K_CALLS and any(_is_ten(a) for a in node.args):
            hits.append((node.lineno, f"{_name(node.func)}(…, 10)"))
        elif isinstance(node, ast.Compare) and any(_is_ten(c) for c in [node.left, *node.comparators]) \
                and any("rank" in _name(c).lower() for c in [node.left, *node.comparators]) \
                or isinstance(node, ast.Compare) and _is_ten(node.comparators[-1]) and isinstance(node.left, ast.Name) \
                and node.left.id in ("r", "rank"):
            hits.append((node.lineno, "a rank compared with 10"))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            if m := K_TEXT.search(node.value):
                hits.append((node.lineno, f"{m.group(0)!r} in a string"))
    return hits


def sources() -> list[Path]:
    return sorted(p for d in ("workbench", "screens") for p in (REPO / d).rglob("*.py"))


def scan() -> list[str]:
    found = []
    for path in sources():
        rel = path.relative_to(REPO).as_posix()
        lines = path.read_text().splitlines()
        for line, what in literal_k(ast.parse(path.read_text(), filename=rel)):
            code = lines[line - 1]
            if any(rel == f and snippet in code for f, snippet, _ in ALLOWED):
                continue
            found.append(f"{rel}:{line}: {what}: {code.strip()}")
    return found


def test_no_literal_k_outside_settings():
    found = scan()
    assert not found, "a literal K (read `workbench.project.settings.access_k(project)` instead):\n" + "\n".join(found)


def test_the_scanner_finds_each_kind_of_literal_k():
    code = '''
def f(project, run, k=10):
    evaluate(project, tiers, k=10)
    score_run(project, run, 10)
    found = r is not None and r <= 10
    title = f"gold in top 10 at {tier}"
    head = "SR@10 over FR@10 (K=10)"
    ok = "nDCG@10"
'''
    lines = sorted({line for line, _ in literal_k(ast.parse(code))})
    assert lines == [2, 3, 4, 5, 6, 7]


def test_every_allowance_still_matches_a_line():
    """An allowance whose line is gone is dropped, not kept as a hole for a new literal."""
    for rel, snippet, _ in ALLOWED:
        assert snippet in (REPO / rel).read_text(), (rel, snippet)
