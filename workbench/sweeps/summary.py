"""A stored sweep's figures as plain data (what the CLI, the report and the TUI show).

Every figure carries its n. Scores: 1 = correct (see workbench/correctness.py: sweep_correct), 0 = not; absent-fact
questions score 1 when refused (faithfulness). `decided_by` says whether a calibrated judge or
the deterministic match decided.
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

from workbench.llm.figures import percentile
from workbench.project.files import Project
from workbench.records import ModelConfig
from workbench.sweeps.arms import GOLD_ONLY, Planner
from workbench.sweeps.distributions import N_BINS, depth_bin
from workbench.sweeps.records import Arm, ArmResult, SweepMeta
from workbench.correctness import sweep_correct
from workbench.stats import cluster_bootstrap, fisher_p, newcombe, residue_bootstrap, slope, wilson
from workbench.sweeps.store import SweepStore

RISE_MARGIN = 0.1  # a two-hop curve rising by more than this from shortest to longest is flagged
CONTROL_DROP = 0.25  # a needle control falling by more than this is flagged
MASK_FAITHFUL = 0.8  # faithfulness at least this …
MASK_REFUSALS = 0.5  # … with at least this share of answerable questions refused = masking


def _scored(project: Project, meta: SweepMeta) -> list[tuple[Arm, ArmResult, bool]]:
    store = SweepStore(project)
    results, judgements = store.results(meta.sweep_id), store.judgements(meta.sweep_id)
    # arms need no model config beyond the tokenizer for their ids; a default config suffices
    arms = Planner(project, meta.spec, ModelConfig()).arms()
    out = []
    for a in arms:
        r = results.get(a.arm_id)
        if r is None:
            continue
        j = judgements.get(a.arm_id)
        ok = sweep_correct(r.match, r.refusal, a.family == "absent", j.median if j else None, meta.judge_trusted)
        out.append((a, r, ok))
    return out


def _header(meta: SweepMeta, done: int) -> dict:
    s = meta.spec
    return {
        "sweep_id": meta.sweep_id, "kind": s.kind, "model": s.model, "judge": s.judge,
        "calibration": meta.calibration, "decided_by": "judge (calibrated)" if meta.judge_trusted else "deterministic match",
        "arms": meta.arms, "done": done, "wall_s": meta.wall_s, "seed": s.seed, "max_tokens": s.max_tokens,
        "lengths": list(s.lengths), "repeats": s.repeats,
    }


def _ci(t):
    return None if t is None else {"mean": t[0], "lo": t[1], "hi": t[2]}


def volume_summary(project: Project, meta: SweepMeta) -> dict:
    rows = _scored(project, meta)
    out = _header(meta, len(rows))
    out["families"] = {}
    cells: dict[tuple[str, int], dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    lat: dict[int, list[float]] = defaultdict(list)
    toks: dict[tuple[str, int], list[int]] = defaultdict(list)
    for a, r, ok in rows:
        cells[(a.family, a.length)][a.case_id].append(float(ok))
        toks[(a.family, a.length)].append(r.input_tokens)
        if a.family != GOLD_ONLY and not r.cached:
            # an answer from the response cache carries the latency of another call, under other load
            lat[a.length].append(r.latency_s)
    seed = meta.spec.seed
    for family in [*meta.spec.families, GOLD_ONLY]:
        lines = []
        for length in ([0] if family == GOLD_ONLY else meta.spec.lengths):
            by_case = cells.get((family, length))
            if not by_case:
                continue
            n = sum(len(v) for v in by_case.values())
            t = toks[(family, length)]
            lines.append({"length": length, "n": n, "cases": len(by_case), "input_tokens": round(sum(t) / len(t)),
                          **(_ci(cluster_bootstrap(by_case, seed)) or {})})
        if lines:
            out["families"][family] = lines
    out["latency"] = [{"length": L, "n": len(lat[L]), "p50_s": percentile(lat[L], 50), "p95_s": percentile(lat[L], 95)}
                      for L in meta.spec.lengths if lat.get(L)]
    out["residue"] = []
    for L in meta.spec.lengths:
        single, two = cells.get(("single-hop", L)), cells.get(("two-hop", L))
        if not single or not two:
            continue
        res = residue_bootstrap(single, two, seed)
        single_ci, two_ci = cluster_bootstrap(single, seed), cluster_bootstrap(two, seed)
        if res is None or single_ci is None or two_ci is None:
            continue
        sm, tm = single_ci[0], two_ci[0]
        out["residue"].append({"length": L, "single_hop": sm, "expected_two_hop": sm * sm, "two_hop": tm,
                               "residue": res[0], "lo": res[1], "hi": res[2],
                               "n_single": sum(map(len, single.values())), "n_two_hop": sum(map(len, two.values()))})
    out["flags"] = _volume_flags(out["families"])
    return out


def _volume_flags(families: dict) -> list[str]:
    flags = []
    two = families.get("two-hop", [])
    if len(two) >= 2:
        xs = [math.log2(max(1, x["length"])) for x in two]
        sl = slope(xs, [x["mean"] for x in two])
        if two[-1]["mean"] - two[0]["mean"] > RISE_MARGIN and sl is not None and sl > 0:
            flags.append(f"BROKEN EXPERIMENT: the two-hop curve rises with length ({two[0]['mean']:.2f} → {two[-1]['mean']:.2f}): "
                         "the padding is helping, so it is not neutral" + _within_noise(two[0], two[-1]))
    needle = families.get("needle", [])
    if len(needle) >= 2 and needle[0]["mean"] - needle[-1]["mean"] > CONTROL_DROP:
        flags.append(f"control not flat: the verbatim needle falls {needle[0]['mean']:.2f} → {needle[-1]['mean']:.2f}; "
                     "longer inputs already hurt plain lookup for this model" + _within_noise(needle[0], needle[-1]))
    return flags


def _within_noise(first: dict, last: dict) -> str:
    """A flag raised on a few answers says so: the intervals of its two ends overlap."""
    if first.get("lo") is None or last.get("lo") is None:
        return ""
    if max(first["lo"], last["lo"]) <= min(first["hi"], last["hi"]):
        return (f" (not yet evidence: {first['n']} and {last['n']} answers, their 95% intervals overlap; "
                "more cases or repeats decide)")
    return ""


def _counts(rows, pred) -> tuple[int, int]:
    sel = [ok for a, r, ok in rows if pred(a, r)]
    return sum(sel), len(sel)


def _prop(k: int, n: int) -> dict:
    w = wilson(k, n)
    return {"k": k, "n": n, "rate": k / n if n else None, "lo": w[0] if w else None, "hi": w[1] if w else None}


def _prompt_block(rows, variants: list[str]) -> dict:
    """Accuracy, faithfulness and refusals per prompt; the safety tax with Fisher's test; masking."""
    by_v: dict[str, dict[str, Any]] = {}
    for v in variants:
        rv = [x for x in rows if x[0].variant == v]
        answerable = [x for x in rv if x[0].family != "absent"]
        refused = sum(r.refusal for _, r, _ in answerable)
        by_v[v] = {
            "literal": _prop(*_counts(rv, lambda a, r: a.family == "literal")),
            "inference": _prop(*_counts(rv, lambda a, r: a.family == "inference")),
            "answerable": _prop(*_counts(rv, lambda a, r: a.family != "absent")),
            "faithfulness": _prop(*_counts(rv, lambda a, r: a.family == "absent")),
            "refusals_answerable": _prop(refused, len(answerable)),
        }
        f, rr = by_v[v]["faithfulness"]["rate"], by_v[v]["refusals_answerable"]["rate"]
        by_v[v]["masking"] = f is not None and rr is not None and f >= MASK_FAITHFUL and rr >= MASK_REFUSALS
    tax = []
    if "standard" in by_v and "strict" in by_v:
        for task in ("literal", "inference", "answerable", "faithfulness"):
            a, b = by_v["standard"][task], by_v["strict"][task]
            if not a["n"] or not b["n"]:
                continue
            d = newcombe(a["k"], a["n"], b["k"], b["n"])
            tax.append({"task": task, "standard": a, "strict": b, "tax": d[0], "lo": d[1], "hi": d[2],  # type: ignore[index]
                        "fisher_p": fisher_p(a["k"], a["n"], b["k"], b["n"])})
    flags = [f"faithfulness masking under the {v} prompt: {by_v[v]['faithfulness']['rate']:.2f} faithful, but "
             f"{by_v[v]['refusals_answerable']['rate']:.2f} of answerable questions refused" for v in variants if by_v[v]["masking"]]
    return {"by_variant": by_v, "safety_tax": tax, "flags": flags}


