"""Results kept by what they depend on, as the TUI shows them (issue 29, Pilot): an oracle answer
stored on one tier decides its query on every tier where its gold is lost; a query added from the
`a` form leaves every other query's verdicts as they were; a K=3 project stays at K=3 after a label."""

from __future__ import annotations

import re
import shutil

import msgspec
from textual.widgets import DataTable, Input

from screens.app import make_app
from screens.inspector import QueryScreen
from support.tui import open_inspector, settle, text_of
from workbench import session as core
from workbench.access.ladder import ensure_tiers
from workbench.llm.client import ChatClient
from workbench.llm.tasks import TaskOptions, run_tier
from workbench.project.files import load_config, write_config
from workbench.project.load import load_project
from workbench.records import ModelConfig

QUERY = "hr-07"  # two-hop: hybrid loses its gold on every tier of its domain's ladder
VERDICT_COLUMN = 3  # screens/panes/queries.py: query, dom, S/M, verdict, …


async def _store_one_oracle_answer(root, fault_server, tier_name: str) -> None:
    """The oracle run of one query on one tier, through the real task runner (a scripted endpoint
    that answers with the gold answer)."""
    p = load_project(root)
    answer = p.query(QUERY).answer
    fault_server.responder = lambda m: "Score: 5" if "Gold answer:" in m[-1]["content"] else answer
    tier = next(t for t in ensure_tiers(p).tiers if t.name == tier_name)
    cfg = ModelConfig(model="fault", base_url=fault_server.base_url, timeout_s=5, max_retries=1)
    client = ChatClient("local", cfg, fault_server.base_url, cache=None, backoff_base_s=0.01)
    async with client:
        run = await run_tier(p, tier, "local", client, TaskOptions("oracle", judge_samples=1, query_ids=(QUERY,)),
                             judge_client=client)
    assert [r.query_id for r in run.qa] == [QUERY]


def _verdicts(session, skip: str = "") -> dict:
    return {(v.query_id, v.tier, v.system): v for v in session.diagnosis.qv.verdicts if v.query_id != skip}


async def test_one_oracle_answer_decides_every_lost_tier_and_an_added_query_changes_no_other(
        sample_project, tmp_path, fault_server, monkeypatch):
    monkeypatch.setenv("WORKBENCH_USER", "pilot")
    root = tmp_path / "sample"
    shutil.copytree(sample_project, root)
    p = load_project(root)
    holding = [t.name for t in ensure_tiers(p).tiers if QUERY in p.tier_query_ids(t)]
    await _store_one_oracle_answer(root, fault_server, holding[0])

    app = make_app(root)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot, rounds=6)
        s = app.session
        system = core.verdict_system(s)
        assert system is not None and system.endswith("+local")  # the oracle's model joins the verdict system
        lost = [t for t in holding if (v := s.diagnosis.at(QUERY, t)) is not None and v.gold_ranks
                and any(r is None or r > v.k for r in v.gold_ranks.values())]
        assert len(lost) == len(holding) > 1  # the gold is lost on every tier holding it
        for tier in lost:  # was: ACCESS on the oracle's tier, ACCESS? on every other
            v = s.diagnosis.at(QUERY, tier)
            assert v.verdict == "ACCESS" and v.oracle is not None and v.oracle.correct, (tier, v.verdict)
        table = app.screen.query_one("#query-table", DataTable)
        row = [str(k.value) for k in table.rows].index(QUERY)
        assert str(table.get_cell_at((row, VERDICT_COLUMN))).strip() == "ACCESS"
        await open_inspector(pilot, QUERY, lost[-1])
        head = text_of(app.screen.query_one("#q-head"))
        assert "verdict ACCESS " in head and "ACCESS?" not in head
        await pilot.press("escape")
        await settle(pilot)

        before = _verdicts(s)
        await pilot.press("a")
        await pilot.pause()
        for field, value in (("#new-query", "How many weeks of leave does the handbook grant?"), ("#new-answer", ""),
                             ("#new-gold", ""), ("#new-domain", "")):
            app.screen.query_one(field, Input).value = value
            app.screen.query_one(field, Input).focus()
            await pilot.press("enter")
        await settle(pilot, rounds=8)
        assert isinstance(app.screen, QueryScreen)
        added = app.screen.query_id
        assert added not in {q for q, _, _ in before} and s.project.has_query(added)
        assert _verdicts(s, added) == before  # every other query's verdicts, on every tier, as they were


async def test_a_k3_project_stays_at_k3_after_a_label_in_the_tui(evaluated_copy):
    k = 3
    config = load_config(evaluated_copy)
    assert config.retrievers.k != k
    write_config(evaluated_copy, msgspec.structs.replace(config, retrievers=msgspec.structs.replace(config.retrievers, k=k)))
    app = make_app(evaluated_copy)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        s = app.session
        q = next(q for q in s.project.queries if q.is_labelled)
        tier = [t.name for t in s.tiers if q.query_id in t.query_ids][-1]  # the largest: documents to label
        await open_inspector(pilot, q.query_id, tier)
        screen = app.screen
        assert isinstance(screen, QueryScreen)
        table = screen.query("#ranking-tables DataTable").first(DataTable)
        table.focus()
        await pilot.pause()
        keys = [str(key.value) for key in table.rows]
        free = next(i for i, key in enumerate(keys) if int(key.rsplit(":", 1)[1]) not in q.gold_doc_ids)  # a hard negative will do
        table.move_cursor(row=0)
        await pilot.press(*["down"] * free, "G")
        await settle(pilot, rounds=6)
        doc = int(keys[free].rsplit(":", 1)[1])
        assert s.project.queries_version != "original" and doc in s.project.query(q.query_id).gold_doc_ids  # the label landed
        assert s.results and {r.summary.k for r in s.results} == {k}  # recomputed at K=3
        assert f"gold in top {k} at {tier}" in text_of(screen.query_one("#q-head"))
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("3")
        await pilot.pause()
        diagnosis = text_of(app.screen.query_one("#diagnosis-body"))
        assert f"Access (K={k}) and use per tier" in diagnosis
        assert not re.search(rf"K={config.retrievers.k}\b|[SF]R@{config.retrievers.k}\b", diagnosis)
