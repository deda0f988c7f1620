"""The relation patterns of entity extraction: regexes over a sentence whose names are masked.

:data:`PATTERN_TABLE` lists every pattern with the relation it states, its confidence, the
strength of the type hint it gives its ends and the trigger words that let it run; below it, the
index of those triggers and the types each relation allows at its ends. Separate from the name
scanning (:mod:`eventmem.policies.extract.names`) because it is the other half of the rules: what
is said between names, not where the names are. Confidences and evidence levels live here since
they are columns of the table. :mod:`eventmem.policies.extract.relations` runs the patterns; its
docstring describes what they match. Any change here changes what it returns: bump its
:data:`~eventmem.policies.extract.relations.EXTRACTOR_VERSION`.
"""

from __future__ import annotations

import re
from typing import Final

from eventmem.policies.extract.lexicon import word_list
from eventmem.text.lazyre import lazy_re

__all__ = ["EXPLICIT", "POSSESSIVE", "WEAK"]

EXPLICIT: Final = 0.9
POSSESSIVE: Final = 0.7
WEAK: Final = 0.5
INTRINSIC, ROLE, CONTEXT, HINT = 4, 3, 2, 1  # evidence levels, strongest first


# --- relation patterns over a masked sentence -------------------------------------------------
MASKED_NAME = "\x00[0-9]+\x01"  # a masked name: "\x00<mention index>\x01"


def _who(g: str) -> str:  # a name or "i"
    return rf"(?P<{g}>{MASKED_NAME}|\bi\b)"


def _obj(g: str) -> str:  # a name not followed by "'s" (then it owns the object), or "me"
    return rf"(?P<{g}>{MASKED_NAME}(?!')|\bme\b|\bmine\b)"


def _ent(g: str) -> str:
    return rf"(?P<{g}>{MASKED_NAME}(?!'))"


def _poss(g: str) -> str:  # "Ann's", "James'", "my"
    return rf"(?P<{g}>{MASKED_NAME}(?='s\b|'(?![a-z]))|\bmy\b)(?:'s\b|')?"


_ADV = (r"still|now|also|currently|recently|just|already|finally|officially|actually|really"
        r"|happily|proudly|both|all|even|first|since|then|once|later|eventually|soon|mostly"
        r"|mainly|usually|often|sometimes|always|newly|only")  # fmt: skip
# Auxiliaries and adverbs between a subject and its verb. No negation and no would/could/might:
# "I don't work at X" or "I might move to X" must not match.
_AUX = (rf"(?:'m|'s|'re|'ve|'d|'ll)?(?: (?:am|is|are|was|were|be|been|being|has|have|had|got"
        rf"|get|gets|getting|became|become|becoming|will|{_ADV}))*")  # fmt: skip
_COP = (rf"(?:'ve|'d|'ll| has| have| had| will)?(?:'s|'re|'m| is| are| am| was| were| been| be"
        rf"| became| become| becomes| got)(?: (?:{_ADV}|like|definitely|truly|basically))*")
_THE = "(?: the)? "
_BE = "i'm is am are was were been be became become becomes got"  # co-trigger of a copula
# Not a statement: a question ("does Ann work at X?") or a wish ("I wish I worked at X").
_NOT_STATED = word_list(
    "do does did is are was were has have had wish if unless whether imagine pretend")
_STATED_WHO = (  # the look-behinds sit after the first character: far faster to search for
    r"(?P<s>\x00" + "".join(rf"(?<!\b{w} \x00)" for w in _NOT_STATED) + r"[0-9]+\x01|\bi\b"
    + "".join(rf"(?<!\b{w} i)" for w in _NOT_STATED) + ")")
