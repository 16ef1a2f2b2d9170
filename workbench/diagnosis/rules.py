"""The per-query verdict: one small rule table, first matching row wins (README "Diagnosis").

Facts for one (query, tier, system), a system being an access source (a retriever's ranking, or
the model's own localization) and a reader (retrieve-then-read, or QA over the whole tier):

  reached   every gold document reached the reader: for a stored answer, every gold DocID was in
            its context; with no answer yet, every gold DocID is in the access source's top K.
            A long-context reader always has the gold in its context, so for it "reached" is its
            own localization: every gold DocID in the top K it lists (when that run exists)
  answer    the system's end-to-end answer is correct (answers.py decides, judge or deterministic)
  oracle    the same model's answer when handed only the gold documents is correct

  row  verdict                 when
  P1   PASS                    answer correct
  N1   NOT-YET                 no ranking and no answer: nothing says whether the gold was reached
  A1   ACCESS                  gold not reached; oracle correct
  B1   BOTH                    gold not reached; oracle wrong
  N2   NOT-YET                 gold not reached; no oracle answer yet
  U1   USE                     gold reached; oracle wrong (the model cannot use even the gold alone)
  D2   USE-UNDER-DISTRACTORS   gold reached; oracle correct; answer wrong; near-miss arm wrong (interference)
  D3   USE-UNDER-DISTRACTORS   gold reached; oracle correct; answer wrong; near-miss arm right (volume)
  D1   USE-UNDER-DISTRACTORS   gold reached; oracle correct; answer wrong (no near-miss answer to split it)
  U2   USE                     gold reached; answer wrong; no oracle answer to separate U1 from D1
  N3   NOT-YET                 gold reached; oracle correct; no end-to-end answer yet
  N4   NOT-YET                 gold reached; no answer of any kind yet

A PASS without the gold in the context is marked as parametric (fragile, docs/METHOD.md §1).
D2 and D3 refine D1 with one more fact, the near-miss arm (the same model handed the gold and the
query's hard negatives only): `split_distractors`, applied to a decided verdict.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from workbench.diagnosis.answers import AnswerCheck

VerdictName = Literal["PASS", "ACCESS", "USE", "USE-UNDER-DISTRACTORS", "BOTH", "NOT-YET"]
VERDICTS: tuple[str, ...] = ("PASS", "ACCESS", "USE", "USE-UNDER-DISTRACTORS", "BOTH", "NOT-YET")
# The filter words of the TUI's query list (v:access, v:use, …) — `use` also finds USE-UNDER-DISTRACTORS.
VERDICT_SHORT = {"PASS": "pass", "ACCESS": "access", "USE": "use", "USE-UNDER-DISTRACTORS": "distractors", "BOTH": "both", "NOT-YET": "not-yet"}

RULES: dict[str, tuple[str, str]] = {
    "P1": ("PASS", "the end-to-end answer is correct"),
    "N1": ("NOT-YET", "no ranking and no answer: nothing says whether the gold was reached"),
    "A1": ("ACCESS", "gold not reached; the model answers correctly when handed the gold"),
    "B1": ("BOTH", "gold not reached; the model is wrong even when handed the gold"),
    "N2": ("NOT-YET", "gold not reached; no oracle answer to tell ACCESS from BOTH"),
    "U1": ("USE", "gold reached; the model is wrong even when handed only the gold"),
    "D1": ("USE-UNDER-DISTRACTORS", "gold reached; oracle correct; wrong with the distractors around it"),
    "U2": ("USE", "gold reached; the answer is wrong (no oracle answer to tell USE from USE-UNDER-DISTRACTORS)"),
    "N3": ("NOT-YET", "gold reached; oracle correct; no end-to-end answer yet"),
    "N4": ("NOT-YET", "gold reached; no answer yet"),
}


class Facts(msgspec.Struct, frozen=True):
    """What one verdict is decided on (all optional: None = not known yet)."""

    k: int
    access_label: str  # e.g. "hybrid" or "local localization"
    gold_ranks: dict[int, int | None] | None  # rank in the access source's full ranking; None = no ranking
    answer: AnswerCheck | None  # the end-to-end answer (retrieve-then-read, or QA in context)
    oracle: AnswerCheck | None
    reader_k: int | None = None  # documents handed to a retrieve-then-read reader
    by_ranking: bool = False  # long context: reached = the localization's top K, not the context


class Verdict(msgspec.Struct, frozen=True):
    verdict: str  # one of VERDICTS
    rule: str  # the row of RULES that fired
    because: str  # the facts used, in one line, ending "→ VERDICT"
    missing: str = ""  # NOT-YET: what is missing
    parametric: bool = False  # PASS without the gold in the context


def _ranks_line(f: Facts) -> str:
    if f.gold_ranks is None:
        return f"no {f.access_label} ranking"
    parts = []
    for g, r in f.gold_ranks.items():
        if r is None:
            parts.append(f"gold {g} not retrieved by {f.access_label}")
        elif r > f.k:
            parts.append(f"gold {g} at {f.access_label} #{r} > K={f.k}")
        else:
            parts.append(f"gold {g} at {f.access_label} #{r}")
    return ", ".join(parts)


def _in_top_k(f: Facts) -> bool | None:
    if f.gold_ranks is None:
        return None
    return all(r is not None and r <= f.k for r in f.gold_ranks.values())


def _answer_line(name: str, a: AnswerCheck) -> str:
    return f"{name} answer {'right' if a.correct else 'wrong'}: {a.basis}"


def decide_verdict(f: Facts) -> Verdict:
    in_top_k = _in_top_k(f)
    if f.by_ranking and in_top_k is not None:
        reached: bool | None = in_top_k
    else:
        reached = f.answer.gold_given if f.answer is not None else in_top_k
    facts = [_ranks_line(f)]
    if f.answer is not None and in_top_k and not f.answer.gold_given:
        facts.append(f"gold not among the {f.reader_k or len(f.answer.context_doc_ids)} documents handed to the reader")
    if f.oracle is not None:
        facts.append(_answer_line("oracle", f.oracle))
    if f.answer is not None:
        facts.append(_answer_line("end-to-end", f.answer))

    def out(rule: str, missing: str = "", parametric: bool = False) -> Verdict:
        verdict = RULES[rule][0]
        return Verdict(verdict, rule, "; ".join(facts) + f" → {verdict}", missing, parametric)

    oracle_ok = f.oracle.correct if f.oracle is not None else None
    if f.answer is not None and f.answer.correct:
        return out("P1", parametric=not f.answer.gold_given)
    if reached is None:
        return out("N1", missing="a ranking of this query (or an answer)")
    if not reached:
        if oracle_ok is None:
            return out("N2", missing="the oracle answer (the model handed only the gold)")
        return out("A1" if oracle_ok else "B1")
    if oracle_ok is False:
        return out("U1")
    if f.answer is not None:
        return out("D1" if oracle_ok else "U2")
    if oracle_ok:
        return out("N3", missing="the end-to-end answer")
    return out("N4", missing="an answer (oracle or end-to-end)")


# ---------------------------------------------------------------- the near-miss split of D1 (issue 22)
# Interference: the near misses alone are enough to mislead the model. Volume: with only the gold and
# its near misses it is right, so what misled it is the rest of the tier or of the retrieved context.
DISTRACTOR_CAUSES = {"D2": "interference", "D3": "volume"}
_SPLIT_ROWS = {
    "D2": ("USE-UNDER-DISTRACTORS", "gold reached; oracle correct; answer wrong; wrong with the gold + its near misses too (interference)"),
    "D3": ("USE-UNDER-DISTRACTORS", "gold reached; oracle correct; answer wrong; right with the gold + its near misses (volume)"),
}
_ROWS = list(RULES.items())
_D1 = list(RULES).index("D1")  # the split rows come before D1: first matching row wins
RULES = dict([*_ROWS[:_D1], *_SPLIT_ROWS.items(),
              ("D1", ("USE-UNDER-DISTRACTORS", "gold reached; oracle correct; answer wrong; no near-miss answer to split it")),
              *_ROWS[_D1 + 1:]])


def split_distractors(v: Verdict, nearmiss: AnswerCheck | None) -> Verdict:
    """D1 split by the near-miss arm's answer (D2 interference, D3 volume); any other verdict as it is."""
    if v.rule != "D1" or nearmiss is None:
        return v
    row = "D2" if not nearmiss.correct else "D3"
    facts = v.because.rsplit(" → ", 1)[0]
    because = f"{facts}; {_answer_line('near-miss arm', nearmiss)} ({DISTRACTOR_CAUSES[row]}) → {v.verdict}"
    return msgspec.structs.replace(v, rule=row, because=because)
