"""How one clause reads as claims: its subject, its auxiliaries, then its predicate; and the
words and value readers the clause grammar is written in.

:func:`read_clause` reads a clause (a span of tokens between cuts) into :class:`Claim` tuples: the
subject (a name, "I", a possessed noun), what the auxiliaries say (negation, copula, perfect,
past), then the predicate that names the attribute and its value. The grammar is described in
:mod:`eventmem.policies.conflict.detect`, which cuts a text into clauses, keeps the claims of its
statements and compares them; kept apart because reading a clause and comparing claims are two
ideas, and the grammar alone is most of the code.
"""

from __future__ import annotations

import re
from typing import Final, NamedTuple

from eventmem.text.lazyre import lazy_re

# The words contradiction detection knows, and the readers of the values claims hold.
#
# Vocabulary (clause cuts, auxiliaries, states, countable nouns, numbers, months, stop words of a
# value) and the small readers built on it: a number ("twenty-five"), a day, a date ("3rd of May,
# 2024"), a noun phrase. Kept in this section, ahead of the clause grammar, so that the grammar
# reads as rules, not word lists. What the words mean for a claim is described in
# :mod:`eventmem.policies.conflict.detect`; a change here changes its claims, so it goes with a
# new :data:`~eventmem.policies.conflict.detect.CONFLICT_VERSION`.

def _words(s: str) -> frozenset[str]:
    return frozenset(s.split())


APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "ʼ": "'", "`": "'"})
# Contractions split at the apostrophe ("don't" -> "don", "'t"; "Alice's" -> "alice", "'s"); the
# grammar below knows both pieces, so no token is rewritten.
TOKEN = lazy_re(r"\w+(?:-\w+)*|'\w+|[^\w\s]")
_ISO = lazy_re(r"(\d{4})-(\d\d)-(\d\d)", re.ASCII)
SENTENCE_END = frozenset(".!?")
_CLAUSE_END = frozenset(".!?,;:")
_CUT = _words("and but or so because cause while though although then when whenever if unless "
              "until before after whether once since")  # fmt: skip
