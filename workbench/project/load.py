"""Loading a project: both files read and validated, under a query-set version if one is asked for.

Apart from files.py because it reads the versions (versions.py), which themselves build on the
file readers of files.py: files ← versions ← load, no circle."""

from __future__ import annotations

from pathlib import Path

from workbench.fsutil import remove_leftovers
from workbench.project.files import (
    DOCUMENTS_FILE, ORIGINAL_VERSION, QUERIES_FILE, Problem, Project, ProjectError, iter_jsonl, load_config, validate,
)
from workbench.project.versions import check_relabelling, load_queries, queries_path
from workbench.records import Document, Query


def read_records(doc_path: Path, query_path: Path) -> tuple[list[tuple[int, Document]], list[tuple[int, Query]]]:
    """Read and validate both files; raise ProjectError listing every problem."""
    problems: list[Problem] = []
    docs = list(iter_jsonl(doc_path, Document, problems))
    docs_complete = not problems
    queries = list(iter_jsonl(query_path, Query, problems))
    # cross-record checks run on every line that parsed, so a malformed line hides nothing else
    problems.extend(validate(docs, queries, str(doc_path), str(query_path), docs_complete))
    if problems:
        raise ProjectError(problems)
    return docs, queries


def load_project(root: Path | str, queries_version: str | None = None) -> Project:
    """The project; with ``queries_version`` (a name from workbench.project.versions.list_versions;
    None or "original" = queries.jsonl) its queries are that version's, checked against the
    corpus and the original set (ProjectError naming the version's file, line and field)."""
    root = Path(root)
    config = load_config(root)
    remove_leftovers(root)  # what killed processes left (temp files, swapped-out index copies)
    doc_path, query_path = root / DOCUMENTS_FILE, root / QUERIES_FILE
    for p in (doc_path, query_path):
        if not p.exists():
            raise ProjectError([Problem(str(p), None, None, "missing (run `workbench import`)")])
    docs, queries = read_records(doc_path, query_path)
    project = Project(root=root, config=config, documents={d.doc_id: d for _, d in docs}, queries=[q for _, q in queries])
    if queries_version and queries_version != ORIGINAL_VERSION:
        version = load_queries(root, queries_version)
        problems = check_relabelling(project, version, str(queries_path(root, queries_version)))
        if problems:
            raise ProjectError(problems)
        project = Project(root=root, config=config, documents=project.documents, queries=version,
                          queries_version=queries_version, original_queries=project.queries)
    return project
