"""Where the names are in a text, and what type their own words or their context give them.

:func:`name_runs` finds the spans of candidate names (runs of capitalized words, their connectors,
titles and initials; a single word that opens a sentence only tentatively), :func:`name_info`
keys and types a name from its words, and :func:`name_context` types a masked name from the words
around it ("Hey Mel", "moved to X"). The rules are described in
:mod:`eventmem.policies.extract.relations`, which combines these cues with the relations; kept apart
because finding a name is a different question from what the text states about it.
"""

from __future__ import annotations

import functools
from typing import Final

from eventmem.policies.extract.lexicon import (
    CONCEPT_SUFFIXES,
    CONNECTORS,
    CONTRACTED,
    GAZETTEER,
    HEADS,
    PREFIX_HEADS,
    STOP,
    TITLES,
    entity_key,
    word_list,
)
from eventmem.policies.extract.patterns import ROLES
from eventmem.text.lazyre import lazy_re

# --- scanning ---------------------------------------------------------------------------------
_CAP = lazy_re(r"[A-Z\u00c0-\U0010ffff][\w'’.\-]*")  # then checked: isupper, word start
_JOIN = lazy_re(r"[ \t]+(?:(?:of|de|da|del|della|di|du|van|von|der|den|la|le|al|bin|y|&)"
                   r"(?:[ \t]+the)?[ \t]+)?")  # fmt: skip
_TITLE_JOIN = lazy_re(r"\.?[ \t]+")
_NUMBER = lazy_re(r"[ \t]+[0-9]{1,4}\b(?![.,:/%][0-9])")
_DIGIT = lazy_re(r"[0-9]")
_HEAD_ONLY: Final = HEADS.keys() | PREFIX_HEADS.keys() | TITLES  # "the Park": no name
_LEAD: Final = frozenset(" \t\r\n\"'“‘([*-–—")
_ABBREVS: Final = frozenset(word_list("mr mrs ms mx dr prof st mt jr sr inc ltd co corp vs etc"))


def _initial(text: str, a: int) -> bool:
    """Does the word at ``a`` open a sentence (text start, line break, or . ! ? : before it)?"""
    i = a - 1
    while i >= 0 and text[i] in _LEAD:
        if text[i] == "\n":
            return True
        i -= 1
    if i < 0 or text[i] in "!?…:":  # ":" after a speaker label: "Jon: Agreed, ..."
        return True
    if text[i] != ".":
        return False
    j = i
    while j > 0 and text[j - 1].isalpha():
        j -= 1
    word = text[j:i]
    return not (word.casefold() in _ABBREVS or (len(word) == 1 and word.isupper()))


@functools.lru_cache(maxsize=4096)  # pure; names recur (the same people in every memory)
def name_info(name: str) -> tuple[str, str | None]:
    """A name's key, and the type its own words give it, if any."""
    key = entity_key(name)
    kind = GAZETTEER.get(key)
    if kind or not key:
        return key, kind
    words = [w for w in name.split() if w not in CONNECTORS and w not in ("&", "the")]
    last, first = words[-1].casefold(), words[0].casefold().rstrip(".")
    if last in HEADS:
        return key, HEADS[last]
    if first in PREFIX_HEADS and len(words) > 1:
        return key, PREFIX_HEADS[first]
    if first in TITLES:
        return key, "person"
    if any(_DIGIT.search(w) or w[0].islower() for w in words):
        return key, "product"
    if last.endswith(CONCEPT_SUFFIXES) and len(last) > 5:
        return key, "concept"
    return key, None