# A verb's subject: a name or "i", then maybe an appositive ("Lucy, my sister, works at") or a
# first clause it shares ("I grew up in Ohio but now live in Austin"); never across a pronoun
# or a relative clause ("I have a friend who lives in Rome and works at X" is not about me).
_SUBJ = (rf"{_STATED_WHO}(?:, [^,.!?;…\x00]{{1,40}},| (?:(?!(?:who|that|which|whose|he|she"
         rf"|they|we|you|it|i)\b)[^ .!?;…]+ ){{1,8}}?(?:and|but)(?: then| now| also)?)?{_AUX}")
_MOD = (r"(?:(?:best|close|good|great|old|dear|new|older|younger|little|big|baby|twin|eldest"
        r"|oldest|youngest|elder|longtime|long-time|childhood|lovely|wonderful|amazing|awesome"
        r"|current|main|biggest|direct|only|first|second|step|beloved) )*")  # fmt: skip

# Role nouns: "A is B's <role>" and "B's <role> A" both state (A, relation, B), or (B, relation,
# A) when inverted ("A is B's mentee": B mentors A).
ROLES: Final[dict[str, tuple[str, bool]]] = {
    **dict.fromkeys(word_list("friend buddy pal bestie bff"), ("friend_of", False)),
    **dict.fromkeys(word_list("boss manager supervisor"), ("manages", False)),
    **dict.fromkeys(word_list("employee assistant"), ("manages", True)),
    **dict.fromkeys(word_list("mentor coach"), ("mentors", False)),
    **dict.fromkeys(word_list("mentee protege protégé apprentice"), ("mentors", True)),
    **dict.fromkeys(word_list(
        "father mother dad mom mum parent stepfather stepmother stepdad stepmom "
                    "step-dad step-mom papa mama"), ("parent_of", False)),
    **dict.fromkeys(word_list("son daughter child children kid stepson stepdaughter"),
                    ("child_of", False)),
    **dict.fromkeys(word_list("brother sister sibling twin stepbrother stepsister half-brother "
                    "half-sister"), ("sibling_of", False)),
    **dict.fromkeys(word_list("wife husband spouse"), ("married_to", False)),
    **dict.fromkeys(word_list("boyfriend girlfriend fiance fiancé fiancee fiancée"),
                    ("dating", False)),
    **dict.fromkeys(("partner", "business partner"), ("partner_of", False)),
    **dict.fromkeys(word_list("colleague coworker co-worker teammate collaborator workmate"),
                    ("collaborates_with", False)),
    **dict.fromkeys(word_list("client customer"), ("client_of", False)),
    **dict.fromkeys(word_list("competitor rival"), ("competitor_of", False)),
    **dict.fromkeys(word_list("founder co-founder cofounder"), ("founded", False)),
    "member": ("member_of", False),
    "employer": ("works_at", True),
    **dict.fromkeys(word_list("neighbor neighbour roommate flatmate housemate classmate "
                       "acquaintance"), ("knows", False)),
}  # fmt: skip
ANY_ROLES: Final = frozenset(("client", "customer", "competitor", "rival", "partner",
                              "business partner", "employer", "member"))
_ROLE_RE = "|".join(sorted(map(re.escape, ROLES), key=lambda r: (-len(r), r)))
PAIRS: Final[dict[str, str]] = {  # "A and B are <word>"
    **dict.fromkeys(word_list("friends besties"), "friend_of"),
    **dict.fromkeys(word_list("siblings brothers sisters twins"), "sibling_of"),
    "married": "married_to", "dating": "dating", "engaged": "dating",
    **dict.fromkeys(word_list("colleagues coworkers co-workers teammates"), "collaborates_with"),
    **dict.fromkeys(word_list("competitors rivals"), "competitor_of"), "partners": "partner_of",
    **dict.fromkeys(word_list("neighbors neighbours roommates classmates"), "knows"),
}  # fmt: skip
_JOB_HEAD = (r"[a-z-]*(?:er|or|ist|ant|ent|ian|ee|yst|ive|nurse|chef|cook|intern|clerk|coach"
             r"|barista|ceo|cto|cfo|coo|vp|lead|head|staff|dj|rep|chair)")  # fmt: skip
