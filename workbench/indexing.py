"""Build and check the per-tier indexes under .workbench/index/.

Each tier gets its own Tantivy index (so BM25 statistics are those of the tier alone) and its
own USearch index over the chunk vectors of its documents. Chunk vectors are computed once
for the whole pool through the embedding cache. Every index directory carries a manifest;
one whose manifest does not match what would be built now is stale and is rebuilt, never used.
Builds go to a temp directory beside the target and are swapped in whole.
"""

from __future__ import annotations

import shutil
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import msgspec

from workbench.errors import WorkbenchError
from workbench.fsutil import atomic_replace_dir, atomic_write_bytes, fresh_temp_dir, safe_name
from workbench.progress import Progress
from workbench.project import Project
from workbench.records import Tier
from workbench.runs import tier_hash

MANIFEST = "manifest.json"
SPARSE_FORMAT = 1
DENSE_FORMAT = 1

# progress(stage, done, total): stage is e.g. "bm25 base:finance", "embed", "dense full"


class StaleIndexError(WorkbenchError):
    title = "Index missing or stale"
    hint = "Build the indexes: `workbench index PROJECT` (Ctrl+B in the TUI)."


class IndexManifest(msgspec.Struct, frozen=True):
    kind: Literal["sparse", "dense"]
    format: int
    tier: str
    tier_hash: str
    n_docs: int
    embedder: str = ""
    dims: int = 0
    chunk_tokens: int = 0
    chunk_overlap: int = 0
    n_chunks: int = 0


def sparse_dir(project: Project, tier: Tier) -> Path:
    return project.state_dir / "index" / "sparse" / safe_name(tier.name)


def dense_dir(project: Project, tier: Tier) -> Path:
    return project.state_dir / "index" / "dense" / safe_name(tier.name)


def embedder_name(project: Project) -> str:
    e = project.config.embedding
    return f"{e.backend}:{e.model}"


def expected_sparse(project: Project, tier: Tier) -> IndexManifest:
    return IndexManifest("sparse", SPARSE_FORMAT, tier.name, tier_hash(project, tier), len(tier.doc_ids))


def expected_dense(project: Project, tier: Tier, dims: int = 0, n_chunks: int = 0) -> IndexManifest:
    e = project.config.embedding
    return IndexManifest(
        "dense", DENSE_FORMAT, tier.name, tier_hash(project, tier), len(tier.doc_ids),
        embedder=embedder_name(project), dims=dims, chunk_tokens=e.chunk_tokens,
        chunk_overlap=e.chunk_overlap, n_chunks=n_chunks,
    )


def read_manifest(path: Path) -> IndexManifest | None:
    try:
        return msgspec.json.decode((path / MANIFEST).read_bytes(), type=IndexManifest)
    except (OSError, msgspec.DecodeError):
        return None


def _matches(found: IndexManifest | None, expected: IndexManifest) -> bool:
    if found is None:
        return False
    # dims and chunk counts are only known after embedding: compare the rest
    return msgspec.structs.replace(found, dims=0, n_chunks=0) == expected


def index_status(project: Project, tier: Tier) -> dict[str, str]:
    """{"sparse": "ok"|"missing"|"stale", "dense": …} for one tier."""
    out = {}
    for kind, path, expected in (
        ("sparse", sparse_dir(project, tier), expected_sparse(project, tier)),
        ("dense", dense_dir(project, tier), expected_dense(project, tier)),
    ):
        found = read_manifest(path)
        out[kind] = "missing" if found is None else ("ok" if _matches(found, expected) else "stale")
    return out


def require_index(project: Project, tier: Tier, kind: str) -> Path:
    status = index_status(project, tier)[kind]
    if status != "ok":
        raise StaleIndexError(f"{kind} index for tier {tier.name!r} is {status}: run `workbench index {project.root}`")
    return sparse_dir(project, tier) if kind == "sparse" else dense_dir(project, tier)


def make_project_embedder(project: Project):
    from index import make_embedder

    e = project.config.embedding
    return make_embedder(e.backend, e.model, base_url=e.base_url, api_key_env=e.api_key_env, batch_size=e.batch_size)


