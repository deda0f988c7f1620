"""A shifted copy of the mc-dev split: the same timelines, questions and gold, with every person,
place, employer and object replaced, to measure how much of the mc figures is owed to dev's
particular entities.

    python -m ops.bench.mcshift --out DIR [--seed N] [--data DIR] [--personas N]

What is replaced, and by what: the dev entities are read from the split itself (the facts'
values and parameters by fact type, plus the proper nouns that only distractors name: a
capitalised word that also occurs mid-sentence, read as a place after "in", "to", "from" or
"near" and as a person otherwise). Each is mapped, for the whole split, to an entry of this
module's own pools of the same kind, none of which occurs in dev: names with accents ("Zoë",
"José"), hyphens ("Anne-Marie") and names that are also common words ("Will", "Rose", "Hope");
multi-word and accented cities ("Rio de Janeiro", "Kraków"); employers with "&" and "Inc.";
pets, cars, phones, allergens, diets, hobbies, job titles, preferences, owned objects, plans and
appointments; weekdays are permuted and departure times rewritten ("6am" -> "18:40").

Replacement is whole-word and longest first, in one pass (a replacement is never replaced
again), and touches every text field the same way: statement texts, ``value``, ``also``, the
facts' params and versions, the persona's name, question texts, ``expected_value`` and
``outdated_values``. A name that is also a month ("June") is replaced only where no day number
follows it. Deterministic: the same dev data and seed give the same files; the seed picks which
pool entry each dev entity gets. Uses the standard library only.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ops.bench.common import read_jsonl
from ops.bench.mc import resolve_data_dir

# -- the replacement pools (none of them in dev) -------------------------------------------------

PEOPLE = (
    # accents, hyphens, apostrophes
    "Zoë", "José", "Anne-Marie", "Jean-Luc", "Mary-Kate", "Renée", "Søren", "Inés", "Joaquín",
    "Élodie", "François", "Björn", "Hélène", "Göran", "Siobhán", "Oisín", "Dörte", "Mireille",
    "Zuzana", "Łukasz", "Ana-Sofía", "Thandiwe", "Nkechi", "Oluwaseun", "Chidi", "Kwame",
    # names that are also common words
    "Will", "Rose", "Hope", "Grace", "Frank", "Joy", "Dawn", "Sunny", "Bill", "Faith", "Mark",
    "Summer", "Hunter", "Autumn", "Skye", "Forrest", "Sage", "Bay",
    # rare two-syllable names
    "Tamsin", "Idris", "Corin", "Linnea", "Ambrose", "Thora", "Cosmo", "Elspeth", "Lorcan",
    "Marit", "Anouk", "Dagny", "Ferdie", "Halvard", "Kasimir", "Ludmila", "Paavo", "Quilla",
    "Ulla", "Valeska", "Wendell", "Yevgen", "Ottilie", "Brennan", "Calla", "Desmond", "Eamon",
    "Fenna", "Gideon", "Hester", "Ines", "Jago", "Kirsi", "Lowri", "Magnus", "Nerys", "Orla",
    "Piet", "Rhian", "Solveig", "Tobias", "Ursa", "Vilja", "Wilder", "Xanthe", "Yusuf", "Zelda",
    "Aurelio", "Bettina", "Cyrus", "Dorcas", "Eilif", "Fabian", "Gunnar", "Hamish", "Imelda",
    "Jarrah", "Kenzo", "Lazlo", "Marisol", "Niamh", "Odile", "Pascal", "Rupert", "Saskia",
    "Tobin", "Umar", "Vivienne", "Wren", "Yolanda", "Zebedee", "Bronwen", "Caspian", "Delphine",
)
CITIES = (
    "San Sebastián", "Rio de Janeiro", "Ho Chi Minh City", "Kraków", "Zürich", "São Paulo",
    "Buenos Aires", "Kuala Lumpur", "Cape Town", "Salt Lake City", "New Orleans", "Tel Aviv",
    "Addis Ababa", "La Paz", "Las Palmas", "Chiang Mai", "Santa Fe", "Baton Rouge", "Hong Kong",
    "Reykjavík", "Malmö", "Düsseldorf", "Bogotá", "Medellín", "Córdoba", "Tromsø", "Aarhus",
    "Cluj-Napoca", "Aix-en-Provence", "Winston-Salem", "Québec City", "St. Louis",
    "Reading", "Nice", "Bath", "Tbilisi", "Ljubljana", "Windhoek", "Hobart", "Galway", "Bilbao",
    "Yerevan", "Da Nang", "Göteborg", "Łódź", "Oaxaca", "Trondheim", "Split",
)
EMPLOYERS = (
    "Hartley & Finch", "Brightwater Inc.", "Moreau & Fils", "Kestrel Aerospace Inc.",
    "Blue Heron Design Co.", "Oakridge & Partners", "Nordlys Energi", "Café Lumière",
    "Zephyr Bio-Systems", "O'Malley Brothers", "Tan & Lim Holdings", "Quillfeather Press",
    "Red Kite Robotics", "Saltmarsh Ventures", "Juniper & Vale", "Polaris Grid Inc.",
    "Atelier Nord", "Three Rivers Bank", "Bergström Logistik", "Cobalt Street Studios",
    "Marigold Care Inc.", "Ironwood & Co.", "Larkspur Games", "Verity Insights",
    "Ashgrove Consulting", "Fennel Kitchen Group",
)
PET_NAMES = (
    "Captain Fluff", "Miss Marple", "Olive", "Fig", "Pickle", "Bean", "Pretzel", "Zeus", "Pico",
    "Bao", "Kiki", "Dottie", "Marbles", "Sir Reginald", "Tofu", "Nacho",
)
PET_SPECIES = (
    "border collie", "dachshund", "cockatiel", "bearded dragon", "Maine Coon", "French bulldog",
    "ragdoll cat", "guinea pig",
)
CARS = (
    "Škoda Octavia", "Volvo XC40", "Kia EV6", "Citroën C3", "Hyundai Ioniq 5",
    "Volkswagen ID.4", "BMW i3", "Fiat 500", "Peugeot 208", "Dacia Sandero",
)
PHONES = (
    "iPhone 15 Pro", "Fairphone 5", "OnePlus 12", "Xperia 10 V", "Nothing Phone 2",
    "Redmi Note 13",
)
ALLERGENS = (
    "buckwheat", "kiwi fruit", "mustard seed", "lupin", "celery", "soy", "hazelnuts",
    "pistachios", "bee stings", "ibuprofen",
)
DIETS = ("vegan", "flexitarian", "gluten-free", "low-FODMAP", "macrobiotic", "dairy-free")
HOBBIES = (
    "kitesurfing", "crochet", "beekeeping", "fencing", "stand-up paddleboarding", "calligraphy",
    "origami", "orienteering", "ice hockey", "glassblowing",
)
TITLES = (
    "dental hygienist", "DevOps engineer", "sous-chef", "air traffic controller", "paralegal",
    "actuary", "copy editor", "site reliability engineer", "veterinary nurse",
    "structural engineer", "HR business partner", "sommelier", "flight attendant", "translator",
    "occupational therapist", "quantity surveyor", "art director", "lab technician",
)
# Preferences come in pairs ("X over Y"): a dev pair maps to one of these pairs.
PREF_PAIRS = (
    ("audiobooks", "podcasts"), ("sunrise hikes", "sunset swims"), ("espresso", "matcha"),
    ("train journeys", "road trips"), ("city breaks", "camping trips"),
    ("board games", "video games"), ("crosswords", "sudoku"),
    ("early check-ins", "late check-outs"),
)
# Owned objects (singular, plural): a count is "N <plural>".
OBJECTS = (
    ("ukulele", "ukuleles"), ("kayak", "kayaks"), ("sewing machine", "sewing machines"),
    ("cactus", "cacti"), ("snowboard", "snowboards"), ("telescope", "telescopes"),
)
# Plans by the verb they go with ("renew my passport", "file my tax return").
PLANS = {
    "renew": ("fishing licence", "gym membership", "residence permit"),
    "submit": ("grant proposal", "planning application", "thesis draft"),
    "file": ("expense report", "warranty claim", "building permit"),
    "sign": ("mortgage papers", "nursery contract"),
    "return": ("rental skis", "borrowed ladder"),
    "book": ("moving van", "piano tuner", "caterer"),
}
APPOINTMENTS = ("optician", "orthodontist", "vet", "podiatrist", "dermatologist")
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December")

# Capitalised words of the data that name no entity (speakers, languages, a technique).
NOT_ENTITIES = frozenset({"I", "User", "Assistant", "Spanish", "Portuguese", "Pomodoro"})
_PLACE_BEFORE = frozenset({"in", "to", "from", "near"})
# Fields that hold times, ids or labels, never an entity.
_STRUCTURAL = frozenset({
    "at", "start", "end", "valid_from", "stated_at", "deadline", "valid_at", "id", "qid",
    "namespace", "style", "kind", "fact_id", "fact_type", "category", "type", "split",
    "crel", "rel", "verb", "verbed", "mode", "done", "late", "expect_visible", "plan_state",
    "event_over",
})


# -- the dev entities ------------------------------------------------------------------------------


@dataclass
class Lexicon:
    """Dev's entities by kind (insertion ordered, so a seed gives the same mapping)."""

    kinds: dict[str, dict[str, None]] = field(default_factory=dict)
    pref_pairs: dict[tuple[str, str], None] = field(default_factory=dict)
    objects: dict[tuple[str, str], None] = field(default_factory=dict)
    plans: dict[str, str] = field(default_factory=dict)  # plan -> its verb

    def add(self, kind: str, value: object) -> None:
        if isinstance(value, str) and value:
            self.kinds.setdefault(kind, {})[value] = None

    def all(self) -> set[str]:
        """Every dev entity string."""
        out = {v for values in self.kinds.values() for v in values}
        out |= {v for pair in self.pref_pairs for v in pair}
        out |= {v for pair in self.objects for v in pair}
        return out | set(self.plans)