JOB_OF: Final = frozenset(word_list(
    "ceo cto cfo coo president director head chair chairman chairwoman "
                           "member members customer client"))  # "the CEO of X"
JOB_REL: Final[dict[str, str]] = {
    **dict.fromkeys(word_list("student volunteer member members fellow resident"), "member_of"),
    **dict.fromkeys(word_list("customer client patient regular"), "client_of"),
    **dict.fromkeys(word_list("fan guest visitor speaker attendee newcomer beginner believer"), ""),
}  # fmt: skip
_GONE = word_list("lost quit left lose leave leaving losing")  # "lost my job at X": no longer


def _kept_poss(g: str) -> str:
    """:func:`_poss`, not right after a verb of losing; the look-behinds sit after the first
    character, which is far faster to search for than a pattern that opens with them."""
    return (rf"(?P<{g}>\x00" + "".join(rf"(?<!{w} \x00)" for w in _GONE)
            + r"[0-9]+\x01(?='s\b|'(?![a-z]))|\bm" + "".join(rf"(?<!{w} m)" for w in _GONE)
            + r"y\b)(?:'s\b|')?")

# (name, regex, relation, confidence, hint level, triggers). relation is a RELATION_TYPES
# member or a resolver: "role"/"pair" (group r), "job" (group j), "work", "joined", "started".
# Triggers: the pattern runs when one of the words is in the text, and, after a "|", one of the
# words after it too (a copula, for the patterns that need one).
PATTERN_TABLE: Final[tuple[tuple[str, str, str, float, int, str], ...]] = (
    ("work", rf"{_SUBJ} (?:work|works|worked|working)(?:(?: (?:full-time|part-time|remotely"
        rf"|there|now))? (?P<at>at)| as (?:a|an|the) (?:[a-z-]+ ){{0,3}}?(?P<as>at|for|with)"
        rf"| (?P<for>for)|(?: closely| together)? (?P<with>with)){_THE}{_obj('o')}", "work",
        EXPLICIT, ROLE, "work works worked working"),
    ("studies_at", rf"{_SUBJ} (?:study|studies|studied|studying|enrolled|graduated|attend"
        rf"|attends|attended|attending)(?: at| in| from)?{_THE}{_ent('o')}(?!')", "member_of",
        POSSESSIVE, HINT, "study studies studied studying enrolled graduated attend attends "
        "attended attending"),
    ("employed", rf"{_SUBJ} (?:employed|hired|recruited) (?:by|at){_THE}{_ent('o')}",
        "works_at", EXPLICIT, ROLE, "employed hired recruited"),
    ("got_job", rf"{_SUBJ} (?:got|landed|started|accepted|took|start|starting|found"
        rf"|have|has) (?:a |an |the |my )?(?:new |full-time |part-time |dream )?(?:job|position"
        rf"|internship|role) (?:at|with){_THE}{_ent('o')}", "works_at", EXPLICIT, ROLE,
        "job position internship role"),
    ("my_job", rf"{_kept_poss('s')} (?:new |current |full-time |part-time |dream )?(?:job"
        rf"|position|internship) (?:at|with){_THE}{_ent('o')}", "works_at", POSSESSIVE, ROLE,
        "job position internship"),
    ("job_title", rf"{_who('s')}{_COP} (?:a|an|the) (?P<j>(?:[a-z-]+ ){{0,2}}{_JOB_HEAD})"
        rf" (?P<p>at|for|with|of){_THE}{_ent('o')}", "job", POSSESSIVE, HINT,
        f"at for with of|{_BE}"),
    ("joined", rf"{_SUBJ} (?:joined|join|joins|joining|rejoined){_THE}{_ent('o')}"
        r"(?! (?:for|at|in|on|to)\b)", "joined", POSSESSIVE, HINT, "joined join joins joining "
        "rejoined"),
    ("manages", rf"{_SUBJ} (?:manage|manages|managed|managing|supervise|supervises"
        rf"|supervised|supervising|oversee|oversees|oversaw|overseeing){_THE}{_obj('o')}",
        "manages", EXPLICIT, ROLE, "manage manages managed managing supervise supervises "
        "supervised supervising oversee oversees oversaw overseeing"),
    ("reports_to", rf"{_SUBJ} (?:report|reports|reporting) (?:directly )?to"
        rf"{_THE}{_obj('o')}", "reports_to", EXPLICIT, ROLE, "report reports reporting"),
    ("friends_with", rf"{_SUBJ} (?:(?:best|good|close|great|old) )?friends with"
        rf" {_obj('o')}", "friend_of", EXPLICIT, ROLE, "friends"),
    ("befriended", rf"{_SUBJ} befriended {_obj('o')}", "friend_of", EXPLICIT, ROLE,
        "befriended"),
    ("lives_in", rf"{_SUBJ} (?:live|lives|lived|living|reside|resides|resided"
        rf"|residing|settled)(?: (?:here|there|now|currently))? in{_THE}{_ent('o')}",
        "lives_in", EXPLICIT, ROLE, "live lives lived living reside resides resided residing "
        "settled"),
    ("moved_to", rf"{_SUBJ} (?:moved|move|moves|moving|relocated|relocating|relocate)"
        rf"(?: (?:back|here|there|out|over|away))? (?:to|in){_THE}{_ent('o')}", "lives_in",
        EXPLICIT, ROLE, "moved move moves moving relocated relocating relocate"),
    ("based_in", rf"{_SUBJ} (?:based|headquartered) (?:in|out of){_THE}{_ent('o')}",
        "lives_in", EXPLICIT, ROLE, "based headquartered"),
    ("married_to", rf"{_SUBJ} married (?:to )?{_obj('o')}", "married_to", EXPLICIT,
        ROLE, "married"),
    ("marries", rf"{_SUBJ} (?:marry|marries|marrying|wed) {_obj('o')}", "married_to",
        EXPLICIT, ROLE, "marry marries marrying wed"),
    ("engaged_to", rf"{_SUBJ} engaged to {_obj('o')}", "dating", EXPLICIT, ROLE,
        "engaged"),
    ("dating", rf"{_SUBJ} (?:dating|dates|in a relationship with|going out with)"
        rf" {_obj('o')}", "dating", EXPLICIT, ROLE, "dating dates relationship out"),
    ("member_of", rf"{_who('s')}{_COP} (?:a |an |one of the |the )?(?:(?:active|proud|founding"
        rf"|new|longtime|long-time|lifelong) )?(?:member|members|part) of{_THE}{_ent('o')}",
        "member_of", EXPLICIT, ROLE, f"member members part|{_BE}"),
    ("belongs_to", rf"{_SUBJ} (?:belong|belongs|belonged|belonging) to{_THE}"
        rf"{_ent('o')}", "member_of", EXPLICIT, ROLE, "belong belongs belonged belonging"),
    ("founded", rf"{_SUBJ} (?:founded|co-founded|cofounded|established){_THE}"
        rf"{_ent('o')}", "founded", EXPLICIT, ROLE, "founded co-founded cofounded established"),
    ("started", rf"{_SUBJ} (?:started|launched|start|launch){_THE}{_ent('o')}(?!')",
        "started", WEAK, HINT, "started launched start launch"),
    ("uses", rf"{_SUBJ} (?:use|uses|used|using){_THE}{_ent('o')}", "uses", EXPLICIT,
        HINT, "use uses used using"),
    ("created", rf"{_SUBJ} (?:created|create|creates|creating|built|build|builds"
        rf"|building|wrote|write|writes|writing|written|designed|design|designs|designing"
        rf"|developed|develop|develops|developing|invented|composed|painted|coded|authored"
        rf"|produced|directed){_THE}{_ent('o')}(?! (?:a|an|the|some|my|his|her|their|our|me"
        r"|him|them|us)\b)", "created", EXPLICIT, HINT, "created create creates creating "
        "built build builds building wrote write writes writing written designed design designs "
        "designing developed develop develops developing invented composed painted coded "
        "authored produced directed"),
    ("collaborates", rf"{_SUBJ} (?:collaborate|collaborates|collaborated"
        rf"|collaborating|cooperated|cooperating)(?: closely)? with{_THE}{_obj('o')}",
        "collaborates_with", EXPLICIT, ROLE, "collaborate collaborates collaborated "
        "collaborating cooperated cooperating"),
    ("teamed_up", rf"{_SUBJ} (?:teamed|team|teaming|teams) up with{_THE}{_obj('o')}",
        "collaborates_with", POSSESSIVE, CONTEXT, "teamed team teaming teams"),
    ("mentors", rf"{_SUBJ} (?:mentor|mentors|mentored|mentoring|coach|coaches"
        rf"|coached|coaching|tutor|tutors|tutored|tutoring) {_obj('o')}", "mentors", EXPLICIT,
        CONTEXT, "mentor mentors mentored mentoring coach coaches coached coaching tutor tutors "
        "tutored tutoring"),
    ("competes", rf"{_SUBJ} (?:compete|competes|competed|competing) (?:directly )?"
        rf"(?:with|against){_THE}{_obj('o')}", "competitor_of", EXPLICIT, CONTEXT,
        "compete competes competed competing"),
    ("partnered", rf"{_SUBJ} (?:partnered|partnering|partners|partner|in partnership"
        rf"|in a partnership) (?:up )?with{_THE}{_obj('o')}", "partner_of", EXPLICIT, CONTEXT,
        "partnered partnering partners partner partnership"),
    ("knows", rf"{_SUBJ} (?:know|knows|knew|known) {_obj('o')}", "knows", POSSESSIVE,
        CONTEXT, "know knows knew known"),
    ("met", rf"{_SUBJ} (?:met|meet|meets|meeting)(?: up)?(?: with)? {_obj('o')}",
        "knows", WEAK, CONTEXT, "met meet meets meeting"),
    ("role_is", rf"{_who('s')}{_COP} (?:also )?(?:a |an |the |one of )?{_poss('o')} {_MOD}"
        rf"(?P<r>{_ROLE_RE})s?\b", "role", EXPLICIT, ROLE, f"ROLES|{_BE}"),
    ("role_of", rf"{_who('s')}{_COP} (?:a |an |the |one of )?(?:(?:my|his|her|their|our) )?"
        rf"{_MOD}(?P<r>{_ROLE_RE})s? (?:of|to|for){_THE}{_obj('o')}", "role", EXPLICIT, ROLE,
        f"ROLES|{_BE}"),
    ("role_appos", rf"{_kept_poss('o')} {_MOD}(?P<r>{_ROLE_RE})s?(?:,| is| was| named"
        rf"| called)? (?P<s>{MASKED_NAME})(?:,? and (?P<s2>{MASKED_NAME}))?", "role", POSSESSIVE,
        ROLE, "ROLES"),
    ("role_appos_rev", rf"{_ent('s')}, (?:who is |who's )?{_poss('o')} {_MOD}(?P<r>{_ROLE_RE})"
        r"(?=[,.!?;]|$)", "role", POSSESSIVE, ROLE, "ROLES"),
    ("has_role_named", rf"{_who('o')}{_AUX} (?:has|have|had|got) (?:a |an |one |two |three )?"
        rf"{_MOD}(?P<r>{_ROLE_RE})s? (?:named|called) {_ent('s')}", "role", EXPLICIT, ROLE,
        "named called"),
    ("pair", rf"(?P<s>{MASKED_NAME}|\bi\b|\bme\b),? and {_who('o')}{_COP} (?:(?:best|good|close|old"
        rf"|great|longtime) )?(?P<r>{'|'.join(PAIRS)})\b", "pair", EXPLICIT, ROLE,
        " ".join(PAIRS)),
    ("pair_met", rf"{_who('s')} and {_who('o')}(?: first| finally| just)? met\b", "knows", WEAK,
        CONTEXT, "met"),
    ("pair_together", rf"{_who('s')} and {_who('o')}{_AUX} (?:work|worked|working|collaborate"
        rf"|collaborated|collaborating) together\b", "collaborates_with", POSSESSIVE, CONTEXT,
        "together"),
)  # fmt: skip
PATTERNS: Final = tuple(lazy_re(p[1]) for p in PATTERN_TABLE)