def distribution_summary(project: Project, meta: SweepMeta) -> dict:
    rows = _scored(project, meta)
    out = _header(meta, len(rows))
    variants = list(meta.spec.variants)
    out["rows"] = []
    for dist in meta.spec.distributions:
        for v in variants:
            rv = [x for x in rows if x[0].distribution == dist and x[0].variant == v]
            if not rv:
                continue
            answerable = [x for x in rv if x[0].family != "absent"]
            out["rows"].append({
                "distribution": dist, "variant": v,
                "literal": _prop(*_counts(rv, lambda a, r: a.family == "literal")),
                "inference": _prop(*_counts(rv, lambda a, r: a.family == "inference")),
                "faithfulness": _prop(*_counts(rv, lambda a, r: a.family == "absent")),
                "refusals_answerable": _prop(sum(r.refusal for _, r, _ in answerable), len(answerable)),
            })
    out.update(_prompt_block(rows, variants))
    # literal accuracy by the 5% bin the fact actually landed in, over all distributions
    bins: dict[str, list[list[int]]] = {v: [[0, 0] for _ in range(N_BINS)] for v in variants}
    planner = Planner(project, meta.spec, ModelConfig())
    fact_index = {f.fact_id: i for i, f in enumerate(planner.planted)}
    for a, r, ok in rows:
        if a.family == "literal" and fact_index.get(a.case_id, len(r.evidence_depths)) < len(r.evidence_depths):
            b = depth_bin(r.evidence_depths[fact_index[a.case_id]])
            bins[a.variant][b][0] += int(ok)
            bins[a.variant][b][1] += 1
    out["by_depth_bin"] = {v: [{"bin": i, "k": k, "n": n} for i, (k, n) in enumerate(b)] for v, b in bins.items()}
    return out


