"""A collide run: mine, verify every candidate through the model layer, apply the rules, and
write the result as a new query-set version.

Resumable: every finished verification is appended to
``.workbench/collide/<key>/verifications.jsonl`` as it arrives (flushed; a torn last line from
an interruption is ignored), so a rerun with the same settings verifies only what is missing.
The key covers everything that changes the verdicts: the corpus, the loaded version's labels,
the mining options, the verifier model and the prompt version. A call that failed is not saved
and is retried on the next run; while any candidate is missing no version is written. The model
layer's response cache makes even a lost state file cheap to redo.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from pathlib import Path
from statistics import fmean
import msgspec

from workbench.collide.mining import MinedQuery, MiningOptions, mine
from workbench.collide.rules import ConflictPolicy, QueryOutcome, decide_query
from workbench.collide.verify import PROMPT_VERSION, Verification, verify_candidate
from workbench.fsutil import append_record, atomic_write_bytes, sha256_bytes
from workbench.llm.client import ChatClient
from workbench.progress import Progress
from workbench.project.files import Project
from workbench.project.versions import LabelRecord, VersionInfo, list_versions, now_utc, version_info, write_version
from workbench.access.runs import run_key

STATE_DIR = "collide"



class CollideSettings(msgspec.Struct, frozen=True):
    mining: MiningOptions
    model: str  # the configured name, e.g. "local"
    model_identity: list  # what changes its outputs (model, endpoint, temperature, …)
    prompt_version: str = PROMPT_VERSION
    parse_retries: int = 2
    conflict_policy: ConflictPolicy = "any"
    keep_unsuitable: bool = False


class CollideSummary(msgspec.Struct, frozen=True):
    version: str | None  # None: not written (candidates still unverified because calls failed)
    parent: str
    queries_in: int
    retained: int
    excluded_conflict: int
    unsuitable: int
    false_negatives_promoted: int
    queries_with_promoted: int
    hard_negatives_mean: float | None  # added by this run, per query kept in the version
    hard_negatives_min: int | None
    hard_negatives_max: int | None
    candidates: int
    verdicts: dict[str, int]  # HARD_NEGATIVE / CONFLICT / FALSE_NEGATIVE / UNVERIFIED (+ ambiguous→FN)
    failed_calls: int  # candidates whose call failed this time (retried on the next run)
    resumed: int  # verifications read back from an earlier, interrupted run
    model_calls: int
    cache_hits: int
    wall_s: float


class _Done(msgspec.Struct, frozen=True):
    version: str


def settings_key(project: Project, settings: CollideSettings) -> str:
    labels = [[q.query_id, q.gold_doc_ids, q.hard_negative_ids] for q in project.queries]
    return run_key("collide", project.corpus_hash(), project.queries_version, labels, settings)


class VerificationLog:
    """Append-only record of finished verifications (one JSON line each)."""

    def __init__(self, path: Path, root: Path):
        self.path = path
        self.root = root  # the project: the log is never written outside it
        path.parent.mkdir(parents=True, exist_ok=True)
        self._enc = msgspec.json.Encoder()

    def read(self) -> dict[tuple[str, int], Verification]:
        out: dict[tuple[str, int], Verification] = {}
        if not self.path.exists():
            return out
        dec = msgspec.json.Decoder(Verification)
        for line in self.path.read_bytes().split(b"\n"):
            if not line.strip():
                continue
            try:
                v = dec.decode(line)
            except msgspec.DecodeError:
                continue  # a line torn by an interruption: that candidate is verified again
            if not v.error:
                out[(v.query_id, v.doc_id)] = v
        return out

    def append(self, v: Verification) -> None:
        append_record(self.path, self.root, self._enc.encode(v))


def state_dir(project: Project, key: str) -> Path:
    return project.state_dir / STATE_DIR / key


async def verify_all(
    project: Project,
    mined: list[MinedQuery],
    client: ChatClient,
    settings: CollideSettings,
    log: VerificationLog,
    progress: Progress | None = None,
) -> tuple[dict[tuple[str, int], Verification], int, int]:
    """Every candidate's verdict: (verdicts, read back from the log, calls that failed now)."""
    done = log.read()
    resumed = len(done)
    todo = [(m.query_id, c.doc_id) for m in mined for c in m.candidates if (m.query_id, c.doc_id) not in done]
    total = sum(len(m.candidates) for m in mined)
    failed = 0

    def report() -> None:
        if progress:
            progress("verify", len(done) + failed, total)

    report()

    async def one(qid: str, doc_id: int) -> None:
        nonlocal failed
        q = project.query(qid)
        v = await verify_candidate(client, q, project.docs(q.gold_doc_ids), project.documents[doc_id],
                                   seed=settings.mining.seed, parse_retries=settings.parse_retries)
        if v.error:
            failed += 1
        else:
            log.append(v)
            done[(qid, doc_id)] = v
        report()

    # In query order: the client's semaphore admits them roughly in turn, so consecutive calls
    # share a query's prompt prefix (the inference server's cache).
    await asyncio.gather(*(one(qid, d) for qid, d in todo))
    return done, resumed, failed


