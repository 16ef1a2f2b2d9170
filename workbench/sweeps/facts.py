"""A small seeded fact bank: fictional facts, each with a literal and an inference question.

Names are made up from syllables, so nothing can be answered from memory, and every answer is
a number so the deterministic match is unambiguous. The literal answer is stated in the fact;
the inference answer is not (one arithmetic step from the fact's numbers). Absent facts come
from the same templates with other names and are never planted: the faithful answer to their
question is a refusal.
"""

from __future__ import annotations

import random
from typing import Callable

import msgspec

_ONSETS = ["b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "br", "dr", "gr", "kr", "tr", "st"]
_VOWELS = ["a", "e", "i", "o", "u", "ae", "ia", "ou"]
_CODAS = ["", "n", "r", "l", "s", "th", "m", "k"]


class Fact(msgspec.Struct, frozen=True):
    fact_id: str
    sentence: str
    literal_q: str
    literal_a: str
    inference_q: str
    inference_a: str


def _name(rng: random.Random, syllables: int = 2) -> str:
    return "".join(rng.choice(_ONSETS) + rng.choice(_VOWELS) + rng.choice(_CODAS) for _ in range(syllables)).capitalize()


def _person(rng: random.Random) -> str:
    return f"{_name(rng)} {_name(rng, 3)}"


Template = Callable[[random.Random], tuple[str, str, str, str, str]]


def _ferry(r):
    p, d, n = _name(r), r.randint(21, 58), r.randint(3, 7)
    return (f"The {p} ferry crossing takes {d} minutes, and the ferry sails {n} times a day.",
            f"How many minutes does the {p} ferry crossing take?", str(d),
            f"How many minutes in total does the {p} ferry spend crossing each day?", str(d * n))


def _born(r):
    p, y, k = _person(r), r.randint(1931, 1968), r.randint(23, 47)
    return (f"{p} was born in {y} in a small house by the river.",
            f"In what year was {p} born?", str(y),
            f"How old did {p} turn in {y + k}?", str(k))


def _archive(r):
    p, n, m = _name(r), r.randint(12, 39), r.randint(6, 9)
    return (f"The {p} archive holds {n} crates, and every crate contains {m} ledgers.",
            f"How many crates does the {p} archive hold?", str(n),
            f"How many ledgers does the {p} archive hold in total?", str(n * m))


def _orchard(r):
    p, a, b = _name(r), r.randint(31, 89), r.randint(31, 89)
    return (f"The {p} orchard has {a} pear trees and {b} apple trees.",
            f"How many pear trees does the {p} orchard have?", str(a),
            f"How many pear and apple trees does the {p} orchard have altogether?", str(a + b))


def _runner(r):
    p, k = _person(r), r.randint(7, 13)
    return (f"{p} runs {k} kilometres every morning, six days a week.",
            f"How many kilometres does {p} run each morning?", str(k),
            f"How many kilometres does {p} run in a week?", str(6 * k))


def _bridge(r):
    p, q, a, b = _name(r), _name(r), r.randint(310, 690), r.randint(41, 99)
    return (f"The {p} bridge is {a} metres long, {b} metres longer than the old {q} bridge.",
            f"How long is the {p} bridge, in metres?", str(a),
            f"How long is the old {q} bridge, in metres?", str(a - b))


def _tickets(r):
    p, q, n, c = _person(r), _name(r), r.randint(3, 9), r.randint(14, 39)
    return (f"{p} bought {n} tickets for the {q} concert at {c} dollars each.",
            f"How many tickets did {p} buy for the {q} concert?", str(n),
            f"How many dollars did {p} spend on tickets for the {q} concert?", str(n * c))


def _library(r):
    p, h, d = _name(r), r.randint(6, 10), r.randint(5, 9)
    return (f"The {p} library opens at {h} in the morning and stays open for {d} hours.",
            f"For how many hours does the {p} library stay open?", str(d),
            f"At what hour (24-hour clock) does the {p} library close?", str(h + d))


def _lighthouse(r):
    p, y, k = _name(r), r.randint(1801, 1889), r.randint(31, 79)
    return (f"The {p} lighthouse was built in {y} and rebuilt {k} years later.",
            f"In what year was the {p} lighthouse built?", str(y),
            f"In what year was the {p} lighthouse rebuilt?", str(y + k))


def _greenhouse(r):
    p, n, m = _person(r), r.randint(11, 19), r.randint(11, 19)
    return (f"{p}'s greenhouse holds {n} rows with {m} tomato plants in each row.",
            f"How many rows of tomato plants does {p}'s greenhouse hold?", str(n),
            f"How many tomato plants does {p}'s greenhouse hold in total?", str(n * m))


TEMPLATES: list[Template] = [_ferry, _born, _archive, _orchard, _runner, _bridge, _tickets, _library, _lighthouse, _greenhouse]


def fact_bank(seed: int, n: int, prefix: str = "fact") -> list[Fact]:
    """n facts, cycling through the templates; the same seed gives the same facts."""
    rng = random.Random(f"{seed}:{prefix}")
    out = []
    for i in range(n):
        sentence, lq, la, iq, ia = TEMPLATES[i % len(TEMPLATES)](rng)
        out.append(Fact(f"{prefix}-{i + 1:02d}", sentence, lq, la, iq, ia))
    return out


def planted_and_absent(seed: int, n_facts: int, n_absent: int) -> tuple[list[Fact], list[Fact]]:
    """Facts to plant, and facts of the same kinds that are never planted (their names all differ)."""
    planted = fact_bank(seed, n_facts, "fact")
    absent = fact_bank(seed, n_absent, "absent")
    return planted, absent
