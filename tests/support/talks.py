"""Small transcripts written for the end-to-end tests, so they run where the corpus is absent.

Three talks of plain English that a search can tell apart: a guide to an island ferry
(schedule, ticket prices, the crossing), a visit to a village bakery (which has prices
too, so "what does it cost?" alone is ambiguous) and a month of weather reports. Together
they are longer than a local model's source budget (`ask.service.LOCAL_SOURCE_TOKENS`), so
an answer over all three must search; the ferry guide alone fits.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

FERRY = [
    "Welcome aboard: this is a short guide to the island ferry, which has linked the harbour "
    "town and the island since 1962.",
    "The first ferry of the day leaves the harbour at nine o'clock every morning, and the "
    "last one comes back at six in the evening.",
    "A return ticket for the island ferry costs twelve euros for adults and five euros for "
    "children under twelve.",
    "You buy ferry tickets at the small blue kiosk at the end of the pier; the kiosk opens "
    "half an hour before each departure.",
    "The crossing takes about forty minutes when the sea is calm, and closer to an hour when "
    "the wind comes from the west.",
    "In winter the ferry runs only on weekends, because the storms in the strait make the "
    "crossing unsafe on many weekdays.",
    "Bicycles travel free of charge on the lower deck, but cars need a reservation at least "
    "one day before the crossing.",
    "Captain Maria Olsen has sailed this route for more than twenty years and knows every "
    "rock and current in the strait.",
    "On the upper deck there is a small cafe that sells coffee, sandwiches and the famous "
    "fish soup of the island.",
    "From the ferry you can often see seals resting on the rocks near the old lighthouse on "
    "the northern point of the island.",
    "The lighthouse was built in 1887 and its keeper used to row across the strait every "
    "week to fetch supplies from town.",
    "When the fog is thick the ferry sounds its horn every two minutes and slows down until "
    "the harbour lights are visible.",
    "Dogs are welcome on board as long as they stay on a lead and keep away from the cafe on "
    "the upper deck.",
    "The ferry company plans to replace the old diesel boat with an electric one that "
    "charges at the pier during the night.",
    "The new electric ferry will carry two hundred passengers and forty cars, twice as many "
    "as the boat in service today.",
    "Locals say the best view of the island is from the stern, just after the ferry turns "
    "around the breakwater.",
    "If you miss the last ferry, a water taxi can take you across, but it costs eighty euros "
    "and must be booked by phone.",
    "Children love the ferry because the crew lets them ring the ship's bell when the boat "
    "leaves the harbour.",
    "During the summer festival the ferry runs every hour and the crossing is free for "
    "anyone wearing a festival wristband.",
    "Seasickness is rare on this short crossing, but the crew keeps ginger sweets at the "
    "cafe counter for anyone who feels unwell.",
    "The harbour master checks the weather at dawn and decides before eight whether the "
    "morning ferry can sail.",
    "Passengers with wheelchairs board through the car ramp, and a lift takes them from the "
    "lower deck to the cafe.",
    "The ferry's timetable changes twice a year, on the first of April and the first of "
    "October, and is posted at the kiosk.",
    "Many islanders take the ferry to work in town every day and know the crew by name.",
    "That is all for this guide: enjoy the crossing, and remember to keep your ticket until "
    "you leave the boat on the island.",
]

BAKERY = [
    "Today we visit the village bakery, where the ovens are lit at three o'clock in the "
    "morning, long before sunrise.",
    "The baker, Jonas, learned the trade from his grandmother, who opened the bakery in the "
    "village square in 1951.",
    "A loaf of sourdough rye costs four euros, and the small white rolls cost forty cents each.",
    "The sourdough starter is more than seventy years old and is fed with rye flour and "
    "water every evening.",
    "Jonas kneads the dough by hand, because he says a machine cannot feel when the dough is "
    "ready.",
    "The wood-fired oven reaches three hundred degrees and holds its heat for the whole "
    "morning once it is loaded.",
    "Cinnamon buns come out of the oven at seven, and there is usually a queue outside the "
    "door by then.",
    "On Saturdays the bakery makes a sweet cardamom braid that sells out within an hour of "
    "opening.",
    "The flour comes from a mill in the next valley, where the same family has ground grain "
    "for four generations.",
    "Jonas uses spelt for the crispbread and bakes it only once a month, in long thin sheets "
    "that dry on wooden poles.",
    "Bread left over at the end of the day goes to the school kitchen and to a farmer who "
    "feeds it to his pigs.",
    "The bakery closes on Mondays so that the oven can cool down and the chimney can be swept.",
    "Tourists often ask for the recipe of the rye bread, but Jonas only says that the secret "
    "is patience.",
    "A birthday cake has to be ordered three days ahead, and the most popular one is layered "
    "with lingonberries.",
    "In December the bakery makes gingerbread houses for the village children to decorate at "
    "the school fair.",
    "The baker's apprentice, Lina, started last spring and now shapes the rolls faster than "
    "anyone in the village.",
    "The dough for the morning bread rests overnight in a cool cellar under the shop, in big "
    "wooden troughs.",
    "Every loaf is weighed before baking, because the law says a loaf sold as one kilo must "
    "weigh at least that much.",
    "When the power fails the bakery keeps working, since the oven burns birch wood and the "
    "dough is mixed by hand.",
    "Jonas says the hardest part of the job is getting up at half past two in the morning, "
    "six days a week.",
    "The bakery's coffee is roasted by a neighbour, and a cup with a cinnamon bun costs three "
    "euros fifty.",
    "Local restaurants buy their bread from the bakery every morning, and a boy on a bicycle "
    "delivers it by eight.",
    "The old shop sign was painted by the grandmother herself and still hangs above the door.",
    "Jonas hopes that Lina will take over the bakery one day and keep the ovens burning in "
    "the village.",
    "That is the end of our visit: if you pass through the village, come early, before the "
    "cinnamon buns are gone.",
]

_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_WINDS = ("north", "north-east", "east", "south-east", "south", "south-west", "west")
_SKIES = ("clear skies", "light rain", "scattered clouds", "heavy showers", "thick fog")


def weather_report() -> list[str]:
    """Four weeks of daily forecasts: a long talk about nothing the other two mention."""
    lines = []
    for week in range(1, 5):
        for d, day in enumerate(_DAYS):
            k = week * 7 + d
            lines.append(
                f"In week {week}, on {day}, the wind blows from the {_WINDS[k % 7]} at "
                f"{8 + k % 17} knots, with {_SKIES[k % 5]} and a high of {9 + k % 11} degrees."
            )
    return lines


def srt_text(lines: Sequence[str], step: float = 8.0) -> str:
    """One cue of `step` seconds per line."""

    def clock(seconds: float) -> str:
        whole = int(seconds)
        return f"{whole // 3600:02d}:{whole // 60 % 60:02d}:{whole % 60:02d},000"

    cues = [
        f"{i}\n{clock((i - 1) * step)} --> {clock(i * step)}\n{text}\n"
        for i, text in enumerate(lines, start=1)
    ]
    return "\n".join(cues)


def vtt_text(lines: Sequence[str], step: float = 8.0) -> str:
    """The same cues as WebVTT (what a web page's `<track>` serves)."""

    def clock(seconds: float) -> str:
        whole = int(seconds)
        return f"{whole // 3600:02d}:{whole // 60 % 60:02d}:{whole % 60:02d}.000"

    cues = [
        f"{clock((i - 1) * step)} --> {clock(i * step)}\n{text}\n"
        for i, text in enumerate(lines, start=1)
    ]
    return "WEBVTT\n\n" + "\n".join(cues)


TALKS: dict[str, list[str]] = {
    "island-ferry": FERRY,
    "village-bakery": BAKERY,
    "weather-report": weather_report(),
}


def write_talks(folder: Path, names: Sequence[str] = tuple(TALKS)) -> list[Path]:
    """`<name>.srt` for each talk named, in `folder`; their paths, in the order given."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name in names:
        path = folder / f"{name}.srt"
        path.write_text(srt_text(TALKS[name]), encoding="utf-8")
        paths.append(path)
    return paths