def outcomes(
    project: Project, mined: list[MinedQuery], verdicts: dict[tuple[str, int], Verification], settings: CollideSettings,
    created: str,
) -> list[QueryOutcome]:
    by = f"model:{settings.model}"
    return [
        decide_query(project.query(m.query_id), m, {c.doc_id: verdicts[(m.query_id, c.doc_id)] for c in m.candidates},
               by=by, created=created, floor=settings.mining.floor, policy=settings.conflict_policy,
               keep_unsuitable=settings.keep_unsuitable)
        for m in mined
    ]


def summarize(
    parent: str, version: str | None, mined: list[MinedQuery], verdicts: dict, results: list[QueryOutcome] | None,
    failed: int, resumed: int, client: ChatClient | None, wall_s: float,
) -> CollideSummary:
    counts: Counter = Counter(v.verdict for v in verdicts.values())
    counts["ambiguous (HN/FN → FN)"] = sum(v.ambiguous for v in verdicts.values())
    results = results or []
    status = Counter(o.status for o in results)
    kept = [o for o in results if o.query is not None]  # retained, and unsuitable ones kept by request
    hn = [len(o.hard_negatives) for o in kept]
    return CollideSummary(
        version=version, parent=parent, queries_in=len(mined), retained=len(kept),
        excluded_conflict=status["excluded_conflict"], unsuitable=status["unsuitable"],
        false_negatives_promoted=sum(len(o.promoted) for o in results),
        queries_with_promoted=sum(bool(o.promoted) for o in results),
        hard_negatives_mean=fmean(hn) if hn else None, hard_negatives_min=min(hn) if hn else None,
        hard_negatives_max=max(hn) if hn else None, candidates=sum(len(m.candidates) for m in mined),
        verdicts=dict(sorted(counts.items())), failed_calls=failed, resumed=resumed,
        model_calls=client.stats.calls if client else 0, cache_hits=client.stats.cache_hits if client else 0,
        wall_s=round(wall_s, 1),
    )


def load_mined(path: Path) -> list[MinedQuery] | None:
    try:
        return msgspec.json.decode(path.read_bytes(), type=list[MinedQuery])
    except (OSError, msgspec.DecodeError):
        return None  # derived state that does not load is recomputed


