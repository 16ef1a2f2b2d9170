"""Field and Schema: a template family for fact documents (key fields, one value field)."""

from __future__ import annotations

from dataclasses import dataclass, field


# ============================================================== schemas


@dataclass
class Field:
    name: str
    kind: str  # entity | variant | year | unit | number | person
    pool: str | list | None = None  # World pool name, a list of values, or a list of groups


@dataclass
class Schema:
    name: str
    domain: str
    fields: list[Field]
    value: object  # (rng, slots, ctx) -> value string
    titles: list[str]
    facts: list[str]
    body: list[list[str]]
    questions: list[str] = field(default_factory=list)
    pad_fact: str = ""
    compare_q: str = ""
    compare_word: str = "higher"  # higher | lower | longer
    desc: str = ""
    derive: object = None  # slots -> extra slots
    style: object = None  # rng -> incidental slots
    hn_fields: list[str] = field(default_factory=list)

    def key(self, slots) -> tuple:
        # a person record is keyed by the full name (the surname is shared with its negative)
        return tuple(slots[f.name] for f in self.fields) + ((slots["last"],) if "last" in slots else ())

    def fieldkind(self, name) -> str:
        return next(f.kind for f in self.fields if f.name == name)


def _between(r, lo, hi, step=1.0, fmt="{:.1f}"):
    k = r.randint(0, int(round((hi - lo) / step)))
    return fmt.format(lo + k * step)
