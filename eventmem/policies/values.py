"""Whether two texts differ in a value: the evidence that a near duplicate is news.

Embeddings (hashed terms or MiniLM) see "I prefer coffee over tea" and "I prefer tea over coffee
now", or "My flight is at 9am" and "... 9pm", as near the same text: the words are nearly the same.
What changed is a value, and a value is information. :func:`value_difference` names the first kind
of value that differs between an old and a new text, or None when they say the same thing (in
other words, or with more words):

``time``      a clock time (9am, 9 pm, 21:00 are one time; 9am and 9pm are two)
``date``      a calendar date, month, year or a relative day (today, tomorrow)
``weekday``   a day of the week
``number``    a number, in digits or words ("3" and "three" are one number)
``entity``    a capitalised name replaced by another (Acme -> Globex, Denver -> Chicago)
``negation``  not, never, no, n't... (a statement and its denial)
``change``    a word saying a fact changed (now, anymore, no longer, switched, moved...), in the
              new text and not in the old (its absence says nothing: a restatement)
``order``     the same words with the arguments of a relation swapped ("X over Y" / "Y over X",
              "A owes B" / "B owes A", "from X to Y" / "from Y to X")

Pure and deterministic: regexes and multisets, no model, no locale.
"""

from __future__ import annotations

import re
from collections import Counter
from itertools import pairwise
from typing import Final, Literal

from eventmem.text.lazyre import lazy_re

ValueKind = Literal["time", "date", "weekday", "number", "entity", "negation", "change", "order"]

VALUES_VERSION: Final = "values-1"

