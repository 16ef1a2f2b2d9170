"""Build and check the per-tier indexes under .workbench/index/.

Each tier gets its own Tantivy index (so BM25 statistics are those of the tier alone). Dense:
one store over the pool (``dense/@pool``: the f32 chunk vectors once, memory-mapped, and an
HNSW graph over them only above ``hnsw_min_chunks``) and per tier a list of its rows in the
store (``dense/<tier>/rows.npy``): a tier's dense search equals that of an index built on the
tier alone (exact, or the pool's graph filtered to the tier and re-scored exactly), while the
vectors are stored once rather than once per tier (docs/ARCHITECTURE.md, "Dense store").
Chunk vectors are computed once for the whole pool through the embedding cache. Every index
directory carries a manifest;
one whose manifest does not match what would be built now is stale and is rebuilt, never used.
Builds go to a temp directory beside the target and are swapped in whole.
"""

from __future__ import annotations

import os
import shutil
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Literal

import msgspec

from workbench.errors import ExternalError, WorkbenchError
from workbench.fsutil import (atomic_replace_dir, atomic_write_bytes, checked_database, fresh_temp_dir, log, remove_dead_builds, safe_name,
                              sha256_bytes, sha256_file)
from workbench.progress import Progress
from workbench.project.files import Project
from workbench.records import Tier
from workbench.access.runs import tier_docs_hash
from workbench.safe_text import redacted

MANIFEST = "manifest.json"
# 2: the manifest vouches for its files (sizes and hashes)
SPARSE_FORMAT = 2
# 3: a tier's dense index is a row list into the pool's store (older tier folders are rebuilt)
DENSE_FORMAT = 3
STORE = "@pool"  # the dense store's folder under index/dense/ (no tier's safe_name has an @)
ROWS_FILE = "rows.npy"
STORE_DOCS_FILE = "doc_ids.npy"  # the documents the store was built over

IndexKind = Literal["sparse", "dense"]

# progress(stage, done, total): stage is e.g. "bm25 base:finance", "embed", "dense full"


def stage_unit(stage: str) -> str:
    """What a build stage counts: embedding and dense stages count chunks, the others documents."""
    return "chunks" if stage == "embed" or stage.startswith("dense ") else "docs"


class StaleIndexError(WorkbenchError):
    title = "Index missing or stale"
    hint = "Build the indexes: `workbench index PROJECT` (Ctrl+B in the TUI)."


class IndexManifest(msgspec.Struct, frozen=True):
    kind: IndexKind
    format: int
    tier: str
    tier_hash: str  # runs.tier_docs_hash: the tier's documents, not its queries
    n_docs: int
    embedder: str = ""
    dims: int = 0
    chunk_tokens: int = 0
    chunk_overlap: int = 0
    n_chunks: int = 0
    # every file the build wrote: name → (size, sha256). A file that differs makes the index "damaged".
    files: dict[str, tuple[int, str]] = {}
    hnsw_min_chunks: int = 0  # dense: the setting it was built under (a change rebuilds)
    index: str = ""  # dense: "exact", "ivf" (the router) or "hnsw" (a graph)
    search: str = ""  # dense: the paths its searches take, e.g. "single exact, eval batched-exact"
    store: str = ""  # dense tier: the identity (store_id) of the store whose rows it lists
    graph: dict[str, str | int] = {}  # dense: the HNSW graph's settings when it has one (dense.json's)


def sparse_dir(project: Project, tier: Tier) -> Path:
    return project.state_dir / "index" / "sparse" / safe_name(tier.name)


def dense_dir(project: Project, tier: Tier) -> Path:
    return project.state_dir / "index" / "dense" / safe_name(tier.name)


def dense_store_dir(project: Project) -> Path:
    return project.state_dir / "index" / "dense" / STORE


def store_id(manifest: IndexManifest) -> str:
    """A store's identity: its files' hashes (a rebuild with the same content keeps it)."""
    return sha256_bytes(msgspec.json.encode(sorted(manifest.files.items())))[:16]


def embedder_name(project: Project) -> str:
    e = project.config.embedding
    return f"{e.backend}:{e.model}"


def expected_sparse(project: Project, tier: Tier) -> IndexManifest:
    return IndexManifest("sparse", SPARSE_FORMAT, tier.name, tier_docs_hash(project, tier), len(tier.doc_ids))


