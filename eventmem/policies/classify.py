"""Which of the eight memory kinds a text is, when the caller does not say: ordered regex rules.

``classify(text)`` returns ``(kind, rule)``, e.g. ``("identity", "identity:my_name_is")``. The rule
name is stored in the ingest event, so names are part of the log format: never rename one (add a
new name and bump :data:`POLICY_VERSION` instead). :data:`RULES` lists every name in order.

How a rule is chosen:

* The text is NFKC-normalized, casefolded, apostrophes unified and contractions expanded
  ("I'm" -> "i am", "can't" -> "cannot", "gonna" -> "going to"), so one pattern covers both forms.
* Kinds are tried in :data:`KIND_ORDER`; the first kind with a match wins. Within a kind the
  leftmost cue in the text names the rule (at one position, the rule listed first).
* Why this order: the durable facts about a person (identity, then preference, then relationship)
  come first, so a sentence that states one is never filed under a shorter-lived kind. Plan comes
  before event and activity because a future cue decides the memory's lifetime (``valid_until``)
  and must not be hidden by a past verb elsewhere ("I went to the doctor, next week I'll go
  back"). Activity comes before event because progressive or habitual aspect ("I've been learning
  Spanish since last year") says more than a time expression, which often only anchors a start.
  Ephemeral is last but one: it has the shortest life (one day), so it applies only when nothing
  durable matched. Context is the fallback.

From ``classify-2`` on, one subject however it is written: a statement about the user in the
third person or as an extraction pipeline writes it ("User prefers window seats", "The user's
daughter is named Mia", "Dana is allergic to peanuts", "Alice works at Acme") is classified as
its first-person form would be. A leading subject (``User``, ``The user``, a capitalised name
followed by a verb) and its verb are rewritten to the first person ("User prefers" -> "i
prefer", "Dana is" -> "i am", "User has" -> "i have", "User's daughter" -> "my daughter"), and
each kind is tried on the text as written, then on that form. The rule names are the same; the
version that decided is recorded beside them (``kind_policy`` on ``memory.ingested``), and
``classify(text, policy="classify-1")`` decides as the first version did, for the audit.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable
from typing import Final

from eventmem.policies import facts
from eventmem.policies.literals import Prefilter
from eventmem.text.lazyre import lazy_re

__all__ = ["CLASSIFY_1", "CLASSIFY_2", "CLASSIFY_3", "CLASSIFY_4", "CLASSIFY_5", "CLASSIFY_6",
           "CLASSIFY_7", "CLASSIFY_8", "CLASSIFY_9", "CLASSIFY_10", "CLASSIFY_11",
           "FACT_RULES",
           "KIND_ORDER",
           "POLICIES",
           "POLICY_VERSION", "RULES", "classify", "reader_edition"]

CLASSIFY_1: Final = "classify-1"  # the text as written only (no third-person subjects)
CLASSIFY_2: Final = "classify-2"  # no personal-attribute reading (see FACT_RULES)
CLASSIFY_3: Final = "classify-3"  # attributes read with the fact reader's first edition
# classify-4: a lasting attribute is read with the fact reader's second edition (facts.EDITION),
# so "Weekends are for pottery" or "Caught up with Yara. He spends free time on woodworking"
# is a lasting fact, not short-lived context that decays away within weeks; and a task with no
# subject or a dated deadline ("Have to renew my passport before March 22") is a plan. That
# edition reads names in any letters, so "Zoë moved to Oslo" is read as "Dana moved to Oslo" is.
CLASSIFY_4: Final = "classify-4"
# classify-5: attributes read with the fact reader's third edition, so a job left in the words
# notice is given in ("Handed in my notice at Globex, I'm with Hooli now") is a lasting fact.
CLASSIFY_5: Final = "classify-5"
# classify-6: attributes read with the fact reader's fourth edition, so "Desmond left Zephyr
# Bio-Systems for Brightwater Inc." or "Mustard seed give me a bad reaction" is a lasting fact.
CLASSIFY_6: Final = "classify-6"
# classify-7: attributes read with the fact reader's fifth edition, so "I'm a actuary now" or
# "Meet Miss Marple, our new border collie!" is a lasting fact.
CLASSIFY_7: Final = "classify-7"
# classify-8: attributes read with the fact reader's sixth edition, so "I accepted an offer from
# Initech" or "Home is Porto now" is a lasting fact.
CLASSIFY_8: Final = "classify-8"
# classify-9: attributes read with the fact reader's seventh edition, so "User moved house to
# Nantes" or "Isla turned three on Friday" is a lasting fact.
CLASSIFY_9: Final = "classify-9"
# classify-10: attributes read with the fact reader's eighth edition, so "Bosch onboarded me
# this week" or "Tariq celebrated turning fifteen" is a lasting fact.
CLASSIFY_10: Final = "classify-10"
# classify-11: attributes read with the fact reader's ninth edition, so "Dangote bumped me up to
# finance manager" or "We moved south to Bodo" is a lasting fact.
CLASSIFY_11: Final = "classify-11"
# classify-12: attributes read with the fact reader's tenth edition, so "Our son Tariq arrived on
# Sunday" is a lasting fact, and "If I got the job at Nordlys I'd ..." none.
POLICY_VERSION: Final = "classify-12"
POLICIES: Final = frozenset({CLASSIFY_1, CLASSIFY_2, CLASSIFY_3, CLASSIFY_4, CLASSIFY_5,
                             CLASSIFY_6, CLASSIFY_7, CLASSIFY_8, CLASSIFY_9, CLASSIFY_10,
                             CLASSIFY_11, POLICY_VERSION})


def reader_edition(policy: str) -> int:
    """The fact reader's edition the classifier version ``policy`` reads attributes with."""
    if policy in (CLASSIFY_1, CLASSIFY_2, CLASSIFY_3):
        return facts.EDITION_1
    if policy == CLASSIFY_4:
        return facts.EDITION_2
    if policy == CLASSIFY_5:
        return facts.EDITION_3
    if policy == CLASSIFY_6:
        return facts.EDITION_4
    if policy == CLASSIFY_7:
        return facts.EDITION_5
    if policy == CLASSIFY_8:
        return facts.EDITION_6
    if policy == CLASSIFY_9:
        return facts.EDITION_7
    if policy == CLASSIFY_10:
        return facts.EDITION_8
    return facts.EDITION_9 if policy == CLASSIFY_11 else facts.EDITION


_APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "ʼ": "'", "`": "'", "´": "'"})
_CONTRACTIONS: Final[dict[str, str]] = {
    "i'm": "i am", "im": "i am", "i've": "i have", "ive": "i have", "i'd": "i would",
    "i'll": "i will", "we're": "we are", "we've": "we have", "we'll": "we will",
    "we'd": "we would", "can't": "cannot", "cant": "cannot", "won't": "will not",
    "don't": "do not", "dont": "do not", "doesn't": "does not", "didn't": "did not",
    "couldn't": "could not", "he's": "he is", "she's": "she is", "it's": "it is",
    "they're": "they are", "that's": "that is", "isn't": "is not", "aren't": "are not",
    "name's": "name is", "gonna": "going to", "wanna": "want to", "gotta": "got to",
}  # fmt: skip
_CONTRACTION = lazy_re(
    r"(?<![\w'])(?:" + "|".join(map(re.escape, sorted(_CONTRACTIONS))) + r")(?![\w'])"
)

# Shared vocabulary. Only non-capturing groups: the named group of each rule must be the one
# capturing group that matched, which is how a match names its rule (checked at import).
_DAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_DAY = f"(?:{_DAYS})"
_MOD = (  # "my older sister", "my ex-wife", "my best friend"
    r"(?:(?:older|younger|little|big|baby|twin|best|close|oldest|youngest|eldest|elder|ex"
    r"|late|new|old|future|former)[- ]?)*"
)
_REL = (
    r"(?:(?:step-?|grand|great-?grand)?(?:mother|mom|mum|mama|father|dad|papa|parent|son"
    r"|daughter|child|children|kid|ma|pa)|sister|brother|sibling|aunt|uncle|cousin|niece|nephew"
    r"|(?:mother|father|sister|brother|son|daughter)-in-law|in-laws|wife|husband|spouse|partner"
    r"|girlfriend|boyfriend|fianc[eé]e?|friend|bff|bestie|boss|manager|supervisor|colleague"
    r"|coworker|co-worker|teammate|mentor|mentee|roommate|flatmate|housemate|neighbou?r"
    r"|landlord|therapist|doctor|dentist|coach|teacher|classmate|dog|cat|puppy|kitten|pet)s?"
)
_RELATION = rf"{_MOD}{_REL}\b"
_I_AM_A_NOT = (  # "I'm a bit tired", "I'm a big fan of", "I'm a vegan": not roles
    r"(?!(?:bit|little|lot|tad|few|couple|kind|sort|hour|minute|fan|vegetarian|vegan"
    r"|pescatarian)\b|(?:big|huge|massive|great|total|real) fans?\b)"
)
_NOT_A_NAME = (  # "call me back / tomorrow / when ...": a request, not a name
    r"(?!(?:back|later|tomorrow|tonight|today|when|whenever|if|at|on|in|after|before|asap|now"
    r"|please|once|again|sometime|anytime|next|this|around|soon|up|out|about|for|to|and|or|so"
    r"|maybe|with|from|the|a|an|by|crazy|sometimes)\b)"
)
_PAST = (
    r"(?:\w+ed|went|met|saw|had|got|came|left|bought|sold|won|lost|made|took|ran|flew|ate"
    r"|drove|wrote|began|became|found|gave|told|heard|spent|did|started)"
)
_WHEN = (
    rf"(?:on {_DAY}|in (?:january|february|march|april|may|june|july|august|september|october"
    r"|november|december)|in (?:19|20)\d\d|today|recently|the other day"
    r"|this (?:morning|afternoon|week|month|year))"
)
_PERIODS = f"week|weekend|month|year|quarter|semester|summer|winter|spring|fall|{_DAYS}"
_PERIOD = f"(?:{_PERIODS})"
_GREET = (
    r"(?:hi|hello|hey|heya|hiya|yo|sup|howdy|good (?:morning|afternoon|evening|night)|thanks"
    r"|thank you|thx|ty|ok|okay|k|cool|nice|lol|haha|bye|goodbye|see you|cya|gn|gm)"
    r"(?: there| all| everyone| again| so much)?"
)
_SEP = r"[\s!.,?:;)(]"