CUTS = _CUT | frozenset("!\"#$%&'()*+,./:;<=>?@[\\]^_`{|}~—–“”«»¿¡…•")  # end a clause
FRAMED = _words("when whenever if unless until before after whether once")  # not assertions
INHERIT = _words("and but then")
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
NOT_NAME = _words(
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


def read_day(w: str) -> int | None:
    """The day number a token writes ("3", "03", "21st": one or two digits, an ordinal suffix
    allowed), else None."""
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
        month, day, year, i = _MONTHS[w], read_day(lo[i + 1]) or 0, 0, i + 2
    elif (day := read_day(w) or 0) and i + 1 < end:
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


class Claim(NamedTuple):
    """One thing a clause says about ``subject``: the value of a single-valued attribute
    (``single``; "lives_in" "paris"), or whether a boolean attribute holds (``positive``;
    "likes:coffee"), with the change marker the clause carried."""

    subject: str
    family: str  # the attribute, or for boolean claims its verb ("likes"), object in `value`
    value: str
    positive: bool
    marker: str  # "", "moved", "switched", "no longer", "now"
    single: bool


class _Clause(NamedTuple):
    subject: str
    noun: str  # the possessed noun ("birthday", "favorite color") or ""
    at: int


def _subject(lo: list[str], orig: list[str], i: int, end: int) -> _Clause | None:
    w = lo[i]
    if w in ("i", "we"):
        return _Clause("self" if w == "i" else "we", "", i + 1)
    if w in ("im", "ive"):  # chat spelling of "I'm", "I've": the auxiliary is read next
        return _Clause("self", "", i)
    if w in ("my", "our"):
        return _possessed("self" if w == "my" else "we", lo, i + 1, end)
    if w == "the" and i + 2 < end and lo[i + 1] in _EVENTS:
        return _Clause("the " + lo[i + 1], lo[i + 1], i + 2)
    if orig[i][0].isupper() and w.isalpha() and w not in NOT_NAME:
        j = i + 1
        if j < end and orig[j][0].isupper() and lo[j].isalpha() and lo[j] not in NOT_NAME:
            j += 1
        name = " ".join(lo[i:j])
        if j + 1 < end and lo[j] == "'s" and (
            lo[j + 1] not in _STATES and lo[j + 1] not in _ADVERBS and _number(lo[j + 1]) is None
            and lo[j + 1] not in ("not", "never", "no", "a", "an", "from", "based", "been")
        ):  # "Alice's car" is a possessive; "Alice's married" / "Alice's 30" is "Alice is"
            return _possessed(name, lo, j + 1, end)
        return _Clause(name, "", j)
    return None


def _possessed(owner: str, lo: list[str], i: int, end: int) -> _Clause | None:
    if i >= end:
        return None
    w = lo[i]
    if w in ("favorite", "favourite") and i + 1 < end:
        return _Clause(owner, "favorite:" + lo[i + 1], i + 2)
    if w in _RELATIONS:
        return _Clause(f"{owner}'s {w}", "", i + 1)
    return _Clause(owner, w, i + 1)


class _Aux(NamedTuple):
    at: int  # the token after the auxiliaries: the predicate
    neg: bool  # not, never, no longer, used to
    cop: bool  # am/is/are/been: the predicate is an adjective, a participle or a number
    have: bool  # perfect: "has lived"
    was: bool  # past copula: only "was born" and event dates are read
    can: bool  # "can't stand"
    marker: str


def _aux(lo: list[str], i: int, end: int, marker: str) -> _Aux:
    """Skip auxiliaries, negations and adverbs; note what they say about the predicate."""
    neg = cop = have = was = can = False
    while i < end:
        w = lo[i]
        nxt = lo[i + 1] if i + 1 < end else ""
        effect = _AUX.get(w)
        if w in ("have", "has", "'ve", "ive", "got") and (
            _number(nxt) is not None or nxt in _COUNTABLE or nxt in ("no", "any")
        ):
            break  # "have" is the main verb: a count
        if effect is not None:
            neg, cop = neg or "n" in effect, cop or "c" in effect
            have, was = have or "h" in effect, was or "w" in effect
        elif w == "no" and nxt == "longer":
            neg, marker, i = True, "no longer", i + 1
        elif w == "now":
            marker = marker or "now"
        elif w == "got" and nxt in _STATES:
            cop = True
        elif w == "used" and nxt == "to":
            neg, i = True, i + 1
        elif w in ("can", "cant") and (w == "cant" or nxt in ("not", "'t")):
            can, neg = True, neg or w == "cant"
        else:
            break
        i += 1
    return _Aux(i, neg, cop, have, was, can, marker)


_Said = tuple[str, str, bool, bool, str]  # family, value, single, positive, marker


def _noun_claims(noun: str, lo: list[str], orig: list[str], end: int, x: _Aux) -> list[_Said]:
    """Claims about a possessed or definite noun: "my birthday is May 3", "the meeting is
    cancelled", "Alice's car is red", "the party was moved to Friday"."""
    i = x.at
    w, nxt = lo[i], lo[i + 1] if i + 1 < end else ""
    if w in ("moved", "rescheduled", "pushed") and nxt in ("to", "for", "until") and not x.neg:
        return [("date:" + noun, _date(lo, i + 2, end) or "", True, True, "moved")]
    if not (x.cop or x.was) or x.neg:
        return []
    if (noun in _EVENTS or noun == "birthday") and (
        date := _date(lo, i + (w in ("on", "for")), end)
    ):
        return [("date:" + noun, date, True, True, x.marker)]
    if x.was:
        return []
    if noun == "age" and (n := _number(w)) is not None:
        return [("age", str(n), True, True, x.marker)]
    if noun in _EVENTS and w in _EVENT_STATUS:
        return [("status", _EVENT_STATUS[w], True, True, x.marker)]
    if noun == "name" or noun.startswith("favorite:"):
        return [(noun, _value(lo, orig, i, end, False)[0], True, True, x.marker)]
    if w in _COLORS:
        return [("color:" + noun, w, True, True, x.marker)]
    return []


def _verb_claims(lo: list[str], orig: list[str], end: int, x: _Aux) -> list[_Said]:
    """Claims of a person subject: the predicate at ``x.at`` and what follows it."""
    i, pos, m = x.at, not x.neg, x.marker
    w, nxt = lo[i], lo[i + 1] if i + 1 < end else ""
    if x.was:  # past: only the birth date or place is a lasting fact
        if w != "born" or nxt not in ("on", "in") or x.have or x.neg:
            return []
        date = _date(lo, i + 2, end)
        if date:
            return [("date:birthday", date, True, True, m)]
        return [("born_in", _value(lo, orig, i + 2, end, True)[0], True, True, m)]
    if x.cop:  # "am living in", "am based in", "am 30", "am married", "am a big fan of"
        if w in ("living", "residing", "based") and nxt == "in":
            return [("lives_in", _value(lo, orig, i + 2, end, True)[0], True, pos, m)]
        if (w == "working" and nxt in ("at", "for")) or (w == "employed" and nxt in ("at", "by")):
            return [("works_at", _value(lo, orig, i + 2, end, True)[0], True, pos, m)]
        if w == "from":
            return [("from", _value(lo, orig, i + 1, end, True)[0], True, pos, m)]
        if w == "using":
            obj = _value(lo, orig, i + 1, end, False)[0]
            return [("uses:" + obj, "", False, pos, m)] if obj else []
        if (n := _number(w)) is not None and 0 < n < 130 and _ends_age(lo, i, end):
            return [("age", str(n), True, pos, m)]
        state = w if w in _STATES else nxt if w in ("a", "an") and nxt in _STATES else ""
        j = i + 1 if w in _STATES else i + 2
        if state and (j == end or lo[j] in _STATE_END):
            said: list[_Said] = [("is:" + state, "", False, pos, m)]
            if state in _MARITAL and pos:  # married, single, divorced... exclude one another
                said.append(("marital_status", state, True, True, m))
            return said
        j = i + (w in ("a", "an")) + (lo[i + (w in ("a", "an"))] in ("big", "huge"))
        if j + 2 < end and lo[j] == "fan" and lo[j + 1] == "of":
            obj = _value(lo, orig, j + 2, end, False)[0]
            return [("likes:" + obj, "", False, pos, m)] if obj else []
        return []
    if (w in ("live", "lives", "reside", "resides") or (w == "lived" and x.have)) and nxt == "in":
        return [("lives_in", _value(lo, orig, i + 2, end, True)[0], True, pos, m)]
    if (w in ("work", "works") or (w == "worked" and x.have)) and nxt in ("at", "for"):
        return [("works_at", _value(lo, orig, i + 2, end, True)[0], True, pos, m)]
    if w in _LIKE or (w == "stand" and x.can and x.neg):
        obj = _value(lo, orig, i + 2 if nxt == "to" else i + 1, end, False)[0]
        likes = _LIKE[w] != x.neg if w in _LIKE else False  # "can't stand" is a dislike
        return [("likes:" + obj, "", False, likes, m)] if obj else []
    if w in _HABITS:
        obj = _value(lo, orig, i + 1, end, False)[0]
        family = _HABITS[w]
        if obj or (family in _BARE_HABITS and (i + 1 == end or lo[i + 1] in _STOP)):
            return [(f"{family}:{obj}" if obj else family, "", False, pos, m)]
        return []
    if w in ("have", "has", "got"):
        counted = _count(lo, i + 1, end, x.neg)
        return [("count:" + counted[0], counted[1], True, True, m)] if counted else []
    if x.neg:  # the change verbs below are not negated in practice ("I never moved to Paris")
        return []
    if w in ("moved", "relocated", "switched") and nxt in ("to", "from", "back", "over"):
        source, target = _moved(lo, orig, i + 1, end)
        if not target:
            return []
        if w == "switched":  # a different thing in use: "switched from Windows to Linux"
            said = [("uses:" + target, "", False, True, "switched")]
            return [*said, ("uses:" + source, "", False, False, "switched")] if source else said
        said = [("lives_in", target, True, True, "moved")]
        return [*said, ("lives_in", source, True, False, "moved")] if source else said
    if w == "joined" and nxt and orig[i + 1][0].isupper():  # an organization has a capitalized name
        return [("works_at", _value(lo, orig, i + 1, end, True)[0], True, True, m)]
    if w == "turned" and (n := _number(nxt)) is not None and 0 < n < 130:
        return [("age", str(n), True, True, m)] if _ends_age(lo, i + 1, end) else []
    return []


def _ends_age(lo: list[str], i: int, end: int) -> bool:
    """Whether the number at ``i`` is an age: "30 years old", "30." but not "one of", "100%"."""
    if i + 1 < end:
        return lo[i + 1] in _AGE_END
    return lo[i].isdecimal() and (end == len(lo) or lo[end] in _CLAUSE_END)


def read_clause(lo: list[str], orig: list[str], i: int, end: int, inherit: str,
            out: list[Claim]) -> str:  # fmt: skip
    """Append the claims of the clause ``lo[i:end]`` to ``out``. Returns its subject when the
    clause made a claim about a person, for a following "and ..." clause to inherit."""
    marker = ""
    while i < end and lo[i] in _DISCOURSE:
        marker = "now" if lo[i] == "now" else marker
        i += 1
    if i + 2 < end and lo[i] == "i" and lo[i + 1] in _FRAMES:  # "I think Alice lives in Rome"
        i += 3 if lo[i + 2] == "that" else 2
    if i >= end:
        return ""
    head = _subject(lo, orig, i, end) or (_Clause(inherit, "", i) if inherit else None)
    if head is None:
        return ""
    if not marker and "now" in lo[head.at : end]:  # "I live in Paris now"
        marker = "now"
    x = _aux(lo, head.at, end, marker)
    if x.at >= end:
        return ""
    noun = head.noun
    said = _noun_claims(noun, lo, orig, end, x) if noun else _verb_claims(lo, orig, end, x)
    before = len(out)
    for family, value, single, positive, mark in said:
        if value or not single:
            out.append(Claim(head.subject, family, value, positive, mark, single))
    return head.subject if len(out) > before and not head.noun else ""


def _moved(lo: list[str], orig: list[str], i: int, end: int) -> tuple[str, str]:
    """(source, target) of "moved/switched [back|over] [from X] to Y"; "" where absent."""
    if lo[i] in ("back", "over"):
        i += 1
    source = ""
    if i < end and lo[i] == "from":
        source, i = _value(lo, orig, i + 1, end, True)
    if i >= end or lo[i] != "to":
        return "", ""
    return source, _value(lo, orig, i + 1, end, True)[0]


def _count(lo: list[str], i: int, end: int, neg: bool) -> tuple[str, str] | None:
    """(noun, value) of "2 kids", "two little kids", "no kids", "[not] any kids", "kids"."""
    w = lo[i] if i < end else ""
    n = 0 if w in ("no", "any") else _number(w)
    j = i if n is None else i + 1
    if j + 1 < end and lo[j] not in _COUNTABLE and lo[j + 1] in _COUNTABLE:
        j += 1  # one adjective: "two little kids"
    if j >= end or lo[j] not in _COUNTABLE or (n is None and j != i):
        return None
    if neg and n:
        return None  # "I don't have 3 kids" says little
    if neg or n == 0:
        return _COUNTABLE[lo[j]], "0"
    return _COUNTABLE[lo[j]], ">0" if n is None else str(n)