def name_runs(text: str) -> list[tuple[int, int, bool]]:
    """Name spans of the text: (start, end, tentative)."""
    runs: list[tuple[int, int, list[str], bool]] = []
    cur: list[str] = []
    cur_start = cur_end = 0
    caps: list[int] = []
    last_upper = -1
    for m in _CAP.finditer(text):
        tok, a = m.group(), m.start()
        if not (tok[0].isupper() or tok[0].istitle()):
            continue
        if a and (text[a - 1].isalnum() or text[a - 1] in "_'’"):
            j = a  # inside a word: only camel case counts ("iPhone", "eBay")
            while j and "a" <= text[j - 1] <= "z":
                j -= 1
            if j == a or (j and (text[j - 1].isalnum() or text[j - 1] in "_'’")):
                continue
            a, tok = j, text[j:m.end()]
        if tok[-1] in ".-'’":
            tok = tok.rstrip(".-'’")
        caps.append(a)
        upper = len(tok) > 1 and tok.isupper()  # an acronym, unless its neighbour shouts too
        shout = upper and last_upper >= 0 and text[last_upper:a].isspace()
        last_upper = a + len(tok) if upper else -1
        if shout:
            if cur and cur[-1].isupper():
                cur = []
            continue
        if "'" in tok or "’" in tok:
            q = max(tok.rfind("'"), tok.rfind("’"))
            tail = tok[q + 1:].lower()
            if tail in CONTRACTED:
                continue
            if tail == "s":
                tok = tok[:q]
        low = tok.casefold()
        if low in STOP:
            continue
        b = a + len(tok)
        if cur and (_JOIN.fullmatch(text, cur_end, a) or (
                (len(cur[-1]) == 1 or cur[-1].casefold() in TITLES)  # "Dr. Who", "J. K. Rowling"
                and _TITLE_JOIN.fullmatch(text, cur_end, a))):
            cur.append(tok)
            cur_end = b
            continue
        if cur:
            runs.append((cur_start, cur_end, cur, _initial(text, cur_start)))
        cur, cur_start, cur_end = [tok], a, b
    if cur:
        runs.append((cur_start, cur_end, cur, _initial(text, cur_start)))
    # Mostly capitalized text is a title or shouting: its capitals say nothing.
    if len(caps) >= 4 and len(caps) * 10 >= 6 * (text.count(" ") + 1):  # ~ words, cheaply
        inner = sum(not _initial(text, a) for a in caps)
        if inner >= 4 and inner * 10 >= 6 * len(text.split()):
            return []
    out: list[tuple[int, int, bool]] = []
    for a, b, words, initial in runs:
        num = _NUMBER.match(text, b)
        if num:  # "iPhone 15": never a lone word, never tentative
            out.append((a, num.end(), False))
        elif len(words) <= 6 and (len(words) > 1 or words[0].casefold() not in _HEAD_ONLY) and (
                len(words[-1]) > 1):  # a lone initial ("J."), or "Plan B", is not a name
            out.append((a, b, initial and len(words) == 1))
    return out


# Context cues, read around each masked name: a person addressed or speaking, a place travelled
# to, a product bought.
_GREET: Final = frozenset(word_list(
    "hey hi hello hiya thanks congrats congratulations dear bye sorry "
                          "welcome"))
_GREET2: Final = frozenset(("thank you", "miss you", "love you", "of you", "good job",
                            "take care"))
_SPEAKS: Final = (" said", " says", " told", " tells", " asked", " asks", " texted", " replied",
                  " thinks", " feels", " and me ", " and i are", " and i were", " and i have",
                  " and i've", " and i had", " and i both", " and i went", " and i got",
                  " and i met", " and i will", " and i'll")
_TELL: Final = frozenset(word_list("told tell tells telling asked ask asks texted text texting "
                            "thanked hugged kissed invited reminded"))
_PREPS: Final = frozenset(word_list("to in from around through across near outside at"))
_MOTION: Final = frozenset(word_list(
    """went go goes going gone travelled traveled travelling traveling
    travel travels trip trips moved moving flew fly flying drove driving live lives lived living
    stay stayed staying born raised up based vacation vacationed vacationing holiday headed
    heading arrived arriving visiting touring honeymoon back"""))
_BUY: Final = frozenset(word_list("bought buy buys buying purchased ordered downloaded installed"))
_BUY_FILL: Final = frozenset(word_list("a an the my new brand-new brand some old used"))


def name_context(masked: str, a: int, b: int) -> str | None:
    """The type the words around the masked name at ``masked[a:b]`` suggest, if any."""
    after = masked[b:b + 24]
    if after.startswith("'"):  # "Emily's dad": a person; "Joe's bakery": nothing known
        return "person" if after[3:].split(" ", 1)[0].rstrip(",.!?") in ROLES else None
    if after[1:].split(" ", 1)[0].rstrip(",.!?;:") in HEADS:  # "the Taylor Swift concert"
        return None
    if a == 0 and after.startswith(":"):  # a speaker label, "Caroline: I ..."
        return "person"
    words = masked[max(0, a - 40):a].replace(",", " ").split()[-4:]
    last = words[-1] if words else ""
    if (last in _GREET or last in _TELL or " ".join(words[-2:]) in _GREET2
            or after.startswith(_SPEAKS) or masked.endswith("me and ", 0, a)
            or (masked.endswith(", ", 0, a) and (not after or after[0] in "!?."))):
        return "person"
    if last == "the":
        words.pop()
        last = words[-1] if words else ""
    if last in _PREPS and len(words) > 1 and words[-2] in _MOTION:
        return "place"
    while words and words[-1] in _BUY_FILL:
        words.pop()
    if words and (words[-1] in _BUY or words[-2:] == ["upgraded", "to"]) and not after.startswith(
            (" a ", " an ", " the ", " some ")):
        return "product"
    return None

