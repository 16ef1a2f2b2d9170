"""Padding prose: same-domain filler documents with near-collision fact sentences mixed in
(PaddingBuilder is mixed into Generator)."""

from __future__ import annotations

import random

from .config import PADDING_TOKENS_PER_DOMAIN, SEED
from .specs import SINGLE
from .world import GIVEN, MONTHS


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


class PaddingBuilder:
    """Padding documents; mixed into Generator, which provides the world, schemas, slots and docs."""

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