_RULE_TABLE: Final[tuple[tuple[str, tuple[tuple[str, str], ...]], ...]] = (
    ("identity", (
        ("my_name_is", r"\bmy (?:full |first |last |middle |real )?(?:nick)?name is\b"),
        ("call_me", rf"\bcall me {_NOT_A_NAME}\w"),
        ("pronouns", r"\bmy pronouns\b"),
        ("born", r"\bi was born\b"),
        ("birthday", r"\bmy birthday is\b"),
        ("age", r"\bi am \d{1,3} (?:years?|yrs?) old\b|\bi turned \d{1,3}\b"),
        ("from", r"\bi (?:am (?:originally )?from|come from|grew up in)\b"),
        ("live_in", r"\bi (?:live|reside) in\b|\bi am based in\b"),
        ("i_work_as", r"\bi work as\b|\bi am employed as\b"),
        ("i_work_at", r"\bi work (?:at|for)\b|\bi am employed (?:at|by)\b"),
        ("allergy", r"\bi am (?:severely |very |highly )?allergic to\b"),
        ("i_am_a", rf"\bi am (?:not )?an? {_I_AM_A_NOT}\w"),
    )),
    ("preference", (
        ("i_prefer", r"\bi (?:would |usually |generally |always |really |much |strongly )?prefer"),
        ("i_like", r"\bi (?:(?:really|truly|absolutely|just|also|still|do not|never|kind of|kinda"
                   r"|genuinely|totally|actually|especially|always|do|so|quite|honestly) )*"
                   r"(?:like|love|enjoy|adore)s?\b"),
        ("i_hate", r"\bi (?:(?:really|truly|absolutely|just|also|still|do|so|kind of|kinda"
                   r"|genuinely|totally|actually|always|honestly) )*"
                   r"(?:hate|dislike|detest|loathe|despise)s?\b"),
        ("my_favorite", r"\bmy (?:(?:all-time|absolute|new|current|least) )?favou?rite"),
        ("would_rather", r"\bi would (?:much )?rather\b"),
        ("cannot_stand", r"\bi (?:cannot|can not|could not) stand\b"),
        ("fan_of", r"\bi am (?:not )?(?:a )?(?:(?:big|huge|massive|great|total|real) )?fan of\b"),
        ("into", r"\bi am (?:really |so |very )?into\b"),
        ("diet", r"\bi (?:do not|never) (?:eat|drink)\b"
                 r"|\bi am (?:a )?(?:strict )?(?:vegetarian|vegan|pescatarian)\b"),
    )),
    ("relationship", (
        ("x_is_my", rf"\b[\w'-]++ (?:is|was|are|were) (?:also )?my {_RELATION}"),
        ("i_am_xs", rf"\bi am [\w-]++'s {_RELATION}"),
        ("married_to", r"\bi am (?:happily )?(?:married|engaged) to\b"),
        ("dating", r"\bi am (?:currently )?dating\b"),
        ("i_have", rf"\bi have (?:a|an|one|two|three|four|five|\d+|no) {_RELATION}"),
        ("my_relation", rf"\bmy {_RELATION}"),
    )),
    ("plan", (
        ("by_deadline", rf"\b(?:by|before|until|due(?: on| by)?) (?:{_DAY}|tomorrow|tonight"
                        r"|eod|noon|midnight|(?:the )?end of (?:the |this )?(?:day|week|month"
                        r"|year))\b"),
        ("tomorrow", r"\btomorrow\b|\btmrw?\b"),
        ("later_today", r"\btonight\b|\blater today\b"),
        ("next_period", rf"\bnext {_PERIOD}\b|\bthis coming {_PERIOD}\b|\bupcoming\b"),
        ("remind_me", r"\bremind me\b|\bdo not (?:let me )?forget\b|\bnote to self\b"),
        ("going_to", r"\b(?:i|we) (?:am|are) (?:going|about) to\b"),
        ("plan_to", r"\b(?:i|we) (?:plan|intend|aim|hope|expect) to\b|\bmy plan is\b"
                    r"|\b(?:i|we) (?:am|are) (?:planning|intending|hoping|aiming) to\b"),
        ("want_to", r"\b(?:i|we) (?:really )?want to\b"),
        ("need_to_by", r"\bi (?:need to|have to|must|have got to|got to|should)\b"
                       r"[^.!?]{0,80}?\bby\b"),
        ("need_to", r"\bi (?:need to|have to|must|have got to|got to|should)\b"),
        ("i_will", r"\b(?:i|we) will (?!(?:not|never|always)\b)\w"),
        ("scheduled", r"\b(?:scheduled|booked|planned) for\b|\bappointment\b|\bdeadline\b"),
    )),
    ("activity", (
        ("training_for", r"\b(?:i|we) (?:am|are|have been) training (?:for|to)\b"),
        ("learning", r"\bi (?:have been|am|have started|started|began) (?:learning|studying"
                     r"|practi[cs]ing|taking (?:lessons|classes|a class|a course))\b"),
        ("working_on", r"\b(?:i|we) (?:am|are|have been) (?:currently )?(?:working on|building"
                       r"|writing|developing|renovating|reading)\b"),
        ("have_been_ing", r"\b(?:i|we) (?:have|had) been (?!feeling\b)\w+ing\b"),
        ("currently_ing", r"\b(?:i|we) (?:am|are) currently (?!feeling\b)\w+ing\b"),
        ("routine", rf"\bevery (?:morning|day|evening|night|week|weekend|month|{_DAYS})\b"
                    r"|\b(?:each|most) (?:morning|day|evening|night)s?\b|\bon weekends\b"),
        ("habit", r"\bi (?:usually|often|regularly|normally|typically|sometimes|always"
                  r"|tend to)\b"),
    )),
    ("event", (
        ("yesterday", r"\byesterday\b|\bearlier today\b|\bthis morning\b"),
        ("last_period", rf"\blast (?:night|time|christmas|{_PERIODS})\b"),
        ("ago", r"\b(?:seconds?|minutes?|hours?|days?|weeks?|months?|years?|decades?) ago\b"),
        ("went_to", r"\b(?:i|we) (?:went|have been|had been|travell?ed|flew|drove|moved) to\b"),
        ("milestone", r"\b(?:i|we|they) (?:just )?(?:got|have gotten|have got|were|was)"
                      r" (?:married|engaged|divorced|promoted|fired|hired|laid off|accepted)\b"
                      r"|\b(?:i|we) (?:just )?(?:graduated|retired|had a baby|bought a house)\b"),
        ("past_with_time", rf"\b(?:i|we) (?:just |finally |recently )?{_PAST}\b"
                           rf"[^.!?]{{0,80}}?\b{_WHEN}\b"),
    )),
    ("ephemeral", (
        ("right_now", r"\bright now\b|\bjust now\b"),
        ("at_the_moment", r"\bat the moment\b|\batm\b|\bfor now\b|\bfor the moment\b"),
        ("feeling", r"\bcurrently feeling\b|\bfeeling\b"),
        ("state", r"\bi am (?:so |really |very |a bit |a little |kind of |kinda |super )?(?:tired"
                  r"|hungry|sleepy|bored|thirsty|exhausted|sick|busy|stressed|nervous|anxious"
                  r"|in a meeting|on a call|on my way|driving|stuck in traffic)\b"),
        ("away", r"\b(?:brb|gtg|g2g|afk|omw|be right back|got to go|have to go)\b"),
        ("greeting", rf"^{_GREET}(?:{_SEP}+{_GREET})*{_SEP}*$"),
    )),
)  # fmt: skip