def expected_dense(project: Project, tier: Tier, dims: int = 0, n_chunks: int = 0) -> IndexManifest:
    e = project.config.embedding
    return IndexManifest(
        "dense", DENSE_FORMAT, tier.name, tier_docs_hash(project, tier), len(tier.doc_ids),
        embedder=embedder_name(project), dims=dims, chunk_tokens=e.chunk_tokens,
        chunk_overlap=e.chunk_overlap, n_chunks=n_chunks, hnsw_min_chunks=project.config.retrievers.hnsw_min_chunks,
    )


def expected_store(project: Project, doc_ids: list[int]) -> IndexManifest:
    """The store over ``doc_ids`` (as if it were a tier named STORE)."""
    return expected_dense(project, Tier(name=STORE, kind="full", budget=0, tokens=0, doc_ids=doc_ids, query_ids=[], domains=[]))


def read_manifest(path: Path) -> IndexManifest | None:
    try:
        return msgspec.json.decode((path / MANIFEST).read_bytes(), type=IndexManifest)
    except (OSError, msgspec.DecodeError):
        return None


def _matches(found: IndexManifest | None, expected: IndexManifest) -> bool:
    if found is None:
        return False
    # dims, chunk counts, files and search paths are only known after the build: compare the rest
    return msgspec.structs.replace(found, dims=0, n_chunks=0, files={}, index="", search="", store="", graph={}) == expected


def _file_record(path: Path) -> tuple[int, str]:
    return (path.stat().st_size, sha256_file(path))


# Beside the manifest (a dot file: not part of the index's content, nor of run keys): per file,
# (size, mtime_ns, inode, ctime_ns, sha256) when it was last hashed. A file whose stat still matches is
# trusted without reading it, so checking an index costs a few stats whatever its size; any
# other is hashed against the manifest (and, if it matches, recorded again: a copied project
# is hashed once, not on every command). Rewriting a file changes its mtime, so it is hashed.
VERIFIED = ".verified.json"


def _stat_record(st: os.stat_result, digest: str) -> list:
    # ctime too: a file rewritten in place with its mtime put back (touch -r) still moves its ctime
    return [st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns, digest]


def _read_verified(folder: Path) -> dict[str, list]:
    try:
        got = msgspec.json.decode((folder / VERIFIED).read_bytes(), type=dict[str, list])
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        return {}
    return got


def _write_verified(folder: Path, verified: dict[str, list]) -> None:
    try:
        atomic_write_bytes(folder / VERIFIED, msgspec.json.encode(verified))
    except OSError:  # a read-only project is checked by hashing, as before
        pass


# (path, size, mtime_ns, inode, ctime_ns) → sha256: each file is hashed once per process unless it changes
_verified: dict[tuple[str, int, int, int, int], str] = {}


def damaged_file(folder: Path, manifest: IndexManifest) -> str | None:
    """Why the index in ``folder`` is not what its manifest vouches for ("path: reason"), or None."""
    if not manifest.files:
        return f"{folder / MANIFEST}: lists no files"
    verified = _read_verified(folder)
    changed = False
    for name, (size, digest) in sorted(manifest.files.items()):
        path = folder / name
        try:
            st = path.stat()
        except OSError:
            return f"{path}: missing"
        if st.st_size != size:
            return f"{path}: {st.st_size:,} bytes, the manifest says {size:,}"
        if verified.get(name) == _stat_record(st, digest):
            continue  # untouched since it was hashed
        memo = (str(path), st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns)
        if memo not in _verified:
            _verified[memo] = sha256_file(path)
        if _verified[memo] != digest:
            return f"{path}: content differs from the manifest's hash"
        verified[name], changed = _stat_record(st, digest), True
    if changed:
        _write_verified(folder, {n: v for n, v in verified.items() if n in manifest.files})
    return None


def index_status(project: Project, tier: Tier, kinds: tuple[str, ...] = ("sparse", "dense")) -> dict[str, str]:
    """{"sparse": "ok"|"missing"|"stale"|"damaged", "dense": …} for one tier (the ``kinds`` asked)."""
    return {kind: status for kind, (status, _) in index_states(project, tier, kinds).items()}


def index_states(project: Project, tier: Tier, kinds: tuple[str, ...] = ("sparse", "dense")) -> dict[str, tuple[str, str]]:
    """Per kind asked: (status, why) — why names the damaged file. A kind not asked is not read."""
    out = {}
    for kind in kinds:
        path = sparse_dir(project, tier) if kind == "sparse" else dense_dir(project, tier)
        expected = expected_sparse(project, tier) if kind == "sparse" else expected_dense(project, tier)
        found = read_manifest(path)
        store = read_manifest(dense_store_dir(project)) if kind == "dense" and found is not None else None
        if found is None:
            out[kind] = ("missing", "")
        elif not _matches(found, expected) or (kind == "dense" and (store is None or store_id(store) != found.store)):
            out[kind] = ("stale", "")  # a dense tier: also when the store it lists rows of is gone or another
        else:
            why = (damaged_file(dense_store_dir(project), store) if store is not None else None) or damaged_file(path, found)
            out[kind] = ("damaged", why) if why else ("ok", "")
    return out