def _trigger_index() -> tuple[dict[str, tuple[int, ...]], dict[int, frozenset[str]]]:
    """Trigger word (bare, or with the punctuation that may follow it) -> pattern indices; and
    pattern index -> the words of which one must also be present."""
    marks = ("", ",", ".", "!", "?", ";", ":")
    index: dict[str, tuple[int, ...]] = {}
    required: dict[int, frozenset[str]] = {}
    for i, spec in enumerate(PATTERN_TABLE):
        any_of, _, also = spec[5].partition("|")
        words = word_list(any_of) if any_of != "ROLES" else [
            f for r in ROLES for f in (*r.split(), r.split()[-1] + "s")]
        for word in sorted({w + p for w in words for p in marks}):
            index[word] = (*index.get(word, ()), i)
        if also:
            required[i] = frozenset(w + p for w in word_list(also) for p in marks)
    return index, required


TRIGGERS, REQUIRED = _trigger_index()
TRIGGER_WORDS: Final = frozenset(TRIGGERS).union(*REQUIRED.values())
FIRST_PERSON: Final = frozenset(w + p for w in word_list("i me my mine i'm i've i'll i'd")
                                 for p in ("", ",", ".", "!", "?", ";", ":"))

# Allowed types of (subject, object) per relation ("other" always passes), and the type an
# explicit relation gives each end.
_P, _O, _A = frozenset({"person"}), frozenset({"organization"}), frozenset({"person",
                                                                            "organization"})