@dataclass
class ChunkTable:
    """Every chunk of the pool: its document and its vector (rows aligned)."""

    doc_ids: Any  # np.ndarray[int64] (numpy is imported lazily)
    vectors: Any  # np.ndarray[float32]


def embed_pool(project: Project, doc_ids: list[int], progress: Progress | None = None, embedder=None) -> ChunkTable:
    import numpy as np

    from index import EmbeddingCache, embed_with_cache

    embedder = embedder or make_project_embedder(project)
    e = project.config.embedding
    chunk_docs: list[int] = []
    texts: list[str] = []
    for n, doc_id in enumerate(doc_ids, 1):
        doc = project.documents[doc_id]
        for chunk in embedder.chunk(f"{doc.title}\n{doc.text}", e.chunk_tokens, e.chunk_overlap):
            chunk_docs.append(doc_id)
            texts.append(chunk)
        if progress and (n % 200 == 0 or n == len(doc_ids)):
            progress("chunk", n, len(doc_ids))
    cache = EmbeddingCache(project.state_dir / "embeddings" / "cache.sqlite", embedder.name, embedder.dims)
    vectors = embed_with_cache(
        embedder, cache, texts, progress=(lambda done: progress("embed", done, len(texts))) if progress else None
    )
    return ChunkTable(np.asarray(chunk_docs, dtype=np.int64), np.asarray(vectors, dtype=np.float32))


def _write_manifest(path: Path, manifest: IndexManifest) -> None:
    atomic_write_bytes(path / MANIFEST, msgspec.json.encode(manifest))


@contextmanager
def _built_aside(target: Path):
    """Yield a temp dir beside target; swap it in whole on success, remove it on any failure
    (an interrupted build leaves the previous index in place and usable)."""
    tmp = fresh_temp_dir(target)
    try:
        yield tmp
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    atomic_replace_dir(tmp, target)


def build_sparse(project: Project, tier: Tier, progress: Progress | None = None) -> None:
    from index import SparseIndex

    docs = ((i, project.documents[i].title, project.documents[i].text) for i in tier.doc_ids)
    stage = f"bm25 {tier.name}"
    with _built_aside(sparse_dir(project, tier)) as tmp:
        SparseIndex.build(tmp, docs, progress=(lambda n: progress(stage, n, len(tier.doc_ids))) if progress else None)
        _write_manifest(tmp, expected_sparse(project, tier))


def build_dense(project: Project, tier: Tier, table: ChunkTable, progress: Progress | None = None) -> None:
    import numpy as np

    from index import DenseIndex

    mask = np.isin(table.doc_ids, np.asarray(tier.doc_ids, dtype=np.int64))
    ids, vecs = table.doc_ids[mask], table.vectors[mask]
    stage = f"dense {tier.name}"
    with _built_aside(dense_dir(project, tier)) as tmp:
        DenseIndex.build(tmp, ids, vecs, progress=(lambda n: progress(stage, n, len(ids))) if progress else None)
        _write_manifest(tmp, expected_dense(project, tier, dims=int(vecs.shape[1]), n_chunks=int(len(ids))))


def build_indexes(
    project: Project,
    tiers: list[Tier],
    kinds: tuple[str, ...] = ("sparse", "dense"),
    force: bool = False,
    progress: Progress | None = None,
) -> dict[str, list[str]]:
    """Build what is missing or stale. Returns {"built": [...], "kept": [...]} of "kind tier" labels."""
    built, kept = [], []
    todo_dense = []
    for tier in tiers:
        status = index_status(project, tier)
        if "sparse" in kinds:
            if force or status["sparse"] != "ok":
                build_sparse(project, tier, progress)
                built.append(f"sparse {tier.name}")
            else:
                kept.append(f"sparse {tier.name}")
        if "dense" in kinds:
            if force or status["dense"] != "ok":
                todo_dense.append(tier)
            else:
                kept.append(f"dense {tier.name}")
    if todo_dense:
        needed = sorted(set().union(*(t.doc_ids for t in todo_dense)))
        table = embed_pool(project, needed, progress)
        for tier in todo_dense:
            build_dense(project, tier, table, progress)
            built.append(f"dense {tier.name}")
    return {"built": built, "kept": kept}
