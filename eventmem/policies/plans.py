"""When a plan is done: a new text reports doing what an open plan intends.

``completes(plan_text, text)`` compares a plan ("I need to renew my passport by March 3", "Theo
has to book the dentist", "Remind me to file the tax return") with a new text ("Renewed my
passport today", "Dana booked the dentist appointment", "User has filed their tax return",
"Finished the tax return") and returns the :class:`Completion` (the verb, the shared object
words, the rule) or None. Pure and deterministic: no model, no clock.

Decisions a reader might question:

* The plan's action is the verb after its modal ("need to", "has to", "remind me to", "must"...)
  and its object the content words after the verb, time words left out ("by March 3").
* The report must use a past form of the same verb (regular -ed/-d/-ied, doubled consonant, or a
  small table of irregulars), or a generic completion verb ("finished", "completed", "took care
  of"...), and share at least half of the plan's object words (at least one): "renewed my gym
  membership" does not close "renew my passport".
* Subjects agree when neither names someone else: "I", "me", "User", no subject, or a single
  name are all the store's user (extraction rewrites "I" as "User" or the user's name); "my
  sister renewed her passport" closes nothing, nor do two different names. From gate-15, "he"
  or "she" after a sentence that says only whom the speaker met is that person ("Had lunch with
  Olga. He has to submit the abstract" is Olga's). From gate-16, "I'm", "I am", "we're" before
  the modal are the speaker too ("I'm planning to repaint the bedroom", "We're going to sell
  the car"), which the gates before took for someone else's plan, never closed by the user.
* A negated, still-planned or asked text ("haven't renewed it yet", "still need to", "did I
  renew...?") reports nothing done.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Final, NamedTuple

from eventmem.policies import facts
from eventmem.text.lazyre import lazy_re
from eventmem.text.normalize import STOPWORDS

__all__ = ["DONE_RULES", "PLANS_VERSION", "Completion", "completes", "may_report_done",
           "plan_action"]

PLANS_VERSION: Final = "plans-1"
# The rules of a completion, recorded on the supersession that closes the plan: the audit tells
# a plan's closing from the other supersessions of a write item by them (replay.groups).
DONE_VERB: Final = "plan_done_verb"  # a past form of the plan's own verb
DONE_GENERIC: Final = "plan_done_generic"  # a generic completion verb ("finished"...)
DONE_RULES: Final = frozenset({DONE_VERB, DONE_GENERIC})

_MODAL = lazy_re(
    r"\b(?:need|needs|needed|have|has|had|got|ought|going|plan|plans|planning|want|wants|"
    r"remember|reminder|remind\s+\w+|supposed|due)\s+to\s+(?P<verb>[a-z]+)\b"
    r"|\b(?:must|should|gotta|will|shall)\s+(?P<verb2>[a-z]+)\b"
    r"|^\s*(?:todo|to-do|to do)\s*:?\s*(?P<verb3>[a-z]+)\b", re.I)
# A task after a reminder or a to-do label, its subject left out: the speaker's.
_LISTED = lazy_re(
    r"\b(?:(?:do not|don't|dont) let me forget|(?:do not|don't|dont) forget|note to self"
    r"|to-?\s?do)\s*[:,]?\s*(?:to\s+)?(?P<verb>[a-z]+)\b(?P<verb2>)(?P<verb3>)", re.I)
_NOT_DONE = lazy_re(
    r"\b(?:not|never|yet|n't|didn't|haven't|hasn't|still|need|needs|have to|has to|must|"
    r"should|will|going to|remind|plan|plans|want|wants|gotta|tomorrow|later)\b|\?", re.I)
_WORD = lazy_re(r"[a-z0-9]+(?:'[a-z]+)?")
_TIME_WORDS = frozenset("""
    by before until till on at in this next tomorrow today tonight yesterday week weekend month
    year morning afternoon evening night end soon asap later due monday tuesday wednesday
    thursday friday saturday sunday mon tue tues wed thu thur thurs fri sat sun january february
    march april may june july august september october november december jan feb mar apr jun
    jul aug sep sept oct nov dec st nd rd th finally just already relief what today's
    """.split())  # noqa: SIM905 - a word list reads better as prose
_SELF = frozenset({"i", "me", "we", "user", "the user", "", "i've", "we've"})
# From gate-16: the speaker before a progressive or a "be" modal ("I'm going to", "we are
# supposed to").
_SELF_BEING = frozenset({"i'm", "im", "i am", "we're", "we are"})
_IRREGULAR: Final[dict[str, tuple[str, ...]]] = {
    "pay": ("paid",), "buy": ("bought",), "send": ("sent",), "make": ("made",),
    "take": ("took", "taken"), "get": ("got", "gotten"), "do": ("did", "done"),
    "go": ("went", "gone"), "write": ("wrote", "written"), "give": ("gave", "given"),
    "bring": ("brought",), "find": ("found",), "pick": ("picked",), "sell": ("sold",),
    "tell": ("told",), "meet": ("met",), "leave": ("left",), "drive": ("drove", "driven"),
    "eat": ("ate", "eaten"), "see": ("saw", "seen"), "set": ("set",), "put": ("put",),
    "cut": ("cut",), "read": ("read",), "hold": ("held",), "build": ("built",),
    "spend": ("spent",), "lend": ("lent",), "feed": ("fed",), "teach": ("taught",),
    "catch": ("caught",), "fight": ("fought",), "think": ("thought",), "sign": ("signed",),
    "begin": ("began", "begun"), "run": ("ran", "run"), "sit": ("sat",), "win": ("won",),
    "throw": ("threw", "thrown"), "draw": ("drew", "drawn"), "fly": ("flew", "flown"),
}
# Verbs that say a task is over, whatever the task's own verb was.
_GENERIC = frozenset({"finished", "completed", "done", "handled", "sorted", "wrapped",
                      "settled", "dealt", "took care", "taken care", "ticked", "crossed"})


# The irregular past forms and the words that open a generic completion ("took care").
_PAST_WORDS: Final = frozenset(
    {f for forms in _IRREGULAR.values() for f in forms} | {g.split()[0] for g in _GENERIC})


class Action(NamedTuple):
    """What a plan intends: its verb (base form), object words, and subject key."""

    verb: str
    objects: frozenset[str]
    subject: str  # "" for the user, a lower-case name, or "other"


class Completion(NamedTuple):
    """The evidence that a text reports a plan done."""

    verb: str  # the plan's verb
    matched: tuple[str, ...]  # object words both texts hold, sorted
    overlap: float  # the share of the plan's object words matched
    rule: str  # DONE_VERB (same verb) or DONE_GENERIC ("finished"...)


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _content(words: list[str]) -> frozenset[str]:
    return frozenset(w for w in words if w not in STOPWORDS and w not in _TIME_WORDS
                     and not w.isdigit() and len(w) > 1)


def _subject(before: str, *, i_am: bool = False) -> str:
    """The subject key of the words before a verb: "" for the user, a name, or "other".
    ``i_am`` (gate-16): "I'm" and "we're" are the user too."""
    raw = before.strip()
    lowered = re.sub(r"^(?:ok|so|well|finally|just|today|yesterday|also|and)\b[\s,]*", "",
                     raw.lower()).strip(" ,")
    lowered = re.sub(r"\s+(?:finally|just|already|also|has|have|had|'ve|'s|did)$", "",
                     lowered).strip()
    lowered = re.sub(r"\b(?:finally|just|already)\b", "", lowered).strip()
    if lowered in _SELF or lowered in {"i finally", "i just", "i already"} or (
            i_am and lowered.replace("\u2019", "'") in _SELF_BEING):
        return ""
    words = raw.split()
    if len(words) == 1 and words[0][:1].isupper() and lowered.isalpha():
        return lowered
    return "other"


# Pure functions of the text, asked of the same texts again and again: a report is compared with
# up to eight plans (completes() reads both again each time), batch after batch.
@lru_cache(maxsize=1 << 14)
def plan_action(text: str, *, one_sentence: bool = False, listed: bool = False,
                pronoun: bool = False, i_am: bool = False) -> Action | None:
    """The verb, object words and subject a plan's text intends, or None when it names none.
    ``one_sentence``: the object words end with the sentence ("I want to save for yoga gear by
    January. Quentin thinks it's way too long" intends nothing of "long"); gate-10 and before
    took the rest of the text. ``listed`` (gate-12): also a task listed after a reminder or a
    to-do label ("Don't let me forget: renew the passport", "User: to do, return the books").
    ``pronoun`` (gate-15): a subject "he" or "she" is whom the sentence before named (see
    :func:`_subject_of`). ``i_am`` (gate-16): "I'm" or "we're" before the modal is the user
    ("I'm planning to repaint the bedroom")."""
    match = _MODAL.search(text)
    label = match is None and listed
    if label:
        match = _LISTED.search(text)
    if match is None:
        return None
    verb = (match.group("verb") or match.group("verb2") or match.group("verb3")).lower()
    if verb in STOPWORDS and verb not in ("do",):
        return None
    head = text[: match.start()]
    if label:  # "User: to do, ..." is the user's list
        head = head.strip().rstrip(":,").strip()
    subject = "" if re.search(r"\bremind\s+me\b", match.group(0), re.I) \
        else _subject_of(text, head, pronoun=pronoun, i_am=i_am)
    if re.search(r"\bremind\s+(?!me\b)\w+", match.group(0), re.I):
        subject = "other"
    rest = text[match.end():]
    objects = _content(_words(_sentence_of(rest) if one_sentence else rest))
    if not objects:
        return None
    return Action(verb, objects, subject)


def _subject_of(text: str, head: str, *, pronoun: bool, i_am: bool = False) -> str:
    """The subject key (:func:`_subject`) of the words ``head`` of ``text`` before a verb.
    With ``pronoun``, "he" or "she" opening the verb's sentence is whom the text names first,
    when its first sentence says only whom the speaker met ("Had lunch with Olga. He has to
    submit the abstract" is Olga's plan, which Olga, the user by name, may report done), as the
    fact reader takes it (:func:`eventmem.policies.facts.subject_of`). ``i_am``: see
    :func:`_subject`."""
    subject = _subject(head, i_am=i_am)
    if pronoun and subject == "other" \
            and _LAST_SENTENCE.split(head)[-1].strip().lower() in ("he", "she"):
        named = facts.subject_of(text, facts.EDITION_5)
        if named is not None and named not in (facts.USER, facts.OTHER) and named.isalpha():
            return named
    return subject


def _sentence_of(text: str) -> str:
    """``text`` up to the end of its first sentence."""
    end = _SENTENCE_END.search(text)
    return text if end is None else text[: end.start()]


_SENTENCE_END = lazy_re(r"[.!?;](?:\s|$)|\n")


def _past_forms(base: str) -> frozenset[str]:
    forms = {base + "ed", base + "d"}
    if base.endswith("y") and len(base) > 2 and base[-2] not in "aeiou":
        forms.add(base[:-1] + "ied")
    if len(base) >= 3 and base[-1] not in "aeiouwxy" and base[-2] in "aeiou" \
            and base[-3] not in "aeiou":
        forms.add(base + base[-1] + "ed")
    forms.update(_IRREGULAR.get(base, ()))
    return frozenset(forms)


@lru_cache(maxsize=1 << 14)
def may_report_done(text: str) -> bool:
    """Whether ``text`` could report some plan done: when False, :func:`completes` is None for
    every plan, so the write path need not look for one (it reads only ``text``). A text that
    negates, still plans or asks reports nothing done, nor does one without a past form or a
    completion verb."""
    if _NOT_DONE.search(text) or plan_action(text) is not None:
        return False
    return any(w in _PAST_WORDS or _regular_past(w) for w in _words(text))


def _regular_past(word: str) -> bool:
    """Whether ``word`` is a regular past form (:func:`_past_forms`) of some verb a plan may
    name (:func:`plan_action` takes no stopword but "do"): "and" is none, "renewed" may be."""
    if not word.endswith("d"):
        return False
    bases = [word[:-1]]  # -d
    if word.endswith("ed"):
        bases += [word[:-2], word[:-3]]  # -ed, a doubled consonant + ed
    if word.endswith("ied"):
        bases.append(word[:-3] + "y")
    return any(base and (base not in STOPWORDS or base == "do") for base in bases)


def completes(plan_text: str, text: str, *, one_sentence: bool = False,
              passive: bool = False, pronoun: bool = False,
              i_am: bool = False, causative: bool = False) -> Completion | None:
    """Whether ``text`` reports done what ``plan_text`` intends (see the module docstring).
    ``one_sentence``: the plan's object and the report's are each read within their sentence
    (:func:`plan_action`), so words of a later sentence match nothing. ``passive`` (gate-12):
    the object may also come before the verb, as in the passive and the causative ("The
    passport is renewed", "Got the car registration renewed", "User: tax return filed"); who
    did it is then whoever the words before the object name; and a plan may be a task listed
    after a reminder or a to-do label (:func:`plan_action` ``listed``). ``pronoun`` (gate-15):
    "he" or "she" after a sentence naming whom the speaker met is that person, in the plan and
    in the report. ``i_am`` (gate-16): "I'm" or "we're" before the plan's modal is the user.
    ``causative`` (gate-17): a plan to get or have something done ("I need to get the car
    serviced") is reported by its participle ("The car's been serviced")."""
    action = plan_action(plan_text, one_sentence=one_sentence, listed=passive, pronoun=pronoun,
                         i_am=i_am)
    if action is None or not may_report_done(text):
        return None
    if causative and action.verb in _CAUSATIVE:
        text = _IS_DONE.sub(" is ", text)  # "The car's been serviced": the car, not "car's"
    lowered = text.lower()
    words = _words(lowered)
    forms = _past_forms(action.verb)
    at = next((i for i, w in enumerate(words) if w in forms), None)
    rule = DONE_VERB
    if at is None and causative and action.verb in _CAUSATIVE:
        done = {w for w in action.objects if _regular_past(w) and w.endswith("ed")}
        at = next((i for i, w in enumerate(words) if w in done), None)
    if at is None:
        at = _generic_at(lowered)
        rule = DONE_GENERIC
    if at is None:
        return None
    # The subject: the words before the verb in the text as written (capitals name someone).
    verb_word = words[at]
    found = re.search(rf"\b{re.escape(verb_word)}\b", text, re.I)
    head = text[: found.start()] if found else ""
    head = re.sub(r"\b(?:has|have|had|'ve|just|finally|already)\s*$", "", head.strip(), flags=re.I)
    after = words[at + 1:]
    if one_sentence and found is not None:
        after = _words(_sentence_of(text[found.end():]))
    matched = tuple(sorted(action.objects & _content(after)))
    needed = max(1, -(-len(action.objects) // 2))
    if len(matched) < needed and passive and found is not None and action.subject != "other":
        return _passive(action, text[: found.start()], rule, needed)
    subject = _subject_of(text, head, pronoun=pronoun)
    if subject == "other" or action.subject == "other" or (
            subject and action.subject and subject != action.subject):
        return None
    if len(matched) < needed:
        return None
    return Completion(action.verb, matched, round(len(matched) / len(action.objects), 6), rule)


# A report is compared with each plan its words may complete, and where it names none of their
# verbs, where it says something generic ("finished", "took care of") was read word pair by word
# pair for each of them: it depends on the report alone.
@lru_cache(maxsize=1 << 12)
def _generic_at(lowered: str) -> int | None:
    """The position among the words of ``lowered`` (a lower-cased report) of the first
    generic completion (:data:`_GENERIC`: a word, or the two words from there), or None."""
    words = _words(lowered)
    return next((i for i, w in enumerate(words)
                 if w in _GENERIC or " ".join(words[i:i + 2]) in _GENERIC), None)


# Verbs of having something done by someone else ("get the car serviced", "have the boiler
# fixed"): the participle after the object is what is done.
_CAUSATIVE: Final = frozenset({"get", "have"})
_IS_DONE: Final = lazy_re(r"(?<=\w)['\u2019]s (?=(?:been |now |finally |just |all )?[a-z]+ed\b)")


def _passive(action: Action, head: str, rule: str, needed: int) -> Completion | None:
    """The completion a passive or causative report states: the plan's object words in the
    sentence before the verb, and whoever the words before them name doing it."""
    sentence = _LAST_SENTENCE.split(head)[-1]
    matched = tuple(sorted(action.objects & _content(_words(sentence))))
    if len(matched) < needed:
        return None
    first = min(m.start() for word in matched
                if (m := re.search(rf"\b{re.escape(word)}\b", sentence, re.I)) is not None)
    subject = _subject(_PASSIVE_TAIL.sub("", sentence[:first]).strip().rstrip(":,").strip())
    if subject == "other" or (subject and action.subject and subject != action.subject):
        return None
    return Completion(action.verb, matched, round(len(matched) / len(action.objects), 6), rule)


_LAST_SENTENCE = lazy_re(r"[.!?;]\s+|\n")
# What stands between a doer and the object of a passive or causative: "Theo got the", "The",
# "User:", "Finally had my".
_PASSIVE_TAIL = lazy_re(
    r"(?:\b(?:got|get|gets|getting|had|has|have|is|was|are|were|been|finally|just|already)\s+)*"
    r"(?:\b(?:the|my|our|his|her|their|its|a|an)\s+)?$", re.I)