_VALUE_KIND = {
    "residence": "city", "hometown": "city", "employer": "employer", "pet": "pet",
    "car": "car", "phone": "phone", "allergy": "allergen", "diet": "diet", "hobby": "hobby",
    "title": "title", "family": "person", "appointment": "weekday", "departure": "time",
}
# Value kinds that stay (numbers, dates, "single"): their entities, if any, are in params.
_KEPT_VALUES = frozenset({"count", "child_age", "birthday", "pref", "plan", "relationship"})
_PARTNER = re.compile(r"^(?:seeing|engaged to|married to)\s+(.+)$")
_CAPITALISED = re.compile(r"(?<![\w'])[A-Z][\w-]*")


def dev_lexicon(personas: Sequence[Mapping[str, Any]],
                questions: Sequence[Mapping[str, Any]]) -> Lexicon:
    """Every entity of the split by kind, from the facts and the texts."""
    lex = Lexicon()
    for p in personas:
        lex.add("person", p["name"])
        for f in p["facts"]:
            ftype, params = f["fact_type"], f["params"]
            for v in f["versions"]:
                value = v.get("value")
                if ftype in _VALUE_KIND:
                    lex.add(_VALUE_KIND[ftype], value)
                elif ftype == "relationship" and isinstance(value, str):
                    partner = _PARTNER.match(value)
                    if partner:
                        lex.add("person", partner.group(1))
                elif ftype == "plan":
                    lex.plans.setdefault(value, params.get("verb", "renew"))
                elif ftype not in _KEPT_VALUES:
                    raise ValueError(f"fact type {ftype!r} is unknown to mcshift: map it")
            if ftype == "pref":
                lex.pref_pairs.setdefault(tuple(sorted((params["a"], params["b"]))), None)
            elif ftype == "count":
                lex.objects.setdefault((params["obj"], params["objs"]), None)
            lex.add("person", params.get("c"))
            lex.add("city", params.get("dest"))
            lex.add("species", params.get("species"))
            lex.add("species", params.get("species2"))
            lex.add("appointment", params.get("appt"))
    for word, place in _distractor_proper_nouns(personas, questions, lex):
        lex.add("city" if place else "person", word)
    return lex


