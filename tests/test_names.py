"""Names with one home: system names parse and format losslessly, and the screens, the CLI and
the tasks agree with the task and retriever registries (a screen that hard-codes a name fails here)."""

from __future__ import annotations

import msgspec
import pytest

from workbench.names import TASKS, SystemName, TaskName, system_label
from workbench.access.retrievers import RETRIEVERS, make_retrievers, preferred, retriever_names, system_order

STORED_NAMES = [
    "bm25", "dense", "hybrid", "model:local:localize", "model:local:qa", "model:local:qa-strict",
    "model:local:oracle", "model:gpt:rag:bm25@3", "model:gpt:rag-strict:hybrid@5", "model:llama3:8b:qa",
    "run:prod-2024-06", "model:local:gold-localize",
]


@pytest.mark.parametrize("text", STORED_NAMES)
def test_system_names_round_trip(text):
    assert str(SystemName.parse(text)) == text


def test_system_name_fields():
    rag = SystemName.parse("model:gpt:rag-strict:hybrid@5")
    assert (rag.kind, rag.name, rag.task, rag.variant, rag.retriever, rag.rag_k) == ("model", "gpt", "rag", "strict", "hybrid", 5)
    assert SystemName.parse("model:llama3:8b:qa").name == "llama3:8b"  # a model name may hold a colon
    assert SystemName.parse("run:prod").kind == "run" and SystemName.parse("bm25").kind == "retriever"
    assert SystemName.parse("model:local:localize").localizes and not SystemName.parse("model:local:qa").localizes
    assert system_label("model:local:localize") == "local (loc)" and system_label("model:local:qa") == "local:qa"
    assert str(SystemName.for_model("m", "localize", variant="strict")) == "model:m:localize"  # one prompt


def test_task_literal_is_built_from_the_registry():
    assert msgspec.convert("oracle", TaskName) == "oracle"
    with pytest.raises(msgspec.ValidationError):
        msgspec.convert("summarise", TaskName)


def test_inspector_keys_and_palette_follow_the_task_registry():
    from screens.inspector import QueryScreen

    runs = {b.action: b for b in QueryScreen.BINDINGS if b.action.startswith("run(")}
    assert set(runs) == {f"run('{t}')" for t in TASKS}
    for spec in TASKS.values():
        b = runs[f"run('{spec.name}')"]
        assert (b.key, b.id, b.description) == (spec.key, f"inspector.{spec.name}", spec.short)
    other_keys = {k for b in QueryScreen.BINDINGS if not b.action.startswith("run(") for k in b.key.split(",")}
    assert not other_keys & {t.key for t in TASKS.values()}, "a task key is taken by another binding"
    assert len({t.key for t in TASKS.values()}) == len(TASKS)


def test_diagnosis_columns_name_registered_tasks():
    import inspect as pyinspect

    import screens.panes.diagnosis

    source = pyinspect.getsource(screens.panes.diagnosis)
    for task in ("qa", "oracle"):
        assert f'"{task}"' in source and task in TASKS


def test_retriever_registry_drives_eval_tui_and_order(built_project):
    from workbench.cli.access import eval_
    from workbench.project.load import load_project

    assert retriever_names() == list(RETRIEVERS) and {"bm25", "dense", "hybrid"} <= set(RETRIEVERS)
    assert preferred()[0] == max(RETRIEVERS, key=lambda n: RETRIEVERS[n].preference)
    assert preferred(["bm25", "dense"]) == ["dense", "bm25"]
    default = next(p for p in eval_.params if p.name == "retrievers").default
    assert default.split(",") == retriever_names()
    made = make_retrievers(load_project(built_project))
    assert list(made) == retriever_names()
    assert made["hybrid"].bm25 is made["bm25"] and made["hybrid"].dense is made["dense"]  # shared instances
    assert sorted(["model:x:localize", "hybrid", "bm25"], key=system_order) == ["bm25", "hybrid", "model:x:localize"]


def test_session_best_retriever_follows_preference():
    from pathlib import Path

    from workbench.session import Session

    s = Session(root=Path("."), project=None)  # type: ignore[arg-type]
    assert s.best_retriever == preferred()[0]
    s.per_query = {"bm25": {}, "dense": {}}
    assert s.best_retriever == "dense"


def test_task_labels_never_read_as_a_tier_name():
    """A task's label is shown on every tier: "QA (full tier)" on a base tier read as the tier named
    `full`. No label may contain a word that names a tier kind."""
    from typing import get_args

    from workbench.records import TierKind

    kinds = set(get_args(TierKind)) | {"mix"}
    for spec in TASKS.values():
        words = {w.strip("()").lower() for w in f"{spec.label} {spec.short}".split()}
        assert not words & kinds, (spec.name, spec.label)


def test_embedding_backends_have_one_list():
    """workbench.toml's `embedding.backend` choices (a Literal msgspec checks) are index's backends."""
    from typing import get_args

    from index.embedders import BACKENDS
    from workbench.records import EmbeddingBackend

    assert get_args(EmbeddingBackend) == BACKENDS