def require_index(project: Project, tier: Tier, kind: str) -> Path:
    """The tier's index folder of ``kind``; a damaged one (a file that differs from its manifest:
    truncated, edited) is rebuilt first, said in one line — derived state, never fatal. A missing
    or stale one: StaleIndexError naming `workbench index`."""
    status = index_status(project, tier, (kind,))[kind]
    if status == "damaged":
        build_indexes(project, _with_other_tiers(project, tier), kinds=(kind,))  # it says what it rebuilds
        status = index_status(project, tier, (kind,))[kind]
    if status != "ok":
        raise StaleIndexError(f"{kind} index for tier {tier.name!r} is {status}: run `workbench index {project.root}`")
    return sparse_dir(project, tier) if kind == "sparse" else dense_dir(project, tier)


def _with_other_tiers(project: Project, tier: Tier) -> list[Tier]:
    """``tier`` with the project's other tiers: a rebuilt dense store must hold every tier's
    documents, or the other tiers' row lists would go stale with it."""
    from workbench.access.ladder import StaleTiersError, load_tiers

    try:
        others = [t for t in load_tiers(project).tiers if t.name != tier.name]
    except StaleTiersError:
        others = []
    return [*others, tier]


class EmbeddingError(WorkbenchError):
    title = "Embedding failed"
    hint = ("Check [embedding] in workbench.toml: a local model folder, or an endpoint (base_url) "
            "and the environment variable that holds its key (api_key_env).")


@contextmanager
def embedding_errors(project: Project):
    """The embedder's own errors (index/ knows nothing of ours) as one WorkbenchError, key redacted."""
    from index import EmbedderError

    try:
        yield
    except EmbedderError as exc:
        e = project.config.embedding
        key = os.environ.get(e.api_key_env, "") if e.api_key_env else ""
        raise EmbeddingError(redacted(str(exc), (key,))) from None


def make_project_embedder(project: Project):
    from index import make_embedder

    e = project.config.embedding
    with embedding_errors(project):
        return make_embedder(e.backend, e.model, base_url=e.base_url, api_key_env=e.api_key_env, batch_size=e.batch_size,
                             concurrency=e.concurrency)


@dataclass
class ChunkTable:
    """Every chunk of the pool: its document and its vector (rows aligned)."""

    doc_ids: Any  # np.ndarray[int64] (numpy is imported lazily)
    vectors: Any  # np.ndarray[float32]
    docs: list[int] | None = None  # the documents chunked (one with no chunk is still covered)
    store: IndexManifest | None = None  # set once the pool's store is built from this table


def embed_pool(project: Project, doc_ids: list[int], progress: Progress | None = None, embedder=None) -> ChunkTable:
    import numpy as np

    from index import EmbeddingCache, embed_with_cache
    from index.embedding_cache import NonFiniteVectors

    embedder = embedder or make_project_embedder(project)
    e = project.config.embedding
    chunk_docs: list[int] = []
    texts: list[str] = []
    for n, doc_id in enumerate(doc_ids, 1):
        doc = project.documents[doc_id]
        with embedding_errors(project):  # the first chunk loads the model's tokenizer
            chunks = embedder.chunk(f"{doc.title}\n{doc.text}", e.chunk_tokens, e.chunk_overlap)
        for chunk in chunks:
            chunk_docs.append(doc_id)
            texts.append(chunk)
        if progress and (n % 200 == 0 or n == len(doc_ids)):
            progress("chunk", n, len(doc_ids))
    try:
        with embedding_errors(project):
            cache_path = checked_database(project.state_dir / "embeddings" / "cache.sqlite", project.root)
            cache = EmbeddingCache(cache_path, embedder.name, embedder.dims)
            vectors = embed_with_cache(
                embedder, cache, texts, progress=(lambda done: progress("embed", done, len(texts))) if progress else None
            )
    except NonFiniteVectors as exc:
        raise ExternalError(f"{exc} (at {e.base_url or 'the local model'})", title="Embedding endpoint failed",
                            hint="The endpoint's answers are unusable; check it, then rerun `workbench index`.") from None
    except Exception as exc:
        if not type(exc).__module__.startswith("openai"):
            raise
        # an embedding endpoint's error: shown without a traceback and without the key it may echo
        key = os.environ.get(e.api_key_env, "") if e.api_key_env else ""
        raise ExternalError(redacted(f"{embedder.name} at {e.base_url}: {type(exc).__name__}: {exc}", (key,)),
                            title="Embedding endpoint failed") from None
    return ChunkTable(np.asarray(chunk_docs, dtype=np.int64), np.asarray(vectors, dtype=np.float32), docs=list(doc_ids))


