"""Legal schemas: appeal deadlines, noise fines, case records."""

from __future__ import annotations

import datetime as dt

from ..world import NUMWORDS, fmt_date, money
from .base import Field, Schema


CASE_Q = {"small claims": "small-claims dispute", "tenancy": "landlord-tenant case",
          "employment": "workplace case", "traffic": "driving offence case", "probate": "dispute over a will"}


def add_schemas(add) -> None:
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
