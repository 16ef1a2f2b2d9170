"""Retail schemas: return windows, product power ratings, purchase records."""

from __future__ import annotations

import datetime as dt

from ..world import fmt_date
from .base import Field, Schema


CATEGORY_ITEMS = {
    "small kitchen appliances": ["blender", "toaster", "kettle", "hand mixer"],
    "large appliances": ["washing machine", "fridge-freezer", "dishwasher"],
    "bedding": ["duvet", "mattress topper", "pillow set"],
    "furniture": ["bookcase", "dining table", "armchair"],
    "outdoor gear": ["tent", "camping stove", "sleeping bag"],
    "electronics accessories": ["charging dock", "pair of headphones", "keyboard"],
}


def add_schemas(add) -> None:
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
