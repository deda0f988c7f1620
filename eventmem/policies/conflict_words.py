"""The words contradiction detection knows, and the readers of the values claims hold.

Vocabulary (clause cuts, auxiliaries, states, countable nouns, numbers, months, stop words of a
value) and the small readers built on it: a number ("twenty-five"), a day, a date ("3rd of May,
2024"), a noun phrase. Kept apart from the clause grammar
(:mod:`eventmem.policies.conflict_clauses`) so that the grammar reads as rules, not word
lists. What the words mean for a claim is described in :mod:`eventmem.policies.conflict`; a
change here changes its claims, so it goes with a new
:data:`~eventmem.policies.conflict.CONFLICT_VERSION`.
"""

from __future__ import annotations

import re
from typing import Final


def _words(s: str) -> frozenset[str]:
    return frozenset(s.split())


_APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "ʼ": "'", "`": "'"})
# Contractions split at the apostrophe ("don't" -> "don", "'t"; "Alice's" -> "alice", "'s"); the
# grammar below knows both pieces, so no token is rewritten.
_TOKEN = re.compile(r"\w+(?:-\w+)*|'\w+|[^\w\s]")
_ISO = re.compile(r"(\d{4})-(\d\d)-(\d\d)", re.ASCII)
_SENTENCE_END = frozenset(".!?")
_CLAUSE_END = frozenset(".!?,;:")
_CUT = _words("and but or so because cause while though although then when whenever if unless "
              "until before after whether once since")  # fmt: skip
_CUTS = _CUT | frozenset("!\"#$%&'()*+,./:;<=>?@[\\]^_`{|}~—–“”«»¿¡…•")  # end a clause
_FRAMED = _words("when whenever if unless until before after whether once")  # not assertions
_INHERIT = _words("and but then")
_DISCOURSE = _words("yeah yes yep well oh ah actually also honestly btw anyway anyways lol haha "
                    "hey ok okay wow now currently recently today lately still really just plus "
                    "basically luckily sadly fortunately unfortunately finally though")  # fmt: skip
_FRAMES = _words("think guess believe know heard hear bet")
_ADVERBS = _words("really also still currently just recently actually always usually totally "
                  "absolutely definitely truly honestly genuinely do does even already finally "
                  "officially happily sometimes often mostly mainly originally back")  # fmt: skip
_COPULA = _words("am is are 's 'm 're im isn aren isnt been")
# What an auxiliary says: n negation, c copula, h perfect ("has lived"), w past copula.
_AUX: Final = {w: "c" for w in _COPULA} | {w: "" for w in _ADVERBS} | {
    "not": "n", "never": "n", "'t": "n", "dont": "n", "doesnt": "n", "don": "", "doesn": "",
    "isnt": "cn", "have": "h", "has": "h", "'ve": "h", "ive": "h", "haven": "h", "hasn": "h",
    "was": "w", "were": "w", "wasn": "w", "weren": "w",
}  # fmt: skip
_NOT_NAME = _words(
    "i the this that these those it its there here what when where why how who which my our your "
    "his her their we you he she they me us him them a an and but so or if yes no yeah oh well hey "
    "hi thanks thank wow just also now then today yesterday tomorrow last next every some any all "
    "both each not never maybe sure ok okay lol haha glad great nice cool good sounds awesome "
    "monday tuesday wednesday thursday friday saturday sunday january february march april may "
    "june july august september october november december mom mum dad"
)
_RELATIONS = _words("mom mum mother dad father wife husband spouse partner boyfriend girlfriend "
                    "fiance fiancee fiancé fiancée")  # fmt: skip  # one per person, so a subject
_EVENTS = _words("meeting wedding party appointment interview trip flight exam concert "
                 "birthday anniversary surgery reunion game class ceremony deadline launch")
_EVENT_STATUS: Final = {"cancelled": "cancelled", "canceled": "cancelled", "off": "cancelled",
                        "postponed": "postponed", "delayed": "postponed", "confirmed": "confirmed",
                        "over": "done", "done": "done", "finished": "done"}  # fmt: skip
_MARITAL = _words("married single divorced engaged widowed separated")
_STATES = _MARITAL | _words("vegetarian vegan pescatarian pregnant retired unemployed sober "
                            "smoker religious atheist")  # fmt: skip
_STATE_END = _words("to now anymore again too already yet happily either last this recently since "
                    "for with")  # may follow a state
_COLORS = _words("red blue green yellow black white gray grey brown pink purple orange silver")
_COUNTABLE: Final = {  # what "has 2 ..." counts, each form to one attribute name
    form: noun
    for noun, forms in (("kids", "kid kids child children"), ("sons", "son sons"),
                        ("daughters", "daughter daughters"), ("siblings", "sibling siblings"),
                        ("brothers", "brother brothers"), ("sisters", "sister sisters"),
                        ("grandkids", "grandkids grandchildren"), ("dogs", "dog dogs"),
                        ("cats", "cat cats"), ("pets", "pet pets"), ("cars", "car cars"),
                        ("horses", "horse horses"))
    for form in forms.split()
}  # fmt: skip
_ORDINAL = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
            "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
            "eighteen", "nineteen", "twenty")  # fmt: skip
