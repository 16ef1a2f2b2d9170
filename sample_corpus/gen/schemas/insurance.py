"""Insurance schemas: deductibles, coverage limits, claim records."""

from __future__ import annotations

from ..world import money
from .base import Field, Schema


PERIL_Q = {"water damage": "a burst pipe", "theft": "a burglary", "storm damage": "storm harm", "fire": "a house fire"}


def add_schemas(add) -> None:
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