KIND_ORDER: Final[tuple[str, ...]] = (*(kind for kind, _ in _RULE_TABLE), "context")
DEFAULT_RULE: Final = "context:default"
# From classify-3: a statement of a person's lasting attribute (where they live, their job, diet,
# car, pet, family, preferences...: eventmem.policies.facts) that no durable rule matched is of
# the durable kind of that attribute, not a short-lived one ("Finally settled in Geneva after
# the move", "Decided to become vegetarian", "First week at Northwind Traders done").
_FACT_KINDS: Final[dict[str, str]] = {
    "residence": "identity", "employer": "identity", "title": "identity", "hometown": "identity",
    "birthday": "identity", "age": "identity", "allergy": "identity", "diet": "identity",
    "car": "identity", "phone": "identity", "pet": "identity", "count": "identity",
    "relationship": "relationship", "family": "relationship",
    "preference": "preference", "hobby": "preference",
    # A flight or an appointment is an event to come: kept as one (decay may archive it, not
    # delete it), never as passing context.
    "departure": "event", "appointment": "event",
}
_SHORT_LIVED: Final = frozenset({"context", "event", "activity", "ephemeral"})
FACT_RULES: Final[tuple[str, ...]] = ("identity:fact", "relationship:fact", "preference:fact",
                                      "event:fact")