def _write_manifest(path: Path, manifest: IndexManifest) -> None:
    # dot files are the engine's locks and bookkeeping (Tantivy's .tantivy-*.lock, .managed.json): not content
    paths = [p for p in sorted(path.iterdir()) if p.is_file() and p.name != MANIFEST and not p.name.startswith(".")]
    files = {p.name: _file_record(p) for p in paths}
    _write_verified(path, {p.name: _stat_record(p.stat(), files[p.name][1]) for p in paths})
    atomic_write_bytes(path / MANIFEST, msgspec.json.encode(msgspec.structs.replace(manifest, files=files)))


write_manifest = _write_manifest  # the one integrity record of an index: the tuned indexes write it too


@contextmanager
def _built_aside(target: Path):
    """Yield a temp dir beside target; swap it in whole on success, remove it on any failure
    (an interrupted build leaves the previous index in place and usable)."""
    tmp = fresh_temp_dir(target)
    try:
        yield tmp
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        if exc.filename is None or str(exc.filename).startswith(str(tmp)):  # no file, or the temp folder: name the index
            raise OSError(exc.errno, exc.strerror or str(exc), str(target)) from exc
        raise
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


def _usable_store(project: Project) -> tuple[IndexManifest, list[int]] | None:
    """The store as built, with the documents it covers, if it can serve this project now (its
    documents unchanged, built under the current embedding and graph settings, undamaged)."""
    import numpy as np

    path = dense_store_dir(project)
    found = read_manifest(path)
    if found is None or damaged_file(path, found):
        return None
    try:
        docs = [int(d) for d in np.load(path / STORE_DOCS_FILE)]
    except (OSError, ValueError):
        return None
    return (found, docs) if _matches(found, expected_store(project, docs)) else None


def build_dense_store(project: Project, table: ChunkTable, progress: Progress | None = None) -> IndexManifest:
    """The pool's store over ``table`` (every chunk of the documents it holds, any order)."""
    import json

    import numpy as np

    from index import DenseIndex

    docs = sorted({int(d) for d in table.doc_ids.tolist()} | set(table.docs or ()))
    order = np.argsort(table.doc_ids, kind="stable")  # rows grouped by document, ascending
    ids, vecs = table.doc_ids[order], table.vectors[order]
    stage = "dense pool"
    with _built_aside(dense_store_dir(project)) as tmp:
        DenseIndex.build(tmp, ids, vecs, progress=(lambda n: progress(stage, n, len(ids))) if progress else None,
                         hnsw_min_chunks=project.config.retrievers.hnsw_min_chunks)
        np.save(tmp / STORE_DOCS_FILE, np.asarray(docs, dtype=np.int64))
        graph = _graph_meta(tmp)
        _write_manifest(tmp, msgspec.structs.replace(
            expected_store(project, docs), dims=int(vecs.shape[1]), n_chunks=int(len(ids)),
            index=json.loads((tmp / "dense.json").read_text())["index"], graph=graph))
    built = read_manifest(dense_store_dir(project))
    assert built is not None
    table.store = built
    return built


def _graph_meta(path: Path) -> dict[str, str | int]:
    import json

    meta = json.loads((path / "dense.json").read_text())
    return {k: v for k, v in meta.items() if k.startswith("graph_")} if meta.get("index") in ("hnsw", "ivf") else {}


def open_dense(project: Project, tier: Tier):
    """The tier's dense index: its rows of the pool's store (opened once per store and shared)."""
    import numpy as np

    path = require_index(project, tier, "dense")
    return _open_store(dense_store_dir(project)).subset(np.load(path / ROWS_FILE))


_stores: dict[tuple[str, int, int, int], Any] = {}  # (path, inode, mtime, ctime of its manifest) → DenseIndex


def _open_store(path: Path):
    from index import DenseIndex

    st = (path / MANIFEST).stat()
    key = (str(path), st.st_ino, st.st_mtime_ns, st.st_ctime_ns)
    if key not in _stores:
        _stores.clear()  # one store per project: a rebuilt one replaces it
        _stores[key] = DenseIndex.open(path, view=True)
    return _stores[key]


