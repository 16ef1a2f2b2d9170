"""Travel schemas: baggage allowances, hotel rates, booking records."""

from __future__ import annotations

from ..world import money
from .base import Field, Schema


def add_schemas(add) -> None:
    # ------------------------------------------------------------------ travel
    add(Schema(
        "baggage", "travel",
        [Field("airline", "entity", "airline"), Field("fare", "variant", ["Saver", "Classic", "Flex", "Premium"]), Field("year", "year")],
        value=lambda r, s, c: f"{r.choice([15, 20, 23, 25, 30, 32])} kg",
        titles=["{airline} baggage rules: {fare} fares, {year}", "{year} luggage allowance — {airline} {fare}"],
        facts=["{fare} tickets issued in {year} include one checked bag of up to {value}.",
               "For {fare} fares booked in {year}, the checked allowance is a single bag weighing at most {value}."],
        body=[["Cabin bags must fit the sizer at the gate.", "Hand luggage has to fit the frame at the gate."],
              ["Extra bags can be added online until {h} hours before departure.", "Additional luggage can be bought online up to {h} hours ahead."],
              ["Sports equipment is charged separately.", "Skis, bikes and golf clubs carry their own fee."],
              ["{airline} flies from {n} bases.", "{airline} operates out of {n} bases."]],
        questions=["How heavy can my hold luggage be on a {fare} ticket with {airline} bought in {year}?",
                   "What's the weight limit for a checked suitcase on {airline}'s {fare} fare from {year}?"],
        pad_fact="{airline}'s {fare} fare allowed a checked bag of {value} for tickets issued in {year}.",
        compare_q="For {fare} tickets from {year}, which airline lets you check a heavier bag: {a} or {b}?",
        desc="{airline}",
        style=lambda r: {"h": r.choice([2, 4, 6, 24]), "n": r.choice([3, 4, 6, 9])},
        hn_fields=["year", "fare", "airline"]))
    add(Schema(
        "hotel_rate", "travel",
        [Field("hotel", "entity", "hotel"), Field("room", "variant", ["standard double", "garden suite", "family room", "single room"]),
         Field("season", "variant", ["high season", "low season", "shoulder season"])],
        value=lambda r, s, c: money(r.randint(60, 320), "€"),
        titles=["{hotel} tariff: {room}, {season}", "Room rates — {hotel} ({season})"],
        facts=["A {room} costs {value} per night in {season}.", "In {season}, the nightly rate for a {room} is {value}."],
        body=[["Breakfast is served from seven until ten.", "Guests can have breakfast between seven and ten."],
              ["Check-in opens at three in the afternoon.", "Rooms are ready from three o'clock."],
              ["{hotel} is a short walk from the old harbour.", "The old harbour is a few minutes on foot from {hotel}."],
              ["Parking is available for {park} a day.", "The car park charges {park} per day."]],
        questions=["What does a night in the {room_q} at {hotel} cost during the {season_q}?",
                   "How much is {hotel} charging per night for its {room_q} in the {season_q}?"],
        pad_fact="{hotel} charged {value} a night for a {room} in {season}.",
        compare_q="In the {season_q}, which is cheaper for a {room_q}: {a} or {b}?",
        compare_word="lower", desc="{hotel}",
        derive=lambda s: {"room_q": {"standard double": "regular double", "garden suite": "suite by the garden",
                                     "family room": "room for a family", "single room": "room for one"}[s["room"]],
                          "season_q": {"high season": "busy summer months", "low season": "quiet months",
                                       "shoulder season": "in-between months"}[s["season"]]},
        style=lambda r: {"park": money(r.choice([8, 12, 15, 20]), "€")},
        hn_fields=["season", "room", "hotel"]))
    add(Schema(
        "booking", "travel", [Field("first", "person")],
        value=lambda r, s, c: f"{c['bag']} kg" if c.get("bag") else f"{r.randint(12, 30)} kg",
        titles=["Booking record: {first} {last}", "Trip file — {first} {last}"],
        facts=["{first} {last} holds a {fare} ticket on {airline}, issued in {year}, and checked a suitcase weighing {value}.",
               "In {year}, {first} {last} flew {airline} on a {fare} ticket; the checked suitcase weighed {value}."],
        body=[["The outbound flight leaves from {place}.", "{first} departs from {place}."],
              ["A window seat was requested.", "{first} asked for a window seat."],
              ["No special assistance is needed.", "The file notes no assistance requirements."],
              ["Travel insurance was bought separately.", "{first} arranged insurance elsewhere."]],
        questions=["How much could {first} {last}'s checked luggage weigh under the fare?",
                   "What hold-bag weight was {first} {last} entitled to?"],
        style=lambda r: {"place": r.choice(["the north terminal", "the city airport", "the regional airport"])}))
