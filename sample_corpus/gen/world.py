"""The fictional world: a syllable name grammar, organisation pools per domain, and formatting
helpers (dates, money, numeric value of a fact)."""

from __future__ import annotations

import datetime as dt
import random
import re
from dataclasses import dataclass, field

# Real, well-known organisation names that a syllable grammar must never produce.
DENYLIST = {
    "google", "apple", "amazon", "microsoft", "meta", "visa", "chase", "allianz", "axa", "pfizer",
    "tesla", "oracle", "ibm", "intel", "delta", "hilton", "marriott", "walmart", "target", "costco",
    "ikea", "lufthansa", "emirates", "ryanair", "zara", "bayer", "novartis", "aetna", "cigna",
    "humana", "geico", "prudential", "nike", "adidas", "sony", "samsung", "nokia", "siemens",
    "bosch", "uber", "airbnb", "expedia", "stripe", "shopify", "slack", "zoom", "adobe", "cisco",
    "dell", "hsbc", "barclays", "citi", "santander", "revolut", "monzo", "hertz", "avis", "roche",
    "merck", "sanofi", "aviva", "zurich", "lloyds", "natwest", "paypal", "netflix", "spotify",
    "twitter", "nvidia", "asus", "lenovo", "acer", "canon", "nikon", "honda", "toyota", "ford",
    "qantas", "klarna", "wise", "ing", "abn", "bnp", "metlife", "kaiser", "optum", "tylenol",
    "advil", "lipitor", "humira", "tesco", "aldi", "lidl", "kroger", "etsy", "ebay", "atlassian",
    "salesforce", "twilio", "datadog", "vercel", "heroku", "ups", "fedex", "dhl", "marks",
}


# ============================================================== name grammar


class Names:
    """Syllable-based fictional names; every name handed out is unique."""

    ONSETS = ["b", "br", "c", "d", "dr", "f", "g", "gr", "h", "k", "l", "m", "n", "p", "pr", "qu",
              "r", "s", "st", "t", "tr", "v", "w", "z", "th", "sh", "", ""]
    VOWELS = ["a", "e", "i", "o", "u", "a", "e", "o", "ae", "ai", "ou", "y", "ei"]
    CODAS = ["", "", "", "n", "r", "l", "s", "m", "v", "x", "nd", "rn", "ll", "rk", "st"]
    ENDINGS = ["a", "o", "is", "an", "en", "ar", "el", "ora", "ine", "ex", "ia", "on"]

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.used: set[str] = set()

    def _raw(self, syl: int) -> str:
        r = self.rng
        s = "".join(r.choice(self.ONSETS) + r.choice(self.VOWELS) + r.choice(self.CODAS) for _ in range(syl - 1))
        s += r.choice(self.ONSETS[:-2]) + r.choice(self.ENDINGS)
        return s

    def word(self, lo: int = 2, hi: int = 3) -> str:
        while True:
            w = self._raw(self.rng.randint(lo, hi)).capitalize()
            if not 4 <= len(w) <= 9 or re.search(r"(.)\1", w) or re.search(r"[^aeiouy]{3}|[aeiouy]{3}|^[aeiouy]{2}", w.lower()):
                continue
            if w.lower() in DENYLIST or w in self.used:
                continue
            return w

    def unique(self, make) -> str:
        while True:
            n = make()
            if n not in self.used and not any(p.lower() in DENYLIST for p in n.split()):
                self.used.add(n)
                return n


GIVEN = ["Ilsa", "Dara", "Tamsin", "Oda", "Wren", "Brannoc", "Maelis", "Corin", "Yssa", "Teodor",
         "Pell", "Anwen", "Ruska", "Sefa", "Lio", "Mirel", "Havel", "Joss", "Kesia", "Olwen", "Petra",
         "Quill", "Tavi", "Ulla", "Vesna", "Yorra", "Zeb", "Ansel", "Bettan", "Cosima", "Dorrit",
         "Elko", "Fenna", "Gisel", "Hollis", "Ivo", "Jorun", "Kasimir", "Linnea", "Marek", "Nell",
         "Orla", "Piet", "Rasmi", "Saoirse", "Tobin", "Una", "Valko", "Wilm", "Xanthe", "Yann",
         "Zora", "Edda", "Rune", "Sabel", "Tiago", "Mina", "Aurel", "Bryn", "Calla"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December"]
NUMWORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}


