"""The tuned embedder as retrievers: ``dense@tuned`` (its own USearch index per tier) and
``hybrid@tuned`` (RRF of bm25 and dense@tuned). They rank the held-out queries only, so every
reader of their runs (eval, compare, diagnose, report) sees held-out figures and nothing else.
"""

from __future__ import annotations

from pathlib import Path

import shutil

import msgspec

from workbench.access.indexing import DENSE_FORMAT, IndexManifest, damaged_file, embed_pool, read_manifest, write_manifest
from workbench.access.retrievers import SEARCH_VERSION, BM25Retriever, DenseRetriever, HybridRetriever
from workbench.access.runs import RunStore, SystemRun, query_text_hash, run_key, tier_docs_hash, tier_hash
from workbench.errors import WorkbenchError
from workbench.fsutil import atomic_replace_dir, folder_fingerprint, fresh_temp_dir, log, safe_name
from workbench.names import TUNED_SUFFIX
from workbench.progress import Progress
from workbench.project.files import Project
from workbench.records import RankedList, Tier
from workbench.project.suggest import command
from workbench.tune.train import MODEL_DIR, TuneError, TuneRecord, load_record, model_problem, tuned_root, weights_changed

TUNED_SYSTEMS = (f"dense{TUNED_SUFFIX}", f"hybrid{TUNED_SUFFIX}")


def tuned_model(project: Project) -> tuple[Path, str, TuneRecord]:
    """The tuned model's folder, fingerprint and record; TuneError when `workbench tune` has not run."""
    path = tuned_root(project) / MODEL_DIR
    record = load_record(project)
    if record is None or not (path / "config.json").exists():
        raise TuneError("no tuned embedder in this project yet", hint="run `workbench tune PROJECT`")
    damaged = model_problem(path)
    if damaged:  # a truncated weights file would be a traceback deep in the loader
        raise TuneError(f"the tuned embedder is damaged: {damaged}",
                        hint=f"train it again: {command('tune', project.root, retrain=True)}")
    changed = weights_changed(project, record)
    if changed:  # its figures would be of weights this project never trained
        raise TuneError(f"the tuned embedder's weights changed since `tune` saved them: {changed}",
                        hint=f"train it again: {command('tune', project.root, retrain=True)} (or put back the weights it saved)")
    return path, folder_fingerprint(path), record


class TunedDenseRetriever(DenseRetriever):
    name = TUNED_SYSTEMS[0]
    label = "cosine similarity with the fine-tuned embedder (held-out queries only)"

    def __init__(self, project: Project):
        from index.embedders import SentenceTransformerEmbedder

        self.path, self.fingerprint, self.record = tuned_model(project)
        embedder = SentenceTransformerEmbedder(str(self.path), batch_size=project.config.embedding.batch_size)
        embedder.name = f"sentence-transformers:tuned:{self.fingerprint}"  # the embedding cache's key
        super().__init__(project, embedder)

    def key(self, tier: Tier) -> str:
        return run_key(self.name, SEARCH_VERSION, self.fingerprint, tier_docs_hash(self.project, tier),
                       self.project.config.embedding.chunk_tokens, self.project.config.embedding.chunk_overlap,
                       self.record.split.held_out)

    def index_dir(self, tier: Tier) -> Path:
        return self.project.state_dir / "index" / f"dense-tuned-{self.fingerprint}" / safe_name(tier.name)

    def build(self, tier: Tier, progress: Progress | None = None) -> None:
        """The tier's index over the tuned embedder's chunk vectors (built aside, swapped in whole)."""
        from index import DenseIndex

        target = self.index_dir(tier)
        if self._intact(target, tier):
            return
        table = embed_pool(self.project, list(tier.doc_ids), progress, embedder=self.embedder)
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = fresh_temp_dir(target)
        try:
            DenseIndex.build(tmp, table.doc_ids, table.vectors)
            (tmp / "done").write_text(self.fingerprint)
            write_manifest(tmp, self._manifest(tier, int(table.vectors.shape[1]) if table.vectors.ndim == 2 else 0,
                                               int(len(table.doc_ids))))
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        self._open.pop(tier.name, None)
        atomic_replace_dir(tmp, target)

    def _manifest(self, tier: Tier, dims: int = 0, n_chunks: int = 0) -> IndexManifest:
        return IndexManifest("dense", DENSE_FORMAT, tier.name, tier_docs_hash(self.project, tier), len(tier.doc_ids),
                             embedder=self.embedder.name, dims=dims, n_chunks=n_chunks)

    def _intact(self, target: Path, tier: Tier) -> bool:
        """Built for this tier and model, and every file as its manifest vouches (sizes, hashes): a
        NaN row or a truncated vectors.npy is rebuilt, never searched, never a traceback."""
        found = read_manifest(target)
        if found is None:
            if target.exists():
                log.warning("%s: no manifest (an older build, or damaged); rebuilding", target)
            return False
        if msgspec.structs.replace(found, dims=0, n_chunks=0, files={}) != self._manifest(tier):
            return False
        why = damaged_file(target, found)
        if why:
            log.warning("%s; rebuilding the tuned index", why)
            return False
        return True

    def _index(self, tier: Tier):
        if tier.name not in self._open:
            from index import DenseIndex

            self.build(tier)
            self._open[tier.name] = DenseIndex.open(self.index_dir(tier))
        return self._open[tier.name]