def depth_summary(project: Project, meta: SweepMeta) -> dict:
    rows = _scored(project, meta)
    out = _header(meta, len(rows))
    variants = list(meta.spec.variants)
    out["depths"] = list(meta.spec.depths)
    grid: dict[str, list[list[dict]]] = {}
    for v in variants:
        grid[v] = []
        for L in meta.spec.lengths:
            line = []
            for d in meta.spec.depths:
                k, n = _counts(rows, lambda a, r, L=L, d=d, v=v: a.variant == v and a.length == L and a.depth == d)
                line.append({"k": k, "n": n})
            grid[v].append(line)
    out["grid"] = grid
    out.update(_prompt_block(rows, variants))
    return out


SUMMARIES = {"volume": volume_summary, "distribution": distribution_summary, "depth": depth_summary}


def summarize(project: Project, meta: SweepMeta) -> dict:
    return SUMMARIES[meta.spec.kind](project, meta)


KINDS = ("volume", "depth", "distribution")


def sweeps_dict(project: Project) -> dict:
    """The latest sweep of each kind, summarised ({} when the project has none): what the report
    renders (workbench/report/sweeps.py) and the TUI charts (sweeps/charts.py)."""
    store = SweepStore(project)
    out = {}
    for kind in KINDS:
        meta = store.latest(kind)
        if meta is not None:
            out[kind] = summarize(project, meta)
    return out
