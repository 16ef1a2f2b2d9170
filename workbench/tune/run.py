"""The whole `workbench tune` job, for the CLI and the TUI's fix key alike: train (unless a model
with these options and this split is already saved), index the tiers with the tuned embedder,
rank the held-out queries as dense@tuned / hybrid@tuned, and make sure the base systems have runs
on the same tiers to be compared with.

Resuming: a finished training is kept (a rerun goes straight to indexing), and the tuned
embedder's chunk vectors are cached like the base embedder's, so a cancel while indexing loses
only the batch in flight; a cancel while training discards that training (it restarts).
"""

from __future__ import annotations

from workbench.progress import Progress
from workbench.project.files import Project
from workbench.records import Tier
from workbench.tune.split import split_queries
from workbench.fsutil import log
from workbench.tune.train import (MODEL_DIR, TuneOptions, TuneRecord, load_record, model_problem, train, tuned_root,
                                  weights_changed)


def needs_training(project: Project, options: TuneOptions) -> bool:
    record = load_record(project)
    split = split_queries(project.queries, options.train_share, options.seed)
    model = tuned_root(project) / MODEL_DIR
    if record is None or record.options != options or record.split != split or not (model / "config.json").is_file():
        return True
    damaged = model_problem(model) or weights_changed(project, record)
    if damaged:  # derived state: trained again, never a traceback in the loader nor foreign weights used
        log.warning("%s; training the tuned embedder again", damaged)
    return damaged is not None


def tune_project(project: Project, tiers: list[Tier], options: TuneOptions = TuneOptions(), retrain: bool = False,
                 progress: Progress | None = None) -> tuple[TuneRecord, bool]:
    """(the record of the model used, whether it was trained now)."""
    from workbench.access.evaluate import DEFAULT_DEPTH, retrieve_tier
    from workbench.access.retrievers import make_retrievers
    from workbench.access.runs import RunStore
    from workbench.names import untuned
    from workbench.tune.retrieval import TUNED_SYSTEMS, rank_held_out

    trained = retrain or needs_training(project, options)
    record = None if trained else load_record(project)
    if record is None:
        trained = True
        record = train(project, split_queries(project.queries, options.train_share, options.seed), options, progress)
    rank_held_out(project, tiers, DEFAULT_DEPTH, progress)
    store = RunStore(project)
    for retriever in make_retrievers(project, [b for s in TUNED_SYSTEMS if (b := untuned(s))]).values():
        for tier in tiers:  # the base embedder's runs, to compare with (current ones are reused)
            retrieve_tier(retriever, tier, project, DEFAULT_DEPTH, store)
    return record, trained