def _texts(personas: Sequence[Mapping[str, Any]],
           questions: Sequence[Mapping[str, Any]]) -> Iterable[str]:
    for p in personas:
        for st in p["statements"]:
            yield st["text"]
    for q in questions:
        yield q["question"]


def _distractor_proper_nouns(personas: Sequence[Mapping[str, Any]],
                             questions: Sequence[Mapping[str, Any]],
                             lex: Lexicon) -> list[tuple[str, bool]]:
    """(word, is a place) for the capitalised words no fact names that are proper nouns: one
    that occurs mid-sentence at least once, or opens a sentence as a possessive ("Tomasz's")
    and is never written lower-case; a month with no day after it ("My friend June") is a
    name. A word only ever capitalised at a sentence's start is an ordinary word."""
    texts = list(_texts(personas, questions))
    known = {w for entity in lex.all() for w in entity.split()}
    known |= set(WEEKDAYS) | NOT_ENTITIES
    lower = {w for text in texts for w in re.findall(r"(?<![\w'])[a-z]\w*", text)}
    found: dict[str, bool] = {}
    for text in texts:
        for m in _CAPITALISED.finditer(text):
            word = m.group()
            if word in known:
                continue
            before = text[: m.start()].rstrip()
            after = text[m.end():]
            if word in MONTHS:
                if re.match(r"\s+\d", after) or before.lower().endswith(("in", "since", "of")):
                    continue  # the month
            elif (not before or before[-1] in ".!?:'\"") and not (
                    after.startswith("'s") and word.lower() not in lower):
                continue  # a sentence's first word
            previous = before.split()[-1].lower() if before else ""
            found[word] = found.get(word, False) or previous in _PLACE_BEFORE
    return sorted(found.items())