_MONTHS: Final = {
    name: i + 1 for i, names in enumerate([
        ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",),
        ("june", "jun"), ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"),
        ("october", "oct"), ("november", "nov"), ("december", "dec")])
    for name in names
}
_WEEKDAYS: Final = {
    name: i for i, names in enumerate([
        ("monday", "mon"), ("tuesday", "tue", "tues"), ("wednesday", "wed"),
        ("thursday", "thu", "thur", "thurs"), ("friday", "fri"), ("saturday", "sat"),
        ("sunday", "sun")])
    for name in names
}
_RELATIVE_DAYS: Final = frozenset({"today", "tomorrow", "yesterday", "tonight"})
_NUMBER_WORDS: Final = {
    word: i for i, word in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "  # noqa: SIM905
        "fifteen sixteen seventeen eighteen nineteen twenty".split())
} | {"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
     "ninety": 90, "hundred": 100, "thousand": 1_000, "million": 1_000_000,
     "billion": 1_000_000_000, "dozen": 12, "twice": 2, "once": 1,
     "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5}
_NEGATIONS: Final = frozenset(
    "not no never none nobody nothing neither nor without cannot nowhere".split())  # noqa: SIM905
# A change word announces that a fact changed; "no longer" and "any more" are two words.
_CHANGE_WORDS: Final = frozenset(
    "now anymore nowadays switched switch switching changed change changing moved move "  # noqa: SIM905
    "moving relocated relocate instead became become stopped quit longer".split())
# Words a sentence may begin with, capitalised, that name nothing (stopwords aside).
_FUNCTION_WORDS: Final = frozenset("""
    a an the i i'm i've i'd i'll my me we our us you your he his him she her they their them it
    its this that these those there here and but or so if then when while as at in on of to for
    from by with about after before since until also just yes yeah oh ok okay well hi hey hello
    thanks thank please sure what who where why how which is are was were be been do does did
    have has had will would can could should may might must not no never
    """.split())  # noqa: SIM905 - a word list reads better as prose

# A clock time: 9am, 9 pm, 9:30 p.m., 21:00.
_TIME = lazy_re(r"\b(\d{1,2})(?:[:.](\d{2}))?\s*([ap])\.?\s?m\b\.?|\b(\d{1,2}):(\d{2})\b",
                   re.IGNORECASE)
_NOON = lazy_re(r"\b(noon|midday|midnight)\b", re.IGNORECASE)
_ISO_DATE = lazy_re(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b|\b(\d{1,2})/(\d{1,2})(?:/(\d{2,4}))?\b")
_YEAR = lazy_re(r"\b(1[89]\d\d|20\d\d)\b")
_ORDINAL = r"(\d{1,2})(?:st|nd|rd|th)?"
_MONTH_NAME = "|".join(sorted(_MONTHS, key=len, reverse=True))
# A day of a month: "March 3", "3rd of March", "3 March"; the month alone is matched apart.
_DAY_MONTH = lazy_re(
    rf"\b(?:({_MONTH_NAME})\.?\s+{_ORDINAL}\b|{_ORDINAL}\s+(?:of\s+)?({_MONTH_NAME})\b)",
    re.IGNORECASE)
_WORD = lazy_re(r"[^\W_]+(?:['’][^\W_]+)?")
_NUMBER = lazy_re(r"^\d+(?:[.,]\d+)?$")
_SENTENCE_START = lazy_re(r"(?:^|[.!?:;\n]\s*|[\"“(]\s*)$")

_ORDER_WINDOW: Final = 6  # words between two swapped arguments at most
_ORDER_TOKENS: Final = 120  # a long text is compared over its first words only (chat turns)


def value_difference(old: str, new: str) -> ValueKind | None:
    """The kind of value in which ``new`` differs from ``old`` (see the module docstring), or
    None when it differs in none: the same words, other wording or added words."""
    old_rest, old_values = _values(old)
    new_rest, new_values = _values(new)
    for kind in ("time", "date", "weekday", "number"):
        if old_values[kind] != new_values[kind]:
            return kind
    old_words, new_words = _words(old_rest), _words(new_rest)
    # A name replaced by another (in any case: casing alone is no new value): each text says a name
    # the other does not. A name only the new text says is added information, a merge ("works at
    # Acme" -> "works at Acme in Berlin"); one only the old says, a shorter restatement.
    if _entities(old_rest) - set(new_words) and _entities(new_rest) - set(old_words):
        return "entity"
    if _negations(old_words) != _negations(new_words):
        return "negation"
    if _changes(new_words) - _changes(old_words):
        return "change"
    if _swapped(old_words[:_ORDER_TOKENS], new_words[:_ORDER_TOKENS]):
        return "order"
    return None


def announces_change(text: str) -> bool:
    """Whether ``text`` says a fact changed: a change word ("now", "moved", "switched", "no
    longer"...) or a from-to ("went from sales director to research scientist")."""
    words = _words(text)
    return bool(_changes(words)) or _FROM_TO.search(text) is not None


_FROM_TO: Final = lazy_re(r"\bfrom\b.{1,60}?\bto\b|\breplac\w*|\bnew\b|\bpromot\w*",
                             re.IGNORECASE)


def _values(text: str) -> tuple[str, dict[str, Counter[object]]]:
    """The text with its times and dates blanked out, and the multisets of its values."""
    values: dict[str, Counter[object]] = {k: Counter() for k in
                                          ("time", "date", "weekday", "number")}

    def time(match: re.Match[str]) -> str:
        if match.group(3):
            hour, minute = int(match.group(1)) % 12, int(match.group(2) or 0)
            hour += 12 if match.group(3).lower() == "p" else 0
        else:
            hour, minute = int(match.group(4)), int(match.group(5))
        values["time"][(hour, minute)] += 1
        return " "

    def named_time(match: re.Match[str]) -> str:
        values["time"][(0, 0) if match.group(1).lower() == "midnight" else (12, 0)] += 1
        return " "

    def day_month(match: re.Match[str]) -> str:
        month = match.group(1) or match.group(4)
        day = match.group(2) or match.group(3)
        values["date"][(_MONTHS[month.lower()], int(day))] += 1
        return " "

    def numeric_date(match: re.Match[str]) -> str:
        values["date"][match.group(0)] += 1
        return " "

    def year(match: re.Match[str]) -> str:
        values["date"][int(match.group(1))] += 1
        return " "

    text = _TIME.sub(time, text)
    text = _NOON.sub(named_time, text)
    text = _ISO_DATE.sub(numeric_date, text)
    text = _DAY_MONTH.sub(day_month, text)
    text = _YEAR.sub(year, text)
    for match in _WORD.finditer(text):
        word, lower = match.group(0), match.group(0).lower()
        if lower in _WEEKDAYS and (word[0].isupper() or len(lower) > 3):
            values["weekday"][_WEEKDAYS[lower]] += 1
        elif lower in _MONTHS and word[0].isupper() and (len(lower) > 3 or lower == "may"):
            # lower-case "may", "march" are a verb; "Mar" alone may be a name: full names only
            if lower != "may" or not _starts_sentence(text, match.start()):
                values["date"][_MONTHS[lower]] += 1
        elif lower in _RELATIVE_DAYS:
            values["date"][lower] += 1
        elif _NUMBER.match(lower):
            values["number"][float(lower.replace(",", ""))] += 1
        elif lower in _NUMBER_WORDS:
            values["number"][float(_NUMBER_WORDS[lower])] += 1
    return text, values


def _starts_sentence(text: str, at: int) -> bool:
    return bool(_SENTENCE_START.search(text[:at]))


def _entities(text: str) -> set[str]:
    """Capitalised words that name something: not a weekday, month or number word, and at the
    start of a sentence only when they are not a function word ("The", "My", "I")."""
    found: set[str] = set()
    for match in _WORD.finditer(text):
        word = match.group(0)
        lower = word.lower().replace("’", "'")
        if not word[0].isupper() or lower in _WEEKDAYS or lower in _MONTHS \
                or lower in _NUMBER_WORDS or lower in _FUNCTION_WORDS \
                or lower in _RELATIVE_DAYS:
            continue
        found.add(lower)
    return found


def _words(text: str) -> list[str]:
    return [w.lower().replace("’", "'") for w in _WORD.findall(text)]


def _negations(words: list[str]) -> Counter[str]:
    found: Counter[str] = Counter()
    for i, word in enumerate(words):
        if word.endswith("n't") or word == "cannot":
            found["not"] += 1
        elif word in _NEGATIONS and not (word == "no" and i + 1 < len(words)
                                          and words[i + 1] == "longer"):
            found[word] += 1  # "no longer" is a change word, below
    return found


def _changes(words: list[str]) -> set[str]:
    found = {w for w in words if w in _CHANGE_WORDS and w != "longer"}
    for first, second in pairwise(words):
        if (first, second) in (("no", "longer"), ("any", "more")):
            found.add(f"{first} {second}")
    return found


def _swapped(old: list[str], new: list[str]) -> bool:
    """Whether two words of ``old`` stand swapped in ``new`` around the same words between them
    ("coffee over tea" / "tea over coffee"), while the original run is not in ``new``."""
    new_text = f" {' '.join(new)} "
    for i, first in enumerate(old):
        for j in range(i + 2, min(len(old), i + _ORDER_WINDOW + 2)):
            second = old[j]
            if first == second or first in _FUNCTION_WORDS or second in _FUNCTION_WORDS:
                continue
            middle = old[i + 1:j]
            swapped = " ".join([second, *middle, first])
            if f" {swapped} " in new_text and f" {' '.join(old[i:j + 1])} " not in new_text:
                return True
    return False
