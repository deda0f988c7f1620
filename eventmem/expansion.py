"""Template query expansion: the statement a memory answering a question would make.

A memory says "Caroline went to a support group", not "When did Caroline go to the support
group?". HyDE asks a model to write the hypothetical answer; without a model, templates turn a
question into the declarative opening of its answer ("Caroline went to the support group"), so
lexical and vector matching see the words an answer uses (here "went", which no stemmer
derives from "go"). Pure functions of the text.
"""

from __future__ import annotations

import re

__all__ = ["declarative", "past_tense", "third_person"]

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
_DETERMINERS = {"the", "a", "an", "my", "your", "his", "her", "our", "their", "its"}
_QUESTION_WORDS = r"(?:when|where|what|which|who|whom|why|how(?:\s+(?:long|many|much|often))?)"
_QUESTION = re.compile(rf"^\s*(?:{_QUESTION_WORDS}\s+)?(\w+)\s+(.+?)[\s?.!]*$", re.IGNORECASE)
_CONSONANT_Y = re.compile(r"[^aeiou]y$")
_CVC = re.compile(r"^[^aeiou]*[aeiou][^aeiouwxy]$")  # "stop" -> "stopped", one syllable


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
    if not verb.isalpha():
        return None
    if aux == "did":
        verb = past_tense(verb)
    elif aux == "does":
        verb = third_person(verb)
    elif aux in ("has", "have", "had") or aux in ("will", "can", "could", "would", "should"):
        verb = f"{aux} {verb}"
    return " ".join([head, verb, *tail])
