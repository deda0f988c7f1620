"""Query understanding without a model: gate, intent, time, expansion and compound splitting.

:func:`plan` turns a query into a :class:`QueryPlan` the retrieval follows:

* **gate**: greetings and acknowledgements ("hi", "thanks!", "ok cool") ask for nothing; a recall
  of one returns no hits and records nothing;
* **intent**: factual, temporal, causal, entity, preference or general, from the question's form;
  each intent has a :class:`Route` (channel weights, candidate depth, a cue to favour);
* **time**: a time expression resolved against the reader's now (:mod:`eventmem.text.timeexpr`);
* **expansion**: the declarative opening of the answer (:func:`declarative`);
* **parts**: a compound question ("A and where B?", "A; also B") split into sub-queries, which
  the retrieval fuses by RRF with the whole.

Everything is a pure function of the text and ``now``.
"""

from __future__ import annotations

import re
from typing import Literal, NamedTuple

from eventmem.policies import facts
from eventmem.text.hyponyms import members
from eventmem.text.lazyre import lazy_re
from eventmem.text.normalize import STOPWORDS, tokenize
from eventmem.text.timeexpr import Anchored, TimeRange, find_time, strip_phrase

# Template query expansion: the statement a memory answering a question would make.
#
# A memory says "Caroline went to a support group", not "When did Caroline go to the support
# group?". HyDE asks a model to write the hypothetical answer; without a model, templates turn a
# question into the declarative opening of its answer ("Caroline went to the support group"), so
# lexical and vector matching see the words an answer uses (here "went", which no stemmer
# derives from "go"). Pure functions of the text.

# Common irregular verbs: base -> (past, past participle). Not exhaustive: the ones people talk
# about themselves with.
IRREGULAR: dict[str, tuple[str, str]] = {
    "be": ("was", "been"), "become": ("became", "become"), "begin": ("began", "begun"),
    "break": ("broke", "broken"), "bring": ("brought", "brought"), "build": ("built", "built"),
    "buy": ("bought", "bought"), "catch": ("caught", "caught"), "choose": ("chose", "chosen"),
    "come": ("came", "come"), "cost": ("cost", "cost"), "cut": ("cut", "cut"),
    "do": ("did", "done"), "draw": ("drew", "drawn"), "drink": ("drank", "drunk"),
    "drive": ("drove", "driven"), "eat": ("ate", "eaten"), "fall": ("fell", "fallen"),
    "feel": ("felt", "felt"), "fight": ("fought", "fought"), "find": ("found", "found"),
    "fly": ("flew", "flown"), "forget": ("forgot", "forgotten"), "get": ("got", "gotten"),
    "give": ("gave", "given"), "go": ("went", "gone"), "grow": ("grew", "grown"),
    "have": ("had", "had"), "hear": ("heard", "heard"), "hide": ("hid", "hidden"),
    "hit": ("hit", "hit"), "hold": ("held", "held"), "hurt": ("hurt", "hurt"),
    "keep": ("kept", "kept"), "know": ("knew", "known"), "lead": ("led", "led"),
    "learn": ("learned", "learned"), "leave": ("left", "left"), "lend": ("lent", "lent"),
    "let": ("let", "let"), "lose": ("lost", "lost"), "make": ("made", "made"),
    "mean": ("meant", "meant"), "meet": ("met", "met"), "pay": ("paid", "paid"),
    "put": ("put", "put"), "quit": ("quit", "quit"), "read": ("read", "read"),
    "ride": ("rode", "ridden"), "ring": ("rang", "rung"), "rise": ("rose", "risen"),
    "run": ("ran", "run"), "say": ("said", "said"), "see": ("saw", "seen"),
    "sell": ("sold", "sold"), "send": ("sent", "sent"), "set": ("set", "set"),
    "shoot": ("shot", "shot"), "show": ("showed", "shown"), "sing": ("sang", "sung"),
    "sit": ("sat", "sat"), "sleep": ("slept", "slept"), "speak": ("spoke", "spoken"),
    "spend": ("spent", "spent"), "stand": ("stood", "stood"), "steal": ("stole", "stolen"),
    "swim": ("swam", "swum"), "take": ("took", "taken"), "teach": ("taught", "taught"),
    "tell": ("told", "told"), "think": ("thought", "thought"), "throw": ("threw", "thrown"),
    "understand": ("understood", "understood"), "wake": ("woke", "woken"),
    "wear": ("wore", "worn"), "win": ("won", "won"), "write": ("wrote", "written"),
}
_AUX = {"did", "does", "do", "has", "have", "had", "is", "was", "were", "are", "will", "can",
        "could", "would", "should"}
