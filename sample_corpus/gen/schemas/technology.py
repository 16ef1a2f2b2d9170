"""Technology schemas: API rate limits, end-of-support dates, integration records."""

from __future__ import annotations

import datetime as dt

from ..world import fmt_date
from .base import Field, Schema


def add_schemas(add) -> None:
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