_TENS = ("thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_NUMBERS: Final = {w: i for i, w in enumerate(_ORDINAL)} | {w: 30 + 10 * i for i, w in
                                                          enumerate(_TENS)}  # fmt: skip
_AGE_END = _words("years year yrs yo old now today already soon")
_MONTH_NAMES = ("january", "february", "march", "april", "may", "june", "july", "august",
                "september", "october", "november", "december")  # fmt: skip
_MONTHS: Final = ({m: i + 1 for i, m in enumerate(_MONTH_NAMES)}
                  | {m[:3]: i + 1 for i, m in enumerate(_MONTH_NAMES)} | {"sept": 9})  # fmt: skip
_MONTH_DAYS = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
_DAY_NAMES = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_WEEKDAYS: Final = {d[:3]: d for d in _DAY_NAMES} | {d: d for d in _DAY_NAMES}
# A value (place, employer, object) ends at these words: prepositions, conjunctions, time words.
_STOP = _CUT | _words(
    "in on at for with from to by near about into during like as than through over around "
    "now anymore today yesterday tomorrow tonight this last next every each ago lately recently "
    "currently already again still too also yet soon there here right anyway originally forever "
    "ever years year months weeks days always usually sometimes often more most much very really "
    "who which that where what lol haha 's either full part is are am was were be been has have "
    "had do does did will would can could should might must"
)
_VAGUE_START = _words(
    "a an another some any my our your his her their its this that these those it them him me "
    "you us what whatever there here home one all everything something anything nothing "
    "everyone everybody someone somebody people myself yourself himself herself ourselves "
    "themselves such same other how why when where who which both being just so not"
)
_GENERIC = _words(  # a place or employer made only of these words is too vague to compare
    "city town country area place house apartment flat neighborhood neighbourhood suburbs "
    "suburb countryside village state region building office company job startup store shop "
    "school middle west east north south coast street road center centre downtown moment time "
    "new big small old local nearby world gym club team group firm business home farm"
)
_LIKE: Final = {"like": True, "likes": True, "love": True, "loves": True, "enjoy": True,
                "enjoys": True, "adore": True, "adores": True, "hate": False, "hates": False,
                "dislike": False, "dislikes": False, "detest": False, "detests": False}  # fmt: skip
_HABITS: Final = {v + s: v + "s" for v in ("drink", "eat", "smoke", "play", "use", "own",
                  "speak", "drive") for s in ("", "s")}  # fmt: skip
_BARE_HABITS = _words("drinks smokes")  # "I don't drink" is a claim without an object


def _number(w: str) -> int | None:
    if w.isascii() and w.isdecimal() and len(w) <= 3:
        return int(w)
    if "-" in w:  # "twenty-five"
        head, _, tail = w.partition("-")
        if head in _NUMBERS and tail in _NUMBERS and _NUMBERS[head] >= 20 > _NUMBERS[tail] > 0:
            return _NUMBERS[head] + _NUMBERS[tail]
    return _NUMBERS.get(w)


def _day(w: str) -> int | None:
    w = w[:-2] if w[-2:] in ("st", "nd", "rd", "th") else w
    return int(w) if w.isascii() and w.isdecimal() and len(w) <= 2 else None


def _date(lo: list[str], i: int, end: int) -> str | None:
    """ "May 3", "3rd of May, 2024", "2024-05-01", "Friday" -> "05-03", "2024-05-03", "friday"."""
    if i < end and lo[i] == "the":
        i += 1
    if i >= end:
        return None
    w = lo[i]
    if w in _WEEKDAYS:
        return _WEEKDAYS[w]
    iso = _ISO.fullmatch(w)
    if iso:
        year, month, day = int(iso[1]), int(iso[2]), int(iso[3])
    elif w in _MONTHS and i + 1 < end:
        month, day, year, i = _MONTHS[w], _day(lo[i + 1]) or 0, 0, i + 2
    elif (day := _day(w) or 0) and i + 1 < end:
        i += 2 if lo[i + 1] == "of" else 1
        month, year = (_MONTHS.get(lo[i], 0), 0) if i < end else (0, 0)
        i += 1
    else:
        return None
    if not iso and i + 1 < end and lo[i] == ",":
        i += 1
    if not iso and i < end and len(lo[i]) == 4 and lo[i].isascii() and lo[i].isdecimal():
        year = int(lo[i])
    if not (1 <= month <= 12 and 1 <= day <= _MONTH_DAYS[month - 1]):
        return None
    return f"{year:04d}-{month:02d}-{day:02d}" if year else f"{month:02d}-{day:02d}"


def _value(lo: list[str], orig: list[str], i: int, end: int, place: bool) -> tuple[str, int]:
    """The noun phrase at ``i`` (articles dropped, at most 4 words) and the index after it; ""
    when it is missing, vague or a pronoun. ``place``: a place or employer, so generic words
    alone ("the city") do not count."""
    if i < end and lo[i] == "the":
        i += 1
    start = i
    while i < end and i - start < 4:
        w = lo[i]
        if w == "of" and i > start and i + 1 < end and orig[i + 1][0].isupper():
            i += 1  # "Bank of America"
            continue
        if w in _STOP or w[0].isdigit() or not w[0].isalnum():
            break
        i += 1
    words = lo[start:i]
    if not words or words[0] in _VAGUE_START or (place and _GENERIC.issuperset(words)):
        return "", i
    return " ".join(words), i