def build_dense(project: Project, tier: Tier, table: ChunkTable, progress: Progress | None = None) -> None:
    """The tier's rows of the store, building the store from ``table`` first unless it already
    holds the tier (``table.store``: the store this table was written to)."""
    import numpy as np

    from index import DenseIndex

    store = table.store or build_dense_store(project, table, progress)
    store_path = dense_store_dir(project)
    pool_ids = np.load(store_path / "chunk_doc_ids.npy")
    rows = np.flatnonzero(np.isin(pool_ids, np.asarray(tier.doc_ids, dtype=np.int64)))
    stage = f"dense {tier.name}"
    with _built_aside(dense_dir(project, tier)) as tmp:
        np.save(tmp / ROWS_FILE, rows)
        # say which paths its searches take (the index decides from its size and the setting)
        opened = DenseIndex.open(store_path, view=True, rows=rows)
        paths = f"single {opened.search_path()}, eval {opened.search_path(batched=True)}"
        kind = opened.kind
        del opened  # a memory-mapped view: closed before the folder is swapped in
        _write_manifest(tmp, msgspec.structs.replace(
            expected_dense(project, tier, dims=store.dims, n_chunks=int(len(rows))), index=kind, search=paths,
            store=store_id(store), graph=store.graph))
        if progress:
            progress(stage, len(rows), len(rows))


def build_indexes(
    project: Project,
    tiers: list[Tier],
    kinds: tuple[str, ...] = ("sparse", "dense"),
    force: bool = False,
    progress: Progress | None = None,
    ready: Callable[[IndexKind, list[str]], None] | None = None,
) -> dict[str, list[str]]:
    """Build what is missing or stale. Returns {"built": [...], "kept": [...]} of "kind tier" labels.

    With ``ready``, indexes become usable as they are built rather than all at the end: every
    sparse index first (seconds), reported once, then the dense ones smallest tier first, each
    reported on its own once the pool's store is embedded and written (one pass; the embedding
    cache keeps a chunk from being embedded twice) and the tier's rows of it listed."""
    built, kept = [], []
    todo_dense = []
    for kind in ("sparse", "dense"):
        remove_dead_builds(project.state_dir / "index" / kind)
    asked = tuple(k for k in ("sparse", "dense") if k in kinds)
    status_of = {tier.name: index_states(project, tier, asked) for tier in tiers}
    damaged: dict[tuple[str, str], list[str]] = {}  # (why, kind) → tiers: a damaged pool file is said once
    for name, states in status_of.items():
        for kind, (state, why) in states.items():
            if state == "damaged":
                damaged.setdefault((why, kind), []).append(name)
    for (why, kind), names in damaged.items():
        log.warning("%s; rebuilding the %s index of tier%s %s", why, kind, "s" if len(names) > 1 else "", ", ".join(names))
    for tier in tiers:
        status = {kind: state for kind, (state, _) in status_of[tier.name].items()}
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
    if ready and "sparse" in kinds:
        ready("sparse", [t.name for t in tiers])
    if todo_dense:
        built += _build_dense_tiers(project, tiers, todo_dense, force, progress, ready)
        kept = [label for label in kept if label not in built]
    return {"built": built, "kept": kept}


def _build_dense_tiers(project: Project, tiers: list[Tier], todo: list[Tier], force: bool, progress: Progress | None,
                       ready: Callable[[IndexKind, list[str]], None] | None) -> list[str]:
    """The store (when it does not hold every document of ``tiers``, or ``force``), then the row
    lists of ``todo``, smallest tier first, each reported ``ready`` once written."""
    import numpy as np

    built = []
    usable = _usable_store(project)
    want = set().union(*(t.doc_ids for t in tiers))
    if force or usable is None or not want <= set(usable[1]):
        # a store never shrinks while usable: a build of one tier keeps the others' rows valid
        keep = set(usable[1]) & set(project.documents) if usable else set()
        table = embed_pool(project, sorted(want | keep), progress)
        build_dense_store(project, table, progress)
        built.append("dense pool")
    else:
        table = ChunkTable(np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.float32), store=usable[0])
    names = {t.name for t in todo}
    for tier in sorted(tiers, key=lambda t: len(t.doc_ids)):
        # a store rebuilt with the same content (a damaged file) keeps its identity and the rows
        # listing it stay valid; one with other content makes every tier's rows stale
        if (force and tier.name in names) or index_status(project, tier, ("dense",))["dense"] != "ok":
            build_dense(project, tier, table, progress)
            built.append(f"dense {tier.name}")
        if ready and (tier.name in names or f"dense {tier.name}" in built):
            ready("dense", [tier.name])
    return built
