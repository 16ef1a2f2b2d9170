"""HR schemas: leave policies, salary bands, employee leave records."""

from __future__ import annotations

import datetime as dt

from ..world import NUMWORDS, fmt_date, money
from .base import Field, Schema


LEAVE_Q = {"parental leave": "time off after a new baby", "study leave": "time off to study",
           "sabbatical leave": "a sabbatical", "carer's leave": "time off to care for a relative"}


def add_schemas(add) -> None:
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