# -- the mapping ----------------------------------------------------------------------------------


def _derangement(items: Sequence[str], rng: random.Random) -> list[str]:
    """A shuffle of ``items`` that moves every one."""
    while True:
        out = list(items)
        rng.shuffle(out)
        if all(a != b for a, b in zip(items, out, strict=True)):
            return out


def _times(dev_times: Sequence[str], rng: random.Random) -> dict[str, str]:
    """Each dev time ("6am") to the same hour with minutes, half of them on a 24-hour clock
    ("6:40am", "18:40"), no two alike."""
    out: dict[str, str] = {}
    used: set[str] = set()
    for t in dev_times:
        m = re.fullmatch(r"(\d{1,2})(am|pm)", t)
        if m is None:
            raise ValueError(f"a departure time mcshift cannot read: {t!r}")
        hour, half = int(m.group(1)), m.group(2)
        h24 = hour % 12 + (12 if half == "pm" else 0)
        while True:
            minute = rng.choice((5, 10, 15, 20, 25, 35, 40, 45, 50, 55))
            new = (f"{h24:02d}:{minute:02d}" if rng.random() < 0.5
                   else f"{hour}:{minute:02d}{half}")
            if new not in used:
                break
        used.add(new)
        out[t] = new
    return out


def _pick(kind: str, dev: Sequence[str], pool: Sequence[str],
          rng: random.Random) -> dict[str, str]:
    if len(pool) < len(dev):
        raise ValueError(f"the {kind} pool has {len(pool)} entries for {len(dev)} dev ones")
    chosen = rng.sample(list(pool), len(dev))
    return dict(zip(dev, chosen, strict=True))


