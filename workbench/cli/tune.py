"""`tune`: fine-tune the project's embedder on hard negatives of a seeded training split, index the
tiers with it as `dense@tuned` / `hybrid@tuned`, and compare it with the base embedder on the
held-out queries only."""

from __future__ import annotations

from pathlib import Path

import click

from workbench.cli.common import PROJECT_ARG, SEED_OPT, TIERS_OPT, console, err_console
from workbench.display import fmt
from workbench.safe_text import markup_escaped


@click.command("tune")
@PROJECT_ARG
@TIERS_OPT
@click.option("--train-share", type=click.FloatRange(0.05, 0.95), default=0.7, show_default=True,
              help="Share of the labelled queries that train; the rest are held out.")
@click.option("--split-seed", type=int, default=13, show_default=True, help="Seed of the split and of the trainer.")
@click.option("--epochs", type=click.IntRange(1, 20), default=1, show_default=True)
@click.option("--batch-size", type=click.IntRange(2, 256), default=16, show_default=True,
              help="Triples per step (each also serves as in-batch negatives for the others).")
@click.option("--negatives", type=click.IntRange(1, 50), default=2, show_default=True, help="Hard negatives per gold document.")
@click.option("--max-seq-length", type=click.IntRange(0, 8192), default=128, show_default=True,
              help="Tokens per text while training (0: the model's own window); the index still embeds whole chunks.")
@click.option("--retrain", is_flag=True, help="Train again even when a tuned model with these settings exists.")
@SEED_OPT
def tune_command(root: Path, tier_spec: str, train_share: float, split_seed: int, epochs: int, batch_size: int,
                 negatives: int, max_seq_length: int, retrain: bool, seed: int) -> None:
    """Fine-tune the embedder on (query, gold, hard negative) of a seeded training split
    (MultipleNegativesRankingLoss), then rank the held-out queries with it as dense@tuned and hybrid@tuned.

    A finished training is kept (a rerun with the same settings goes straight to indexing) and the
    tuned chunk vectors are cached: an interrupted tune resumes."""
    from workbench.cli.project import ensure_indexes
    from workbench.progress import stage_progress
    from workbench.session import TuneOptions, fix_selection, tune

    project, tiers, _ = fix_selection(root, tier_spec)
    ensure_indexes(project, tiers)
    options = TuneOptions(train_share, split_seed, epochs, batch_size, negatives_per_gold=negatives,
                          max_seq_length=max_seq_length)
    with stage_progress(err_console, unit="steps") as progress:
        done = tune(project, tiers, options, retrain, seed, progress)
    record = done.record
    if done.trained:
        err_console.print(f"trained on {record.examples} triples in {record.seconds:.0f} s "
                          f"({record.left_out} left out: a held-out query's documents)", highlight=False)
    console.print(markup_escaped(record.split.caption()), highlight=False)
    for tuned, base, c in done.comparisons:
        t = c.test
        line = (f"{tuned} vs {base} on {t.n} held-out query × level pairs ({c.metric}): {fmt(c.mean_b)} vs {fmt(c.mean_a)}, "
                f"difference {fmt(-(t.mean_diff or 0.0))} [{fmt(-(t.ci.high or 0.0), 3)}, {fmt(-(t.ci.low or 0.0), 3)}], "
                f"p = {fmt(t.p_value, 4)}")
        console.print(markup_escaped(line), highlight=False)
        if c.movement is not None:
            from workbench.session import movement_line

            console.print("  " + markup_escaped(movement_line(c.movement.counts, tuned)), highlight=False)
