"""Query specs per domain: which schemas the single-hop, comparison and two-hop queries use,
the computed-answer comparators, and the verbatim needles."""

from __future__ import annotations

import datetime as dt
import math

from .world import fmt_date, money, num_of


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
