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
  N5   NOT-YET                 production's answer not right; no context known (no context_doc_ids, no imported ranking)
  A1   ACCESS                  gold not reached; oracle correct
  B1   BOTH                    gold not reached; oracle wrong
  A2   ACCESS?                 gold not reached; no decided oracle answer yet (provisional: the oracle confirms it)
  U1   USE                     gold reached; oracle wrong (the model cannot use even the gold alone)
  D2   USE-UNDER-DISTRACTORS   gold reached; oracle correct; answer wrong; near-miss arm wrong (interference)
  D3   USE-UNDER-DISTRACTORS   gold reached; oracle correct; answer wrong; near-miss arm right (volume)
  D1   USE-UNDER-DISTRACTORS   gold reached; oracle correct; answer wrong (no near-miss answer to split it)
  U2   USE                     gold reached; answer wrong; no decided oracle answer to separate U1 from D1
  Q1   UNDECIDED               gold reached; the answer is undecided (no trusted judge; the deterministic rule abstains)
  N3   NOT-YET                 gold reached; oracle correct; no end-to-end answer yet
  N4   NOT-YET                 gold reached; no decided answer of any kind yet

An undecided answer (workbench/correctness.py: it names both candidates of a comparison, or its
gold is long) counts as no answer, except in Q1, which says so. Production's imported answers are
a system of their own: "reached" is every gold DocID among what production read
(`context_doc_ids`), else in its imported ranking's top K; its oracle is a named model's.
A PASS without the gold in the context is marked as parametric (fragile, docs/METHOD.md §1).
D2 and D3 refine D1 with one more fact, the near-miss arm (the same model handed the gold and the
query's hard negatives only): `split_distractors`, applied to a decided verdict.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from workbench.llm.answers import AnswerCheck

VerdictName = Literal["PASS", "ACCESS", "ACCESS?", "USE", "USE-UNDER-DISTRACTORS", "BOTH", "UNDECIDED", "NOT-YET"]
VERDICTS: tuple[str, ...] = ("PASS", "ACCESS", "ACCESS?", "USE", "USE-UNDER-DISTRACTORS", "BOTH", "UNDECIDED", "NOT-YET")
# Verdicts that wait for something (an oracle answer, a judge, a run); the decided ones are the rest.
PENDING: tuple[str, ...] = ("ACCESS?", "UNDECIDED", "NOT-YET")
# A provisional verdict's settled counterpart (how a front end colours it, and what it may become).
PROVISIONAL_OF = {"ACCESS?": "ACCESS"}
# The filter words of the TUI's query list (v:access, v:use, …) — `use` also finds USE-UNDER-DISTRACTORS.
VERDICT_SHORT = {"PASS": "pass", "ACCESS": "access", "ACCESS?": "access?", "USE": "use", "USE-UNDER-DISTRACTORS": "distractors",
                 "BOTH": "both", "UNDECIDED": "undecided", "NOT-YET": "not-yet"}

RULES: dict[str, tuple[str, str]] = {
    "P1": ("PASS", "the end-to-end answer is correct"),
    "N1": ("NOT-YET", "no ranking and no answer: nothing says whether the gold was reached"),
    "N5": ("NOT-YET", "production's answer is not right and no context is known: no context_doc_ids, no imported ranking"),
    "A1": ("ACCESS", "gold not reached; the model answers correctly when handed the gold"),
    "B1": ("BOTH", "gold not reached; the model is wrong even when handed the gold"),
    "A2": ("ACCESS?", "gold not reached; no decided oracle answer yet to confirm ACCESS (or find BOTH)"),
    "U1": ("USE", "gold reached; the model is wrong even when handed only the gold"),
    # D2 and D3 come before D1 (first matching row wins): the near-miss arm split it (split_distractors)
    "D2": ("USE-UNDER-DISTRACTORS", "gold reached; oracle correct; answer wrong; wrong with the gold + its near misses too (interference)"),
    "D3": ("USE-UNDER-DISTRACTORS", "gold reached; oracle correct; answer wrong; right with the gold + its near misses (volume)"),
    "D1": ("USE-UNDER-DISTRACTORS", "gold reached; oracle correct; wrong with the distractors around it; no near-miss answer to split it"),
    "U2": ("USE", "gold reached; the answer is wrong (no decided oracle answer to tell USE from USE-UNDER-DISTRACTORS)"),
    "Q1": ("UNDECIDED", "gold reached; the answer is undecided: no trusted judge, and the deterministic rule abstains"),
    "N3": ("NOT-YET", "gold reached; oracle correct; no end-to-end answer yet"),
    "N4": ("NOT-YET", "gold reached; no decided answer yet"),
}


DECISION_MISSING = "a decision on the answer: a judge that passed calibration, or the query's canonical_answer / answer_aliases"


class Facts(msgspec.Struct, frozen=True):
    """What one verdict is decided on (all optional: None = not known yet)."""

    k: int
    access_label: str  # e.g. "hybrid" or "local localization"
    gold_ranks: dict[int, int | None] | None  # rank in the access source's full ranking; None = no ranking
    answer: AnswerCheck | None  # the end-to-end answer (retrieve-then-read, or QA in context)
    oracle: AnswerCheck | None
    reader_k: int | None = None  # documents handed to a retrieve-then-read reader
    by_ranking: bool = False  # long context: reached = the localization's top K, not the context
    production: bool = False  # production's imported answer: reached = what it read (context), else its ranking
    context_known: bool = True  # production: the import gave context_doc_ids for this query
    gold_ids: tuple[int, ...] = ()  # the query's gold (what "not all gold" counts against)


class Verdict(msgspec.Struct, frozen=True):
    verdict: str  # one of VERDICTS
    rule: str  # the row of RULES that fired
    because: str  # the facts used, in one line, ending "→ VERDICT"
    missing: str = ""  # NOT-YET: what is missing
    parametric: bool = False  # PASS without the gold in the context


def _ranks_line(f: Facts) -> str:
    if f.gold_ranks is None:
        if f.production and not f.context_known:
            return "no context known: the import gave no context_doc_ids and production has no imported ranking"
        return f"no {f.access_label} ranking" if not f.production else "no imported ranking (access = production's context_doc_ids)"
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
    word = "undecided" if not a.decided else ("right" if a.correct else "wrong")
    return f"{name} answer {word}: {a.basis}"


def _handed_line(f: Facts, a: AnswerCheck) -> str:
    """What the reader was handed, when the ranking's top K had the gold but the context did not."""
    n = f.reader_k or len(a.context_doc_ids)
    gold = set(f.gold_ids or f.gold_ranks or ())
    given = len(set(a.context_doc_ids) & gold)
    if f.production:
        return f"production read {given} of {len(gold)} gold among its {len(a.context_doc_ids)} context documents"
    if given:
        return f"not all gold among the {n} documents handed to the reader ({given} of {len(gold)})"
    return f"gold not among the {n} documents handed to the reader"


def _reached(f: Facts, in_top_k: bool | None) -> bool | None:
    if f.production:  # what production read, else its own ranking's top K
        return f.answer.gold_given if f.answer is not None and f.context_known else in_top_k
    if f.by_ranking and in_top_k is not None:
        return in_top_k
    return f.answer.gold_given if f.answer is not None else in_top_k


def decide_verdict(f: Facts) -> Verdict:
    in_top_k = _in_top_k(f)
    reached = _reached(f, in_top_k)
    facts = [_ranks_line(f)]
    if f.answer is not None and (in_top_k or (f.production and f.context_known)) and not f.answer.gold_given:
        facts.append(_handed_line(f, f.answer))
    elif f.production and f.answer is not None and f.context_known:
        facts.append(f"all gold among the {len(f.answer.context_doc_ids)} documents production read")
    if f.oracle is not None:
        facts.append(_answer_line("oracle", f.oracle))
    if f.answer is not None:
        facts.append(_answer_line("end-to-end" if not f.production else "production's", f.answer))

    def out(rule: str, missing: str = "", parametric: bool = False) -> Verdict:
        verdict = RULES[rule][0]
        return Verdict(verdict, rule, "; ".join(facts) + f" → {verdict}", missing, parametric)

    oracle_ok = f.oracle.correct if f.oracle is not None and f.oracle.decided else None
    answer_ok = f.answer.correct if f.answer is not None and f.answer.decided else None
    if answer_ok:
        read = f.answer is not None and (f.answer.gold_given if f.context_known or not f.production else reached is not False)
        return out("P1", parametric=not read)
    if reached is None:
        if f.production and f.answer is not None:
            return out("N5", missing="what production read: context_doc_ids in the import, or its ranking (import-run)")
        return out("N1", missing="a ranking of this query (or an answer)")
    if not reached:
        if oracle_ok is None:
            if f.oracle is not None:  # there, but undecided: another run gives the same answer
                return out("A2", missing=DECISION_MISSING.replace("the answer", "the oracle answer"))
            return out("A2", missing="the oracle answer (the model handed only the gold) to confirm it")
        return out("A1" if oracle_ok else "B1")
    if oracle_ok is False:
        return out("U1")
    if answer_ok is False:
        return out("D1" if oracle_ok else "U2")
    if f.answer is not None:
        return out("Q1", missing=DECISION_MISSING)
    if oracle_ok:
        return out("N3", missing="the end-to-end answer")
    return out("N4", missing="an answer (oracle or end-to-end)")


# ---------------------------------------------------------------- the near-miss split of D1 (issue 22)
# Interference: the near misses alone are enough to mislead the model. Volume: with only the gold and
# its near misses it is right, so what misled it is the rest of the tier or of the retrieved context.
DISTRACTOR_CAUSES = {"D2": "interference", "D3": "volume"}


def split_distractors(v: Verdict, nearmiss: AnswerCheck | None) -> Verdict:
    """D1 split by the near-miss arm's answer (D2 interference, D3 volume); any other verdict as it is."""
    if v.rule != "D1" or nearmiss is None or not nearmiss.decided:
        return v
    row = "D2" if not nearmiss.correct else "D3"
    facts = v.because.rsplit(" → ", 1)[0]
    because = f"{facts}; {_answer_line('near-miss arm', nearmiss)} ({DISTRACTOR_CAUSES[row]}) → {v.verdict}"
    return msgspec.structs.replace(v, rule=row, because=because)