# classify-4: a task to do with its subject left out, as in a diary or a list ("Have to renew
# my passport before March 22", "To do: return the library books by May 2"), which no rule
# above reads (they want "I need to", or a weekday deadline).
TASK_RULE: Final = "plan:task"
_TASK: Final = lazy_re(
    r"(?:^|[.!?:;]\s*)(?:still\s+)?(?:have to|has to|need to|needs to|got to|must|gotta)\s+[a-z]+"
    r"|\bto-?\s?do\b\s*[,:]\s*[a-z]+"
    r"|\b(?:by|before|until|due)\s+(?:january|february|march|april|may|june|july|august|"
    r"september|october|november|december)\s+\d")
RULES: Final[tuple[str, ...]] = (
    *(f"{kind}:{name}" for kind, rules in _RULE_TABLE for name, _ in rules),
    DEFAULT_RULE,
    *FACT_RULES,
    TASK_RULE,
)


_WB = r"\b"


@functools.cache
def _compiled() -> tuple[tuple[str, re.Pattern[str], dict[str | None, str]], ...]:
    """One regex per kind, each rule a named group ``r<i>``; a match's ``lastgroup`` is its rule.
    Built on first use (a constant; compiling it at import cost every CLI command a tenth of a
    second).

    Every rule starts at a word boundary; testing it once, before the alternation, makes a
    search about three times faster than testing it in each rule (re does not factor it out).
    """
    compiled = []
    for kind, rules in _RULE_TABLE:
        if not all(pat.startswith((_WB, "^")) for _, pat in rules):
            raise AssertionError(f"{kind}: every rule must start with a word boundary or ^")
        body = "|".join(f"(?P<r{i}>{pat.removeprefix(_WB)})" for i, (_, pat) in enumerate(rules))
        pattern = re.compile(_WB + f"(?:{body})")
        if pattern.groups != len(rules):  # a capturing group inside a rule would misname matches
            raise AssertionError(f"{kind}: rules must use only non-capturing groups")
        names: dict[str | None, str] = {f"r{i}": f"{kind}:{n}" for i, (n, _) in enumerate(rules)}
        compiled.append((kind, pattern, names))
    return tuple(compiled)