ALLOWED: Final[dict[str, tuple[frozenset[str], frozenset[str]]]] = {
    "works_at": (_P, _O), "reports_to": (_P, _P), "lives_in": (_A, frozenset({"place"})),
    "manages": (_A, frozenset({"person", "organization", "product", "concept"})),
    "member_of": (_A, _O), "founded": (_A, frozenset({"organization", "product", "event",
                                                        "concept"})),
    "uses": (_A, frozenset({"product", "organization", "concept"})),
    "created": (_A, frozenset({"product", "concept", "event", "organization"})),
    **dict.fromkeys(("friend_of", "dating", "married_to", "parent_of", "child_of", "sibling_of",
                     "mentors", "knows"), (_P, _P)),
    **dict.fromkeys(("collaborates_with", "competitor_of", "partner_of", "client_of"),
                    (_A, _A)),
}  # fmt: skip
HINTS: Final[dict[str, tuple[str | None, str | None]]] = {
    "works_at": ("person", "organization"), "reports_to": ("person", "person"),
    "manages": ("person", None), "lives_in": ("person", "place"),
    "member_of": (None, "organization"), "founded": ("person", "organization"),
    "uses": (None, "product"), "created": (None, "product"), "client_of": (None, "organization"),
    **dict.fromkeys(("friend_of", "dating", "married_to", "parent_of", "child_of", "sibling_of",
                     "mentors", "knows"), ("person", "person")),
}  # fmt: skip
SYMMETRIC: Final = frozenset({"friend_of", "dating", "married_to", "sibling_of", "knows",
                               "collaborates_with", "competitor_of", "partner_of"})