def fmt_date(d: dt.date) -> str:
    return f"{d.day} {MONTHS[d.month - 1]} {d.year}"


def money(x: float, cur: str = "$", cents: bool = False) -> str:
    return f"{cur}{x:,.2f}" if cents else f"{cur}{int(round(x)):,}"


def sortable(value: str) -> float:
    """Numeric value of a fact, dates as ordinal days."""
    try:
        return float(dt.datetime.strptime(value, "%d %B %Y").date().toordinal())
    except ValueError:
        return num_of(value)


def num_of(value: str) -> float:
    m = re.search(r"\d[\d,]*(?:\.\d+)?", value)
    assert m, value
    return float(m.group().replace(",", ""))


# ============================================================== world: organisations per domain


@dataclass
class World:
    names: Names
    pools: dict[str, list[str]] = field(default_factory=dict)

    def pick(self, r: random.Random, pool: str, exclude=()) -> str:
        choices = [x for x in self.pools[pool] if x not in exclude]
        return r.choice(choices)


def build_world(rng: random.Random) -> World:
    n = Names(rng)
    w = World(n)
    place_end = ["ford", "holm", "wick", "mere", "stead", "by", "ton", "vale", "moor", "haven"]

    def place() -> str:
        return n.unique(lambda: n.word(1, 2) + rng.choice(place_end))

    def org(suffixes, count):
        return [n.unique(lambda: f"{n.word()} {rng.choice(suffixes)}") for _ in range(count)]

    w.pools["place"] = [place() for _ in range(60)]
    w.pools["surname"] = [n.unique(lambda: n.word(2, 3)) for _ in range(400)]
    w.pools["bank"] = org(["Bank", "Trust", "Savings Bank", "Credit Union", "Building Society"], 12)
    w.pools["drug"] = [n.unique(lambda: n.word(2, 2)[:-1] + rng.choice(["in", "ol", "ex", "ara", "ide", "ane", "azol"]))
                       for _ in range(14)]
    w.pools["clinic"] = [f"{p} {rng.choice(['Clinic', 'Health Centre', 'Medical Group', 'Family Practice'])}"
                         for p in w.pools["place"][:12]]
    w.pools["court"] = [f"{p} {rng.choice(['County Court', 'District Court', 'Circuit Court'])}"
                        for p in w.pools["place"][12:24]]
    w.pools["city"] = w.pools["place"][24:36]
    w.pools["store"] = org(["Home", "Outfitters", "Market", "Supply", "Living", "Goods"], 12)
    w.pools["brand"] = [n.unique(lambda: n.word(2, 2)) for _ in range(12)]
    w.pools["airline"] = org(["Air", "Airways", "Airlines", "Wings"], 12)
    w.pools["hotel"] = [n.unique(lambda: rng.choice(["Hotel {}", "{} Lodge", "The {} Inn", "{} House"]).format(n.word()))
                        for _ in range(12)]
    w.pools["company"] = org(["Systems", "Logistics", "Foods", "Works", "Group", "Labs"], 12)
    w.pools["insurer"] = org(["Mutual", "Assurance", "Insurance", "Indemnity"], 12)
    w.pools["vendor"] = [n.unique(lambda: n.word() + rng.choice(["Cloud", "Stack", "Base", "Grid", "Hub"])) for _ in range(12)]
    w.pools["software"] = [n.unique(lambda: f"{n.word()} {rng.choice(['OS', 'Server', 'Desk', 'Studio', 'DB'])}")
                           for _ in range(12)]
    w.pools["archive"] = [n.unique(lambda: n.word()) for _ in range(40)]
    w.pools["needle_word"] = ["copper", "lantern", "willow", "granite", "saffron", "harbour", "ember",
                              "juniper", "cobalt", "thistle", "marble", "falcon", "orchard", "velvet",
                              "quartz", "meadow", "tundra", "cinder", "maple", "otter"]
    lines = [n.unique(lambda: n.word(2, 2)) for _ in range(8)]
    w.pools["savings_line"] = [[f"{ln} Saver {t}" for t in ["Plus", "Select", "Flex", "Prime"]] for ln in lines[:4]]
    w.pools["plan_line"] = [[f"{ln}Guard {t}" for t in ["Bronze", "Silver", "Gold", "Platinum"]] for ln in lines[4:8]]
    return w