# Per kind, the texts without which none of its rules can match: most texts skip most searches.
_EXITS: Final = tuple(Prefilter(pat for _, pat in rules) for _, rules in _RULE_TABLE)


def _normalize(text: str) -> str:
    folded = unicodedata.normalize("NFKC", text).casefold()
    if not folded.isascii() or "`" in folded:  # else no apostrophe to unify: skip the scan
        folded = folded.translate(_APOSTROPHES)
    folded = _CONTRACTION.sub(lambda m: _CONTRACTIONS[m.group()], folded)
    return " ".join(folded.split())


# -- one subject: third person and extraction style as the first person ---------------------------


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Capitalised words that start sentences without naming anyone: never taken for a name.
_NOT_NAMES: Final = _words(
    "the a an this that these those there here it he she they we you i my our your his her"
    " their its what who whom whose which where when why how nothing everything something"
    " someone everyone anyone nobody somebody everybody today tomorrow tonight yesterday now"
    " then also and but or so if maybe please yes no not every each some any all both most many"
    " much one another other such monday tuesday wednesday thursday friday saturday sunday"
    " january february march april may june july august september october november december")
# After "Name's", these say "is" ("Dana's allergic to ..."), not a possessive ("Dana's sister").
_IS_AFTER_S: Final = _words(
    "a an the not allergic from based married engaged into in at on currently really very so"
    " still also now always never just originally")
_ADVERBS = r"(?:(?:\w+ly|also|still|always|never|often|just|now|currently|no longer|even|too)\s+)*"
_IRREGULAR: Final[dict[str, str]] = {
    "is": "am", "was": "was", "has": "have", "does": "do", "isn't": "am not",
    "wasn't": "was not", "hasn't": "have not", "doesn't": "do not", "'s": "am",
}
# A leading date clause ("On March 3, 2025, User moved ..."), then the subject: the user as an
# extraction pipeline names them, or a name (one or two capitalised words), possibly possessive.
def _subject(name: str, word: str) -> re.Pattern[str]:
    return lazy_re(
        r"^(?P<lead>(?:(?:[Oo]n|[Ii]n|[Ss]ince|[Aa]s of) [^,.!?]{1,30}?(?:, \d{4})?,\s+)?)"
        rf"(?P<subject>(?:[Tt]he\s+)?[Uu]ser|{name}(?:\s+{word})?)"
        r"(?P<poss>'s\b)?\s+(?P<adverbs>" + _ADVERBS + r")(?P<verb>[a-z]+n't|[a-z]+)\b")


# classify-4 takes a name in any letters ("Joaquín has to file the report" is a plan of the
# user's, should Joaquín be the user); classify-3 and before ASCII ones only.
_SUBJECT = _subject(facts.NAME, f"{facts.CAP}{facts.LOW}+")
_ASCII_SUBJECT = _subject(facts.ASCII_NAME, "[A-Z][a-z]+")
_SENTENCE_END = lazy_re(r"(?<=[.!?;])\s+")


def _first_person_verb(verb: str) -> str | None:
    """``verb`` as the first person says it, or None when it is not a finite verb after a name
    (past tenses and modals agree already; a third-person -s form loses its ending)."""
    if verb in _IRREGULAR:
        return _IRREGULAR[verb]
    if verb.endswith("ed") or verb in _PAST_OR_MODAL:
        return verb
    if len(verb) > 3 and verb.endswith("s") and not verb.endswith(("ss", "us", "is")):
        if verb.endswith("ies"):
            return verb[:-3] + "y"
        if verb.endswith(("ches", "shes", "sses", "xes", "zes", "oes")):
            return verb[:-2]
        return verb[:-1]
    return None


_PAST_OR_MODAL: Final = _words(
    "will would can could should must might may shall went met saw had got came left bought"
    " sold won lost made took ran flew ate drove wrote began became found gave told heard spent"
    " did started grew used")


