"""Finance schemas: savings rates, personal-loan rates, client savings records."""

from __future__ import annotations

from ..world import NUMWORDS, money
from .base import Field, Schema, _between


def add_schemas(add) -> None:
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