class TunedHybridRetriever(HybridRetriever):
    name = TUNED_SYSTEMS[1]
    label = "reciprocal rank fusion of bm25 and dense@tuned (held-out queries only)"


def rank_held_out(project: Project, tiers: list[Tier], depth: int, progress: Progress | None = None) -> list[SystemRun]:
    """dense@tuned and hybrid@tuned on every tier to ``depth``, the held-out queries only (current runs reused)."""
    dense = TunedDenseRetriever(project)
    hybrid = TunedHybridRetriever(project, BM25Retriever(project), dense)
    held = set(dense.record.split.held_out)
    store, out = RunStore(project), []
    for tier in tiers:
        dense.build(tier, progress)
        queries = [project.original_query(q) for q in tier.query_ids if q in held]
        for retriever in (dense, hybrid):
            key = retriever.key(tier)
            run = store.load_if_current(retriever.name, tier, key)
            if run is None or run.k < depth:
                retriever.prepare([q.query for q in queries])
                rankings = [RankedList(q.query_id, retriever.search(tier, q.query, depth)) for q in queries]
                run = SystemRun(retriever.name, tier.name, tier_hash(project, tier), key, depth, rankings,
                                {q.query_id: query_text_hash(q.query) for q in queries}, tier_docs_hash(project, tier))
                store.save(run)
            out.append(run)
    return out


_told: set[tuple[str, str]] = set()  # (project, why) said already by tuned_runs in this process


def tuned_runs(project: Project, tier: Tier, store: RunStore) -> list[SystemRun]:
    """Stored runs of the tuned systems on this tier that match the current tuned model."""
    runs = [r for r in store.runs(tier) if r.system in TUNED_SYSTEMS]
    if not runs:
        return []
    try:
        path, fingerprint, record = tuned_model(project)
    except TuneError as exc:  # damaged or replaced weights: the runs are left out, and the user is told (once)
        key = (str(project.root), str(exc))
        if key not in _told:
            _told.add(key)
            log.warning("%s; its stored runs (%s) are left out until `tune --retrain`", exc, ", ".join(TUNED_SYSTEMS))
        return []
    e = project.config.embedding
    dense_key = run_key(TUNED_SYSTEMS[0], SEARCH_VERSION, fingerprint, tier_docs_hash(project, tier),
                        e.chunk_tokens, e.chunk_overlap, record.split.held_out)
    out = [r for r in runs if r.system == TUNED_SYSTEMS[0] and r.key == dense_key]
    hybrid = next((r for r in runs if r.system == TUNED_SYSTEMS[1]), None)
    if out and hybrid is not None:
        c = project.config.retrievers
        try:
            if hybrid.key == run_key(TUNED_SYSTEMS[1], c.rrf_k, c.hybrid_depth, BM25Retriever(project).key(tier), dense_key):
                out.append(hybrid)
        except WorkbenchError:  # its bm25 index is not built (any more)
            pass
    return out