def _rewrite(match: re.Match[str], *, names: bool = True) -> str:
    subject, poss = match["subject"], match["poss"]
    is_user = subject.lower().split()[-1] == "user"
    if not is_user and (not names or subject.split()[0].lower() in _NOT_NAMES):
        return match[0]
    verb = match["verb"]
    if poss and (verb in _IS_AFTER_S or verb.endswith("ing")):
        return f"{match['lead']}I am {match['adverbs']}{verb}"
    if poss:  # "User's daughter", "Dana's favorite food": "my daughter", "my favorite food"
        return f"{match['lead']}my {match['adverbs']}{verb}"
    agreed = _first_person_verb(verb)
    if agreed is None:
        return match[0]
    return f"{match['lead']}I {match['adverbs']}{agreed}"


def _first_person(text: str, subject: re.Pattern[str] = _SUBJECT) -> str:
    """``text`` with the subject that starts each sentence in the first person, when it is the
    user named in the third person or a name followed by a verb; else ``text`` unchanged."""
    return " ".join(subject.sub(_rewrite, sentence, count=1)
                    for sentence in _SENTENCE_END.split(text.strip()))


def user_in_first_person(text: str) -> str:
    """``text`` with "User", "The user" and "the user's" starting a sentence in the first person
    ("User lives in Denver" -> "I live in Denver"): the way extraction pipelines name the user,
    read as the user's own statement. Other names are left as they are (they may be anyone)."""
    return " ".join(_SUBJECT.sub(lambda m: _rewrite(m, names=False), sentence, count=1)
                    for sentence in _SENTENCE_END.split(text.strip()))


def _search(norm: str, kind_index: int) -> str | None:
    _, pattern, names = _compiled()[kind_index]
    if not _EXITS[kind_index].may_match(norm):
        return None
    match = pattern.search(norm)
    return None if match is None else names[match.lastgroup]


def classify(text: str, policy: str = POLICY_VERSION, *,
             read_facts: Callable[[str], tuple[facts.Fact, ...]] | None = None
             ) -> tuple[str, str]:
    """Return ``(kind, rule)`` for ``text``: the first kind in :data:`KIND_ORDER` with a matching
    rule, else ``("context", "context:default")``. Pure and deterministic; never raises on a str.

    ``policy`` is the version to decide as (:data:`CLASSIFY_1`: the text as written only; an
    audit passes the recorded one). ``read_facts``: :func:`eventmem.policies.facts.read` with
    the edition :func:`reader_edition` gives ``policy`` (the default), or a cache of it (the
    write path reads the same text's facts for its own decisions).

    >>> classify("My name is Priya")
    ('identity', 'identity:my_name_is')
    >>> classify("Tomorrow I'll call the bank")
    ('plan', 'plan:tomorrow')
    >>> classify("User prefers window seats")
    ('preference', 'preference:i_prefer')
    """
    norm = _normalize(text)
    forms = [norm]
    if policy != CLASSIFY_1:
        unified = unicodedata.normalize("NFKC", text).translate(_APOSTROPHES)
        # The reader's second edition reads names in any letters, so a classify-4 subject may
        # be spelled in any; classify-2 and classify-3 took ASCII ones.
        rewritten = _first_person(unified, _SUBJECT if reader_edition(policy) >= facts.EDITION_2
                                  else _ASCII_SUBJECT)
        if rewritten != unified:
            forms.append(_normalize(rewritten))
    decided = next(((kind, rule) for i, (kind, _, _) in enumerate(_compiled()) for form in forms
                    if (rule := _search(form, i)) is not None), ("context", DEFAULT_RULE))
    if decided[1] == DEFAULT_RULE and reader_edition(policy) >= facts.EDITION_2 \
            and _TASK.search(norm):
        return "plan", TASK_RULE
    if policy in (CLASSIFY_1, CLASSIFY_2) or decided[0] not in _SHORT_LIVED:
        return decided
    stated = facts.read(text, reader_edition(policy)) if read_facts is None \
        else read_facts(text)
    lasting = next((_FACT_KINDS[f.attribute] for f in stated
                    if f.attribute in _FACT_KINDS and f.owner != facts.OTHER), None)
    if lasting is None or lasting == decided[0]:
        return decided
    return lasting, f"{lasting}:fact"