def mapping(lex: Lexicon, seed: int) -> dict[str, str]:
    """Every dev entity to its replacement: injective, the same for the same lexicon and seed."""
    rng = random.Random(seed)
    pools: dict[str, Sequence[str]] = {
        "person": PEOPLE, "city": CITIES, "employer": EMPLOYERS, "pet": PET_NAMES,
        "species": PET_SPECIES, "car": CARS, "phone": PHONES, "allergen": ALLERGENS,
        "diet": DIETS, "hobby": HOBBIES, "title": TITLES, "appointment": APPOINTMENTS,
    }
    out: dict[str, str] = {}
    for kind, pool in pools.items():
        out |= _pick(kind, list(lex.kinds.get(kind, {})), pool, rng)
    out |= dict(zip(WEEKDAYS, _derangement(WEEKDAYS, rng), strict=True))
    out |= _times(list(lex.kinds.get("time", {})), rng)
    pairs = list(lex.pref_pairs)
    for dev_pair, new_pair in zip(pairs, rng.sample(list(PREF_PAIRS), len(pairs)), strict=True):
        out |= dict(zip(dev_pair, new_pair, strict=True))
    objects = list(lex.objects)
    for (one, many), (new_one, new_many) in zip(
            objects, rng.sample(list(OBJECTS), len(objects)), strict=True):
        out[one], out[many] = new_one, new_many
    free = {verb: list(rng.sample(list(pool), len(pool))) for verb, pool in PLANS.items()}
    for plan, verb in lex.plans.items():
        out[plan] = free[verb].pop() if free.get(verb) else free["renew"].pop()
    # Weekdays are a closed set: they are permuted, the only entities that may recur.
    clash = sorted((set(out.values()) - set(WEEKDAYS)) & lex.all())
    if clash:
        raise ValueError(f"replacements that are dev entities: {clash}")
    if len(set(out.values())) != len(out):
        raise ValueError("two dev entities got the same replacement")
    return out


class Shifter:
    """Whole-word, longest-first, one-pass replacement of dev entities in a text."""

    def __init__(self, table: Mapping[str, str]) -> None:
        self.table: dict[str, str] = {}
        for old, new in table.items():
            self.table[old] = new
            # A lower-case entity can open a sentence ("Physio appointment moved ...").
            if old[:1].islower():
                self.table.setdefault(old[:1].upper() + old[1:], new[:1].upper() + new[1:])
        alternatives = []
        for old in sorted(self.table, key=lambda s: (-len(s), s)):
            alt = re.escape(old)
            if old in MONTHS:  # a name that is also a month: not in a date ("June 26")
                alt += r"(?!\s+\d)"
            alternatives.append(alt)
        self.pattern = re.compile(r"(?<![\w-])(?:" + "|".join(alternatives) + r")(?![\w-])")

    def text(self, s: str) -> str:
        out = self.pattern.sub(lambda m: self.table[m.group()], s)
        # "I work at Brightwater Inc.." -> one full stop
        return re.sub(r"(Inc|Co|St)\.\.", r"\1.", out)

    def value(self, v: Any, key: str | None = None) -> Any:
        """Every string in ``v`` shifted, but the fields that hold no entity."""
        if key in _STRUCTURAL:
            return v
        if isinstance(v, str):
            return self.text(v)
        if isinstance(v, list):
            return [self.value(x) for x in v]
        if isinstance(v, dict):
            return {k: self.value(x, k) for k, x in v.items()}
        return v


def _slug(name: str) -> str:
    plain = unicodedata.normalize("NFKD", name.lower())
    plain = "".join(c for c in plain if not unicodedata.combining(c))
    return re.sub(r"[^a-z0-9]+", "-", plain).strip("-")