_PRONOUNS = {"i", "you", "he", "she", "we", "they", "it"}
# Words that follow a subject but are never its verb: a template would inflect them into
# non-words ("and" -> "anded").
_NOT_VERBS = {"and", "or", "but", "the", "a", "an", "to", "of", "in", "on", "at", "for", "with",
              "his", "her", "their", "my", "your", "our", "its", "not", "also", "ever", "still"}
_DETERMINERS = {"the", "a", "an", "my", "your", "his", "her", "our", "their", "its"}
_QUESTION_WORDS = r"(?:when|where|what|which|who|whom|why|how(?:\s+(?:long|many|much|often))?)"
_QUESTION = lazy_re(rf"^\s*(?:{_QUESTION_WORDS}\s+)?(\w+)\s+(.+?)[\s?.!]*$", re.IGNORECASE)
_CONSONANT_Y = lazy_re(r"[^aeiou]y$")
_CVC = lazy_re(r"^[^aeiou]*[aeiou][^aeiouwxy]$")  # "stop" -> "stopped", one syllable


def past_tense(verb: str) -> str:
    """The simple past of an English verb: irregulars from a table, else the -ed rules."""
    v = verb.lower()
    if v in IRREGULAR:
        return IRREGULAR[v][0]
    if v.endswith("e"):
        return v + "d"
    if _CONSONANT_Y.search(v):
        return v[:-1] + "ied"
    if _CVC.match(v):
        return v + v[-1] + "ed"
    return v + "ed"


def third_person(verb: str) -> str:
    """The third person singular present ("go" -> "goes", "study" -> "studies")."""
    v = verb.lower()
    if v in ("be", "have"):
        return {"be": "is", "have": "has"}[v]
    if v.endswith(("s", "sh", "ch", "x", "z", "o")):
        return v + "es"
    if _CONSONANT_Y.search(v):
        return v[:-1] + "ies"
    return v + "s"


def _split_subject(words: list[str]) -> tuple[list[str], list[str]] | None:
    """The subject at the start of ``words`` (a pronoun, a run of capitalized names, or a noun
    phrase of a determiner or possessive and one noun) and the rest."""
    one = _one_subject(words)
    if one is None:
        return None
    subject, rest = one
    # "Andrew and his girlfriend", "Jolene and Deborah": a subject joined by "and" is one.
    if len(rest) > 1 and rest[0].lower() == "and":
        other = _one_subject(rest[1:])
        if other is not None and other[1]:
            return [*subject, "and", *other[0]], other[1]
    return subject, rest


def _one_subject(words: list[str]) -> tuple[list[str], list[str]] | None:
    if not words:
        return None
    first = words[0]
    if first.lower() in _PRONOUNS:
        return words[:1], words[1:]
    end = 0
    while end < len(words) and words[end][:1].isupper():
        end += 1
    if end:
        # "Melanie's friend adopt ...": a possessive name takes the noun after it.
        if words[end - 1].endswith(("'s", "’s")) and end < len(words):
            end += 1
        return words[:end], words[end:]
    if first.lower() in _DETERMINERS and len(words) > 2:
        return words[:2], words[2:]
    return None


def declarative(question: str) -> str | None:
    """The opening of an answer to ``question``, or None when no template fits.

    "When did Caroline go to the LGBTQ support group?" -> "Caroline went to the LGBTQ support
    group"; "Does Bob like tea?" -> "Bob likes tea"; "Where is Alice's office?" ->
    "Alice's office is".
    """
    m = _QUESTION.match(question)
    if m is None or m[1].lower() not in _AUX:
        return None
    aux = m[1].lower()
    parsed = _split_subject(m[2].split())
    if parsed is None:
        return None
    subject, rest = parsed
    head = " ".join(subject)
    if aux in ("is", "was", "were", "are"):
        return " ".join([head, aux, *rest]) if rest else f"{head} {aux}"
    if not rest:
        return None
    verb, tail = rest[0], rest[1:]
    if not verb.isalpha() or verb.lower() in _NOT_VERBS:
        return None  # no template fits: never a made-up word such as "anded"
    if aux == "did":
        verb = past_tense(verb)
    elif aux == "does":
        verb = third_person(verb)
    elif aux == "do" and "and" in subject:
        pass  # "Where do Jon and Gina live" -> "Jon and Gina live"
    elif aux in ("has", "have", "had") or aux in ("will", "can", "could", "would", "should"):
        verb = f"{aux} {verb}"
    return " ".join([head, verb, *tail])


