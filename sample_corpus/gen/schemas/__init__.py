"""Per-domain schemas, one module per domain, assembled by make_schemas."""

from __future__ import annotations

from ..world import World
from . import finance, hr, insurance, legal, medical, retail, technology, travel
from .base import Schema


def make_schemas(w: World) -> dict[str, Schema]:
    S: dict[str, Schema] = {}

    def add(s: Schema):
        S[s.name] = s

    for part in (finance, medical, legal, retail, travel, hr, insurance, technology):
        part.add_schemas(add)
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