def shift(personas: Sequence[Mapping[str, Any]], questions: Sequence[Mapping[str, Any]],
          seed: int, lexicon: Lexicon | None = None
          ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, str]]:
    """The shifted personas and questions, and the mapping used. ``lexicon`` defaults to the
    one read from ``personas`` and ``questions`` (pass the whole split's to shift a slice as the
    whole split is shifted)."""
    lex = lexicon if lexicon is not None else dev_lexicon(personas, questions)
    table = mapping(lex, seed)
    shifter = Shifter(table)
    renamed: dict[str, str] = {}
    out_personas = []
    for p in personas:
        new = shifter.value(dict(p))
        number = p["namespace"].split("-")[1] if p["namespace"].count("-") >= 2 else "000"
        ns = f"shift{seed}-{number}-{_slug(new['name'])}"
        renamed[p["namespace"]] = ns
        new["namespace"], new["split"] = ns, f"shift-{seed}"
        for st in new["statements"]:
            st["id"] = ns + st["id"][len(p["namespace"]):]
        out_personas.append(new)
    out_questions = []
    for q in questions:
        if q["namespace"] not in renamed:
            continue
        new = shifter.value(dict(q))
        ns = renamed[q["namespace"]]
        new["namespace"], new["qid"] = ns, ns + q["qid"][len(q["namespace"]):]
        out_questions.append(new)
    return out_personas, out_questions, table


README = """# mc shifted copy (seed {seed})

The mc-dev split with every entity replaced: made by `python -m ops.bench.mcshift --seed {seed}`
from `{source}`. Same timelines, times, question types and gold as dev; persona names and the
people around them, cities, employers, pets, cars, phones, allergens, diets, hobbies, job titles,
preferences, owned objects, plans and appointments replaced consistently in every field
(statement texts, `value`, `also`, facts, questions, `expected_value`, `outdated_values`) from
the pools in `ops/bench/mcshift.py`, none of which occurs in dev; weekdays permuted, departure
times rewritten with minutes ("6am" -> "18:40"). Run the benchmark on it with
`python -m ops.bench.mc --data THIS_DIR`. Its figures, set beside dev's, show how much of them
dev's own entities earn. {n_personas} personas, {n_questions} questions, {n_entities} entities
replaced.
"""


def write(out: Path, personas: Sequence[Mapping[str, Any]],
          questions: Sequence[Mapping[str, Any]], *, seed: int, source: Path,
          n_entities: int) -> None:
    """The shifted split as scenarios.jsonl, questions.jsonl and README.md in ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    for name, rows in (("scenarios.jsonl", personas), ("questions.jsonl", questions)):
        with open(out / name, "w", encoding="utf-8") as f:
            for row in rows:
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
    (out / "README.md").write_text(README.format(
        seed=seed, source=source, n_personas=len(personas), n_questions=len(questions),
        n_entities=n_entities), encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ops.bench.mcshift", description=__doc__)
    parser.add_argument("--out", required=True, help="folder to write the shifted split to")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--data", help="the dev split (default: the mc benchmark's)")
    parser.add_argument("--personas", type=int, help="only the first N personas")
    args = parser.parse_args(argv)
    source = resolve_data_dir(args.data)
    if not (source / "scenarios.jsonl").is_file():
        print(f"no mc data at {source}; pass --data DIR", file=sys.stderr)
        return 2
    personas = read_jsonl(source / "scenarios.jsonl")
    questions = read_jsonl(source / "questions.jsonl")
    lex = dev_lexicon(personas, questions)
    chosen = personas if args.personas is None else personas[: args.personas]
    new_personas, new_questions, table = shift(chosen, questions, args.seed, lex)
    write(Path(args.out), new_personas, new_questions, seed=args.seed, source=source,
          n_entities=len(table))
    print(f"{len(new_personas)} personas, {len(new_questions)} questions, {len(table)} entities "
          f"replaced -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