__all__ = ["INTENTS", "ROUTES", "Intent", "QueryPlan", "Route", "asks_duration",
           "asks_hypothetical", "asks_past", "classify", "declarative", "is_chitchat",
           "past_tense", "plan", "split_compound", "templates", "third_person", "without_frame"]

Intent = Literal["factual", "temporal", "causal", "entity", "preference", "todo", "general"]
# Which replaced value a question asks (:func:`asks_former`).
Former = Literal["before", "first", "left"]
INTENTS: tuple[Intent, ...] = ("factual", "temporal", "causal", "entity", "preference", "todo",
                               "general")


class Route(NamedTuple):
    """How an intent searches: RRF weight per channel (missing: 1.0), how deep each channel
    looks (x ``Config.candidates_per_channel``), and the cue whose memories it favours."""

    weights: dict[str, float]
    depth: float = 1.0
    cue: Literal["time", "preference", "cause", "plan"] | None = None


ROUTES: dict[Intent, Route] = {
    "factual": Route({}),
    # The time channel carries "when" questions; memories that mention a time are favoured.
    "temporal": Route({"time": 1.5}, cue="time"),
    # A reason is often told in the turn after the event: context matters more.
    "causal": Route({"context": 1.25}, cue="cause"),
    # Everything about someone: look deeper, lean on the graph when there is one.
    "entity": Route({"graph": 1.5}, depth=2.0),
    "preference": Route({}, cue="preference"),
    # "What do I still need to do?" names no task: the open plans are the answer (the plans
    # channel lists them; done and expired ones are not eligible), ahead of what shares words.
    "todo": Route({"plans": 2.0}, cue="plan"),
    "general": Route({}),
}


class QueryPlan(NamedTuple):
    """What the retrieval does for one query."""

    text: str  # the query as given (validated)
    chitchat: bool  # nothing to retrieve
    intent: Intent
    content: str  # the query without its time expression: what the text channels match
    parts: tuple[str, ...]  # sub-queries of a compound question (empty when it is one question)
    expansion: str | None  # the declarative form of the question, if a template fits
    time: TimeRange | Anchored | None
    # A "how long" question ("how long have they been married?", "how many years..."): what
    # answers it states a length of time or the start it runs from.
    duration: bool = False
    # A question in the past tense ("When did Bob live in Oslo?"): it may ask about a value
    # replaced since, unlike "When is Theo seeing the dentist?", which asks the current one.
    past: bool = False
    # HyDE-style variants of the answer for the intent (:func:`templates`): words an answer of
    # that kind uses that the question does not ("because" for "why", "loves" for a liking).
    variants: tuple[str, ...] = ()
    # The members of a category the question names ("martial arts" -> karate, judo, ...;
    # eventmem.text.hyponyms): words its answer uses that the question does not.
    hyponyms: str = ""
    # A question asking for a list of things ("What activities has Melanie done?", "Which
    # cities has Jon visited?"): its answers are spread over conversations.
    listing: bool = False
    # An inference question ("Would Caroline pursue writing as a career?", "What might John's
    # degree be in?"): its answer is a guess from what someone said of themselves, in words
    # the question rarely uses (:func:`asks_hypothetical`).
    hypothetical: bool = False
    # A question asking a value replaced since (:func:`asks_former`): "before" the current one
    # (or the one it names), or the "first" one; None asks the value as it is.
    former: Former | None = None

    @property
    def route(self) -> Route:
        """The route of the plan's intent: channel weights, candidate depth and cue."""
        return ROUTES[self.intent]


# -- the gate ------------------------------------------------------------------------------------

_CHITCHAT = frozenset(
    """
    hi hello hey hiya howdy yo greetings morning evening afternoon night good bye goodbye cya
    later see ya thanks thank you thx ty cheers ok okay k kk cool great nice awesome perfect sure
    alright fine yes yeah yep yup no nope nah lol haha hahaha lmao wow got it sounds np welcome
    much so very a lot gotcha noted understood appreciate appreciated sweet neat indeed
    absolutely totally exactly hmm mm
    """.split()  # noqa: SIM905 - a word list reads better as prose than as quoted strings
)


