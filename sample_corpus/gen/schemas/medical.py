"""Medical schemas: dosing limits, lab turnaround times, patient start records."""

from __future__ import annotations

from ..world import NUMWORDS
from .base import Field, Schema


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
TEST_Q = {"lipid panel": "cholesterol", "thyroid panel": "thyroid", "iron studies": "iron",
          "vitamin D level": "vitamin D", "kidney function panel": "kidney"}


def add_schemas(add) -> None:
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
