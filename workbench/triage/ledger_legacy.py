"""Import records of the releases before the ledger, read into it once.

Those releases kept each import as a JSON record under .workbench/imports/ (runs/<name>.json,
answers/<name>.json, traces/<name>/traces.json). The first reader of a project that still has them
adds their rows to the ledger (doors as they came: a run an import-traces wrote is the traces'),
noting each file by its content hash so it is read once; the files are left in place. A record that
does not read (truncated by a kill, edited) is said in one line and left out, never a run that
silently vanishes.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from workbench.fsutil import log, sha256_bytes
from workbench.project.files import Project

_RUNS, _ANSWERS, _TRACES = Path("imports") / "runs", Path("imports") / "answers", Path("imports") / "traces"
_HINTS = {_RUNS: "`workbench import-run`", _ANSWERS: "`workbench import-answers`", _TRACES: "`workbench import-traces`"}


def legacy_files(state: Path) -> list[tuple[Path, Path]]:
    """(kind folder, file) of every legacy record, runs first (a trace's answers pair with its ranking)."""
    out = []
    for kind, pattern in ((_RUNS, "*.json"), (_ANSWERS, "*.json"), (_TRACES, "*/traces.json")):
        folder = state / kind
        if folder.is_dir():
            out += [(kind, p) for p in sorted(folder.glob(pattern))]
    return out


def migrate(project: Project) -> None:
    """Every legacy record not read yet, added to the ledger (best effort: a read-only project reads them next time)."""
    from workbench.triage import ledger

    files = legacy_files(project.state_dir)
    if not files:
        return
    done = ledger.legacy_done(project)
    for kind, path in files:
        try:
            raw = path.read_bytes()
        except OSError:
            continue
        mark = f"legacy:{path.relative_to(project.state_dir).as_posix()}:{sha256_bytes(raw)[:16]}"
        if mark in done:
            continue
        try:
            name, rows, info = _rows(project, kind, raw)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            log.warning("%s: the import record of an older release does not read (%s); left out — import it again with %s",
                        path, str(exc)[:200], _HINTS[kind])
            continue
        try:
            ledger.add(project, name, rows, info, marks=[mark])
        except (ledger.LedgerError, OSError) as exc:
            log.warning("%s: not read into the ledger yet (%s)", path, exc)
            return


def _rows(project: Project, kind: Path, raw: bytes) -> tuple[str, list, list]:
    from workbench.triage import ledger
    from workbench.triage.answers import ImportedAnswers
    from workbench.triage.runs import RERANK_SUFFIX, ImportedRun
    from workbench.triage.traces.store import ImportedTraces

    traces_dir = str(project.state_dir / _TRACES)
    if kind == _RUNS:
        run = msgspec.json.decode(raw, type=ImportedRun)
        rerank = run.name.endswith(RERANK_SUFFIX)
        name = run.name[: -len(RERANK_SUFFIX)] if rerank else run.name
        rows = []
        for part, rankings in run.rankings.items():
            source = run.sources.get(part, "")
            door = "traces" if source.startswith(traces_dir) else "import-run"
            for r in rankings:
                entry = ledger.Entry(r.query_id, reranked=r.hits) if rerank else ledger.Entry(r.query_id, ranking=r.hits)
                rows.append(ledger.NewRow(door, source, entry, part if not rerank else ledger.ALL_TIERS))
        info = [] if rerank else [("import-run", run.sources.get(ledger.ALL_TIERS, ""), ledger.ALL_TIERS,
                                   ledger.ImportInfo(run.format, run.id_space, run.unknown_doc_ids, run.unknown_query_ids))]
        return name, rows, info
    if kind == _ANSWERS:
        answers = msgspec.json.decode(raw, type=ImportedAnswers)
        door = "traces" if answers.source.startswith(traces_dir) else "import-answers"
        return answers.name, [ledger.NewRow(door, answers.source, ledger.Entry(a.query_id, answer=a)) for a in answers.answers], \
            [("import-answers", answers.source, ledger.ALL_TIERS,
              ledger.ImportInfo(unknown_doc_ids=answers.unknown_doc_ids, unknown_query_ids=answers.unknown_query_ids))]
    traces = msgspec.json.decode(raw, type=ImportedTraces)
    return traces.name, [ledger.NewRow("traces", traces.source, ledger.Entry(q.query_id, trace=q)) for q in traces.queries], []