def is_chitchat(text: str) -> bool:
    """Whether ``text`` is only a greeting or an acknowledgement (at most eight words, all from
    the small-talk vocabulary): nothing a memory could answer."""
    words = tokenize(text)
    return 0 < len(words) <= 8 and all(w in _CHITCHAT for w in words)


# -- intent --------------------------------------------------------------------------------------

_RULES: tuple[tuple[Intent, re.Pattern[str]], ...] = (
    ("temporal", lazy_re(
        r"^\s*(when|since when|how long ago|what (time|date|day|year|month))\b|"
        r"\b(what|which) (year|month|day|date)\b|\bhow long\b|"
        r"\bhow many (years|months|weeks|days)\b", re.I)),
    ("causal", lazy_re(r"^\s*(why|how come)\b|\b(reason|because|cause[ds]?|motivat\w*)\b",
                          re.I)),
    ("todo", lazy_re(
        r"\b(to-?do|to do list|deadlines?|pending|outstanding|errands?|chores?|"
        r"still (need|needs|have|has|got) to|(need|needs|have|has|got) to (do|get done|finish|"
        r"take care|handle|sort out)|take care of|left to do|on (my|his|her|their|the user'?s?) "
        r"(plate|list)|supposed to do|(open|upcoming|unfinished) (tasks?|items?|plans?)|"
        # what is due, and tasks asked after by what is left of them
        r"(anything|something|what|stuff) due|due (soon|this|next|by)|coming up|"
        r"(tasks?|items?|things?) [^?]*\b(open|left|remaining|pending))\b",
        re.I)),
    ("entity", lazy_re(
        r"^\s*(who (is|was|are)|tell me (about|everything)|what do (you|we) know about|"
        r"(describe|profile( of)?)\b)", re.I)),
    ("preference", lazy_re(
        r"\b(favou?rite|prefer\w*|like[sd]?|love[sd]?|hate[sd]?|enjoy\w*|dislike[sd]?|"
        r"fond of|into)\b", re.I)),
    ("factual", lazy_re(
        r"^\s*(what|which|where|who|whom|whose|how (many|much|often|old|far)|is|are|was|were|"
        r"do|does|did|has|have|can)\b", re.I)),
)


# A question asking what, where or who at a time it names: "What was James doing on March 16?",
# "Who did Maria have dinner with on May 3, 2023?", "Where did they go the weekend before
# 20 October?". Its answer is whatever memory is tied to that time, so it is temporal, not
# factual (the time channel finds memories said then, or speaking of then). Unless it asks for
# an attribute of someone ("Which city was Theo living in on 2025-02-16?", "What car did I
# drive on March 6?"): that date is when a state held, stated whenever it began, and the
# asked attribute's memories answer it (eventmem.recall.facts), not what was said that day.
_ASKS_AT_A_TIME = lazy_re(r"^\s*(what|which|where|who|whom|whose|how (many|much))\b", re.I)


def classify(text: str, time: TimeRange | Anchored | None = None) -> Intent:
    """The intent of a query, by the first rule its form matches. A query naming a time is
    temporal when the time is all it asks about ("what did I do last May"), when it asks
    what, where or who at that time ("what was James doing on March 16?"), no rule but the
    factual one fits and it asks for no attribute of someone, or when no rule fits at all."""
    if time is not None and not _has_content(strip_phrase(text, time.phrase)):
        return "temporal"
    for intent, pattern in _RULES:
        if pattern.search(text):
            if intent == "factual" and isinstance(time, TimeRange) \
                    and _ASKS_AT_A_TIME.search(text) and facts.read_question(text) is None:
                return "temporal"
            return intent
    return "temporal" if time is not None else "general"


# -- compound questions --------------------------------------------------------------------------

_NEXT_CLAUSE = (r"(?:what|when|where|who|whom|why|which|how|did|does|do|is|are|was|were|has|"
                r"have|can)\b")
_SPLIT = lazy_re(
    rf";\s*(?:and\s+|also\s+|and also\s+)?|\?\s+(?=\S)|,?\s+and\s+(?:also\s+)?(?={_NEXT_CLAUSE})|"
    rf",?\s+also\s+(?={_NEXT_CLAUSE})", re.I)