async def run_collide(
    project: Project,
    tier,
    client: ChatClient,
    settings: CollideSettings,
    *,
    name: str | None = None,
    description: str = "",
    progress: Progress | None = None,
) -> CollideSummary:
    """Mine, verify, decide and write the version (once: a rerun of a finished run reports the
    version it wrote). Raises nothing for failed calls: the summary has ``version`` None (so has
    a run from the unjudged documents that found none: ``candidates`` 0).
    ``progress`` gets stages "mine" and "verify"; raising Cancelled from it stops the run
    (finished verdicts are kept)."""
    started = time.perf_counter()
    key = settings_key(project, settings)
    sdir = state_dir(project, key)
    mined_path, done_path = sdir / "mined.json", sdir / "done.json"
    mined = load_mined(mined_path)
    if mined is None:
        mined = mine(project, tier, settings.mining, progress=(lambda n, t: progress("mine", n, t)) if progress else None)
        atomic_write_bytes(mined_path, msgspec.json.encode(mined))
    if not mined and settings.mining.start == "unjudged":  # nothing to verify: no version equal to its parent
        return summarize(project.queries_version, None, mined, {}, None, 0, 0, client, time.perf_counter() - started)
    log = VerificationLog(sdir / "verifications.jsonl", project.root)
    verdicts, resumed, failed = await verify_all(project, mined, client, settings, log, progress)
    wall = lambda: time.perf_counter() - started  # noqa: E731
    if failed:
        return summarize(project.queries_version, None, mined, verdicts, None, failed, resumed, client, wall())

    written = _already_written(project, done_path, key)
    created = version_info(project.root, written).created if written else now_utc()
    results = outcomes(project, mined, verdicts, settings, created)
    if written is None:
        info = write_collide_version(project, results, settings, name=name, description=description, key=key)
        atomic_write_bytes(done_path, msgspec.json.encode(_Done(info.name)))
        written = info.name
    return summarize(project.queries_version, written, mined, verdicts, results, 0, resumed, client, wall())


def _already_written(project: Project, done_path: Path, key: str) -> str | None:
    """The version this run wrote, or None. done.json says it; when done.json is missing or
    damaged (a kill, an edit) the versions themselves are asked (each records its run_key), so a
    damaged record never makes a second version of one run."""
    try:
        name = msgspec.json.decode(done_path.read_bytes(), type=_Done).version
        version_info(project.root, name)
        return name
    except Exception:  # noqa: BLE001 - no record, a damaged one, or its version was deleted
        pass
    for info in list_versions(project.root):
        if info.made_by == "collide" and info.settings.get("run_key") == key:
            atomic_write_bytes(done_path, msgspec.json.encode(_Done(info.name)))  # the record, repaired
            return info.name
    return None


def write_collide_version(
    project: Project, results: list[QueryOutcome], settings: CollideSettings, *, name: str | None, description: str,
    key: str,
) -> VersionInfo:
    decided = {o.query_id: o for o in results}
    queries = []
    for q in project.queries:  # mined: every query has an outcome; from the unjudged, only those with a candidate
        o = decided.get(q.query_id)
        if o is None:
            queries.append(q)  # carried over as it is
        elif o.query is not None:
            queries.append(o.query)
    labels = [rec for o in results for rec in o.labels]
    excluded = {o.query_id: o.reason for o in results if o.query is None}
    return write_version(
        project, queries, labels, made_by="collide", name=name, stem="collide",
        description=description or (
            f"collide: the answer-bearing unjudged documents of {settings.mining.tier} verified by {settings.model}"
            if settings.mining.start == "unjudged" else
            f"collide: {settings.mining.candidates} candidates/query verified by {settings.model}"),
        settings={**msgspec.to_builtins(settings), "run_key": key,
                  "labels_sha256": sha256_bytes(msgspec.json.encode(labels))},
        excluded=excluded,
    )


def saved_verdicts(project: Project) -> list[LabelRecord]:
    """The verdicts saved so far by the project's most recently active collide run, as label
    records (action "none": no rule applied yet) — to look at a run that has not finished."""
    runs = sorted((project.state_dir / STATE_DIR).glob("*/verifications.jsonl"), key=lambda f: f.stat().st_mtime)
    if not runs:
        return []
    return [LabelRecord(v.query_id, "none", v.doc_id, v.verdict, v.reason, method="collide")
            for v in VerificationLog(runs[-1], project.root).read().values()]