def split_compound(text: str) -> list[str]:
    """The separate questions of a compound one: at ";", between questions ("A? B?"), and at
    "and"/"also" followed by a new clause ("where does Alice live and what is her job").
    A single question, or one whose parts do not all have a content word, gives ``[]``."""
    parts = [p.strip(" ,.?!") for p in _SPLIT.split(text)]
    parts = [p for p in parts if p]
    # A part with no content word ("... and what does she do") cannot be searched on its own:
    # then the question stays whole.
    if len(parts) < 2 or not all(_has_content(p) for p in parts):
        return []
    return parts


# Words a question uses to ask, not to name what it asks about: "what happened in May", "what
# did we talk about yesterday" have no content besides their time.
_FILLER = frozenset("""
    happen happened happening thing things anything something everything stuff talk talked
    discuss discussed say said mention mentioned remember recall know tell go went going do done
    new up""".split())  # noqa: SIM905 - a word list reads better as prose


def _has_content(text: str) -> bool:
    return any(w not in STOPWORDS and w not in _FILLER for w in tokenize(text))


# -- the plan ------------------------------------------------------------------------------------


def plan(text: str, now: int, intent: Intent | None = None) -> QueryPlan:
    """Everything the retrieval needs to know about ``text``, asked at ``now`` (microseconds).
    ``intent``: the intent a pluggable classifier gave (:mod:`eventmem.recall.intent`); None:
    the rules' (:func:`classify`)."""
    if is_chitchat(text):
        return QueryPlan(text, True, "general", text, (), None, None)
    time = find_time(text, now)
    content = strip_phrase(text, time.phrase) if time is not None else text
    if not _has_content(content):
        content = text  # "what happened yesterday": keep the words, the time does the work
    if intent is None:
        intent = classify(text, time)
    parts = tuple(split_compound(content))
    expansion = declarative(content) if not parts else None
    return QueryPlan(text, False, intent, content, parts, expansion, time,
                     duration=asks_duration(text), past=asks_past(text),
                     variants=templates(intent, content, expansion) if not parts else (),
                     hyponyms=members(content), listing=asks_list(text),
                     hypothetical=asks_hypothetical(text), former=asks_former(text))


# HyDE without a model: per intent, two or three hypothetical answer openings built from the
# question's declarative form (or its subject), each adding the words such an answer uses.
_TEMPLATES: dict[Intent, tuple[str, ...]] = {
    "temporal": ("{answer} on", "{answer} last week", "{answer} ago"),
    "causal": ("{answer} because", "the reason {answer} was", "{answer} so"),
    "preference": ("{subject} loves", "{subject} favourite is", "{subject} prefers"),
    "entity": ("{subject} is a", "{subject} works as", "{subject} lives in"),
}
_ABOUT = lazy_re(r"^\s*(?:who (?:is|was|are)|tell me (?:about|everything about)|"
                    r"what do (?:you|we) know about|describe|profile(?: of)?)\s+(.+?)[\s?.!]*$",
                    re.I)


def templates(intent: Intent, question: str, expansion: str | None = None
              ) -> tuple[str, ...]:
    """HyDE-style answer variants of ``question`` for ``intent`` (no model): the declarative
    form ``expansion`` (else the question's subject) set in two or three answer templates of
    the intent; ``()`` when the intent has none or nothing fits. A pure function of the text."""
    forms = _TEMPLATES.get(intent)
    if forms is None:
        return ()
    subject = None
    about = _ABOUT.match(question)
    if about is not None:
        subject = about[1]
    elif expansion:
        parsed = _split_subject(expansion.split())
        # A name only: "my favourite loves" or "I loves" would be no answer's words.
        if parsed is not None and parsed[0][0][:1].isupper() and parsed[0][0] != "I":
            subject = " ".join(parsed[0])
    answer = expansion or subject
    if answer is None or (subject is None and any("{subject}" in f for f in forms)):
        return ()
    return tuple(f.format(answer=answer, subject=subject or answer) for f in forms)


_PAST = lazy_re(r"\b(did|was|were|had|used to)\b", re.I)


# "What activities has...", "Which European countries did...", "In what ways is...", "What
# types of pottery...": what/which and a plural noun (maybe after an adjective) then an
# auxiliary, or what/which and "kinds/types/sorts of".
_LIST = lazy_re(
    r"\b(?:what|which)\s+(?:(?:kinds|types|sorts)\s+of\b|(?:[a-z-]+\s+)?"
    r"(?!(?:is|was|has|does|goes)\b)[a-z-]{3,}s\s+"
    r"(?:has|have|had|did|does|do|is|are|was|were|would|could|can|might)\b)", re.I)


def asks_list(text: str) -> bool:
    """Whether ``text`` asks for a list of things, by its form (see ``_LIST``)."""
    return _LIST.search(text) is not None


def asks_past(text: str) -> bool:
    """Whether ``text`` asks in the past tense ("when did...", "where was...", "used to"),
    by its form: what it asks may have been replaced since. Not a question about how things
    turned out ("What day did my dentist appointment end up on?"): that asks the last value."""
    return _PAST.search(text) is not None and _OUTCOME.search(text) is None


# A value asked as it was before it changed: "Where did I use to live?", "my previous job",
# "What car did I have before the Camry?". ("How old" is no old value.)
_BEFORE = lazy_re(r"\b(?:used? to|previous(?:ly)?|former(?:ly)?|prior|no longer|before)\b"
                  r"|\b(?:my|his|her|their|our|\w+'s) old\b", re.I)
# ... as it was at first: "What was the original time of the flight?", "What day was it first
# booked for?", "What city did I originally live in?" (recall leaves a hometown asked
# "originally" alone: it never changes).
_FIRST = lazy_re(r"\b(?:original(?:ly)?|initially|first (?:booked|set|scheduled|planned"
                 r"|arranged)|at first)\b", re.I)
# ... or as what someone left: "Which company did Dana leave?" (but "When does my flight leave?"
# asks a departure: recall reads which, by the attribute asked).
_LEFT = lazy_re(r"\b(?:left|leave|quit)\b", re.I)


def asks_former(text: str) -> Former | None:
    """Whether ``text`` asks a value replaced since, by its words: ``"first"`` the value it
    first had, ``"before"`` the one before the current value (or before the value the question
    names), ``"left"`` one someone left (unless it asks a departure), None the value as it is.
    Recall reads it for a question about a personal attribute only
    (:func:`eventmem.recall.facts.former_asked`)."""
    if _FIRST.search(text) is not None:
        return "first"
    if _BEFORE.search(text) is not None:
        return "before"
    if _LEFT.search(text) is not None:
        return "left"
    return None


_OUTCOME = lazy_re(r"\b(end(?:ed)? up|in the end|eventually|finally settle[ds]? on)\b", re.I)


_HOW_LONG = lazy_re(r"\b(how long|since when|how many (years|months|weeks|days))\b", re.I)


def asks_duration(text: str) -> bool:
    """Whether ``text`` asks how long something lasted or has lasted ("how long have they been
    married?", "how long ago", "how many weeks passed between..."), by its form."""
    return _HOW_LONG.search(text) is not None


# The frame of an inference question: a modal verb or a hedge that makes the answer a guess
# ("Would X ...?", "What might X ...", "Is X likely to ...", "Would X be considered ...").
_HYPOTHETICAL = lazy_re(
    r"\b(?:would|could|might|likely|unlikely|probably|possibly|perhaps|considered)\b", re.I)
# The frame's words that are not stopwords already ("would", "could" are). In a memory they
# name other guesses, not the asked one: "might be interested", "considering adopting" matched
# "What might John's financial status be?" and "Would John be considered patriotic?" first.
_FRAME_WORDS = lazy_re(
    r"\b(?:be\s+)?(?:likely|unlikely|probably|possibly|perhaps|might|considered)\b", re.I)


def asks_hypothetical(text: str) -> bool:
    """Whether ``text`` asks for an inference, by its frame: a modal verb ("would", "could",
    "might") or a hedge ("likely", "probably", "considered"...)."""
    return _HYPOTHETICAL.search(text) is not None


def without_frame(text: str) -> str:
    """``text`` without the frame words of an inference question (:func:`asks_hypothetical`),
    what remains naming what it asks about: "Would John be considered a patriotic person?" ->
    "Would John a patriotic person?". The text itself when nothing but the frame would be left."""
    stripped = " ".join(_FRAME_WORDS.sub(" ", text).split())
    return stripped if _has_content(stripped) else text
