"""Entities and typed relations a text states, by deterministic rules: no model, no tagger.

``extract(text)`` returns ``(entities, relations)`` for the ``memory.ingested`` event: a pure
function of the text, its rules versioned by :data:`EXTRACTOR_VERSION` (bump it on any change).

Entities
* A name is a run of capitalized (or camel-case: "iPhone") words joined by spaces, by the
  connectors of/de/da/van/von/... and "&" ("Bank of America"), or after a title or an initial
  ("Dr. Smith", "J. K. Rowling"); a number right after it joins it ("iPhone 15"). A possessive
  "'s" is left out of the name.
* Sentences: a word opens one at the start of the text or of a line, or after ``. ! ? … :``
  (a "." that ends an abbreviation, "Dr." or "J.", does not count). A single capitalized word
  that opens a sentence is only tentative ("Lately", "Nature"): it is kept if the same key
  appears elsewhere, has a type cue, or takes part in a relation.
* Never names: the stoplist (function words, interjections, days, months, "Mom", "CEO"),
  contractions ("Don't"), runs longer than six words, a lone head word ("Park"), shouted words
  ("JUST DOING IT") and texts that are mostly capitalized (titles). Uncased scripts give none.
* Lowercase words are never entities, not even as a pattern's object ("uses python"): a graph
  node for every common noun ("works at a bakery") costs more precision than it gains.
* First person (I, me, my, mine) is :data:`SELF_KEY`, listed only when in a relation. There is
  no coreference: "he works at X" states nothing.
* Type: the strongest evidence wins, the earliest on a tie. Strongest: the name itself (a small
  gazetteer; head words such as "Inc", "University", "Lake", "Festival"; a title; a digit or
  camel case means a product). Then the role in an explicit relation (the object of "works at"
  is an organization), then the context ("Hey Mel", "told Mel", "Mel's dad", "Mel:", "moved to
  X", "bought an X"), then the role in an ambiguous relation ("joined X"). Else "other".

Relations are regexes over the text with its names masked as placeholders and the rest
lowercased; a pattern runs only when one of its trigger words is present. The verb follows its
subject and auxiliaries (or an appositive, "Lucy, my sister, works at X", or a shared first
clause, "I grew up in Ohio but now live in Austin"), so negation and modals ("don't", "not",
"used to", "might") break a match; no pattern crosses a sentence end. A relation whose ends have
types it does not allow is dropped ("I met Paris": knows needs people). Confidence:
:data:`EXPLICIT` for a stated verb or copula ("works at", "is Ann's sister"), :data:`POSSESSIVE`
for a possessive noun or a looser template ("my friend Ann", "joined X", "a nurse at X"),
:data:`WEAK` for weak evidence ("met", "started X", "my neighbour Ann").
"""

from __future__ import annotations

import functools
import re
import unicodedata
from typing import Final

from eventmem import codec
from eventmem.events import EntityRef, Extraction, RelationRef

__all__ = [
    "EXPLICIT", "EXTRACTOR_VERSION", "POSSESSIVE", "RELATION_TYPES", "SELF_KEY", "WEAK",
    "entity_key", "extract",
]  # fmt: skip

EXTRACTOR_VERSION: Final = "extract-1"
RELATION_TYPES: Final[tuple[str, ...]] = (
    "works_at", "manages", "reports_to", "friend_of", "lives_in", "parent_of", "child_of",
    "dating", "married_to", "member_of", "founded", "uses", "created", "collaborates_with",
    "mentors", "competitor_of", "partner_of", "client_of", "sibling_of", "knows",
)  # fmt: skip
SELF_KEY: Final = "self"
EXPLICIT: Final = 0.9
POSSESSIVE: Final = 0.7
WEAK: Final = 0.5

_SELF = EntityRef(SELF_KEY, "I", "person")
_INTRINSIC, _ROLE, _CONTEXT, _HINT = 4, 3, 2, 1  # evidence levels, strongest first



def _w(words: str) -> list[str]:
    return words.split()


# --- lexicon (entity_key forms) ----------------------------------------------------------------
_STOP: Final = frozenset(_w("""
i me my mine myself you your yours yourself he him his she her hers it its we us our ours they
them their theirs one someone somebody everyone everybody anyone nobody everything something
anything nothing the a an this that these those some any all each every both either neither no
not another other such what which who whom whose where when why how whatever however and or but
so because since if unless while although though as at by for from in into of off on onto out
over to up with without about above after against along among around before behind below
between beyond during except inside near outside through till until upon within via than then
yet nor plus also even just only still already again ever never always often sometimes usually
maybe perhaps probably definitely certainly actually really honestly seriously basically
literally totally anyway anyways besides meanwhile otherwise instead therefore thus indeed
overall lately recently finally hopefully luckily sadly unfortunately fortunately apparently
obviously clearly personally am is are was were be been being do does did done have has had can
could will would shall should may might must let lets get got go going went come came see saw
look looks looking sounds sound seems hope wish guess think know knew love like loved want need
feel felt take keep make made try tell told say said remember check imagine glad happy sorry sure
thanks thank thx ty please welcome congrats congratulations cheers hey hi hello hiya howdy yo
bye goodbye oh ooh ah aw aww awww wow whoa woah yay yes yeah yep yup ya no nope nah ok okay
alright haha hahaha lol lmao omg btw fyi imo tbh idk ugh hmm hm um uh well right cool great
awesome nice good amazing wonderful fantastic perfect exactly absolutely true sweet oops damn
gosh god jeez bravo woohoo here there very too much many more most less few little lot lots kind
sort same own new old big small best better merry dear today tonight tomorrow yesterday now soon
later morning afternoon evening night week weekend month year day days last next first second
once twice earlier ago currently monday tuesday wednesday thursday friday saturday sunday mon tue
tues wed thu thur thurs fri sat january february march april june july august september october
november december jan feb mar apr jun jul aug sep sept oct nov dec spring summer autumn fall
winter mom dad mum mama papa mommy daddy grandma grandpa granny nana sis bro babe baby honey dude
man guys girl buddy mate folks im ive id dont cant wont didnt isnt thats whats lets youre theyre
p ps self ceo cto cfo coo vp svp evp
"""))
_TITLES: Final = frozenset(_w("mr mrs ms mx dr prof sir miss aunt uncle"))
_CONNECTORS: Final = frozenset(_w("of de da del della di du van von der den la le al bin y"))
_CONTRACTED: Final = frozenset(_w("m re ve ll d t"))  # "I'm", "Don't": never names


def _set(words: str) -> frozenset[str]:
    return frozenset(w.strip() for w in words.split(",") if w.strip())


_GAZETTEER: Final[dict[str, str]] = {
    key: kind
    for kind, names in (
        ("place", """usa, america, united states, canada, mexico, brazil, argentina, chile, peru,
            colombia, uk, united kingdom, britain, england, scotland, wales, ireland, france,
            germany, spain, portugal, italy, greece, netherlands, holland, belgium, switzerland,
            austria, sweden, norway, denmark, finland, iceland, poland, russia, ukraine, turkey,
            israel, egypt, morocco, nigeria, kenya, south africa, ethiopia, india, pakistan, china,
            japan, korea, south korea, vietnam, thailand, singapore, malaysia, indonesia,
            philippines, australia, new zealand, iran, iraq, saudi arabia, uae, dubai, qatar, cuba,
            jamaica, puerto rico, europe, asia, africa, antarctica, north america, south america,
            latin america, middle east, scandinavia, caribbean, midwest, london, paris, berlin,
            madrid, rome, barcelona, amsterdam, vienna, prague, lisbon, dublin, athens, istanbul,
            moscow, tokyo, kyoto, osaka, seoul, beijing, shanghai, hong kong, taipei, bangkok,
            delhi, mumbai, bangalore, sydney, melbourne, toronto, vancouver, montreal, chicago,
            boston, seattle, austin, denver, atlanta, miami, houston, dallas, phoenix, portland,
            philadelphia, detroit, nashville, las vegas, los angeles, la, nyc, san francisco,
            san diego, brooklyn, manhattan, cairo, nairobi, lagos, rio de janeiro, sao paulo,
            buenos aires, lima, bogota, havana, zurich, geneva, munich, stockholm, oslo,
            copenhagen, helsinki, edinburgh, manchester, venice, florence, milan, naples,
            new york, california, texas, florida, hawaii, alaska, ohio, michigan, oregon,
            colorado, arizona, nevada, utah, montana, idaho, georgia, virginia, north carolina,
            south carolina, massachusetts, pennsylvania, illinois, minnesota, wisconsin,
            tennessee, kentucky, louisiana, maine, vermont, connecticut, new jersey, new mexico,
            indiana, iowa, kansas, missouri, nebraska, oklahoma, alabama, maryland, wyoming"""),
        ("organization", """google, apple, microsoft, amazon, facebook, meta, tesla, ibm, intel,
            nvidia, openai, uber, airbnb, starbucks, walmart, nasa, nhs, un, unicef, fbi, cia,
            harvard, stanford, mit, yale, oxford, cambridge, red cross, doordash, door dash,
            mcdonald, ikea, nike, adidas, disney, sony, samsung, linkedin, github, spotify,
            netflix, twitter, instagram, tiktok, youtube, slack, zoom, snapchat, pinterest"""),
        ("product", """iphone, ipad, macbook, android, windows, linux, excel, photoshop,
            whatsapp, chatgpt, python, javascript, kindle, playstation, xbox, minecraft,
            fortnite"""),
        ("event", """christmas, thanksgiving, halloween, easter, hanukkah, diwali, ramadan, eid,
            new year, new years eve, pride, olympics, super bowl, world cup, oktoberfest,
            coachella, burning man, comic con, black friday"""),
        ("concept", """english, spanish, french, german, italian, chinese, japanese, korean,
            russian, portuguese, arabic, hindi, swedish, dutch, greek, latin, hebrew, mandarin,
            american, british, canadian, mexican, indian, african, european, asian, christian,
            christianity, muslim, islam, jewish, judaism, buddhist, buddhism, hindu, hinduism,
            catholic, lgbt, lgbtq, lgbtqia, ai"""),
    )
    for key in _set(names)
}
# Head words: the last word of a name says its type ("Acme Labs", "Lake Tahoe" is a prefix).
_HEADS: Final[dict[str, str]] = {
    word: kind
    for kind, words in (
        ("event", """conference conferences festival fest summit wedding marathon concert party
            meetup fair expo tournament championship championships cup games parade gala
            ceremony show tour week day hackathon convention rally workshop retreat carnival
            exhibition contest competition awards race bowl prom reunion fundraiser gathering
            celebration"""),
        ("organization", """inc corp corporation co llc ltd plc gmbh labs lab university college
            school academy institute bank group company foundation hospital clinic team club
            society association agency council committee department ministry church museum
            library studio studios press media records airlines airways motors systems
            technologies tech software solutions partners ventures capital holdings industries
            enterprises services network union league center centre cafe café restaurant
            bakery bar shop store market band choir"""),
        ("place", """city town village county province district street st avenue ave road rd
            boulevard blvd lane square plaza park lake river mountain mountains mt beach island
            islands bay valley canyon falls forest woods hills hill coast desert sea ocean
            peninsula harbor harbour bridge trail airport station garden gardens zoo heights
            springs creek glacier neighborhood"""),
        ("concept", """theory science sciences studies therapy movement rights principle effect
            syndrome disorder disease philosophy religion language literature history
            mathematics math physics chemistry biology psychology economics ethics"""),
        ("product", "pro mini ultra edition app"),
    )
    for word in words.split()
}
_PREFIX_HEADS: Final[dict[str, str]] = {  # "Lake Tahoe", "University of Michigan"
    "lake": "place", "mount": "place", "mt": "place", "fort": "place", "cape": "place",
    "isle": "place", "university": "organization", "college": "organization",
    "bank": "organization", "institute": "organization", "school": "organization",
    "academy": "organization", "department": "organization", "ministry": "organization",
    "church": "organization", "museum": "organization", "society": "organization",
}  # fmt: skip
_MEMBERSHIP: Final = frozenset(_w("club team society association union league band choir"))
_CONCEPT_SUFFIXES: Final = ("ism", "ology", "ics")


def entity_key(name: str) -> str:
    """The normalized identity of a name: NFKC, casefolded, possessive "'s" and punctuation
    dropped ("O'Brien" -> "obrien", "U.S." -> "us", "&" -> "and"), spaces collapsed. Idempotent.
    """
    if name.replace(" ", "").isalnum() and name.isascii():  # the common case, fast
        return " ".join(name.lower().split())
    s = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    s = _KEY_DROP.sub("", _KEY_POSS.sub("", s.translate(_APOS)).replace("&", " and "))
    return " ".join(_KEY_SPLIT.sub(" ", s).split())


_APOS: Final = {ord(c): "'" for c in "’‘`´ʼ"}
_APOS_RE = re.compile("[’‘`´ʼ]")
_KEY_POSS = re.compile(r"'s\b")
_KEY_DROP = re.compile(r"['.]")
_KEY_SPLIT = re.compile(r"[\W_]+")

# --- relation patterns over a masked sentence -------------------------------------------------
_E = "\x00[0-9]+\x01"  # a masked name: "\x00<mention index>\x01"


def _who(g: str) -> str:  # a name or "i"
    return rf"(?P<{g}>{_E}|\bi\b)"


def _obj(g: str) -> str:  # a name not followed by "'s" (then it owns the object), or "me"
    return rf"(?P<{g}>{_E}(?!')|\bme\b|\bmine\b)"


def _ent(g: str) -> str:
    return rf"(?P<{g}>{_E}(?!'))"


def _poss(g: str) -> str:  # "Ann's", "James'", "my"
    return rf"(?P<{g}>{_E}(?='s\b|'(?![a-z]))|\bmy\b)(?:'s\b|')?"


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
_NOT_STATED = _w("do does did is are was were has have had wish if unless whether imagine pretend")
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
_ROLES: Final[dict[str, tuple[str, bool]]] = {
    **dict.fromkeys(_w("friend buddy pal bestie bff"), ("friend_of", False)),
    **dict.fromkeys(_w("boss manager supervisor"), ("manages", False)),
    **dict.fromkeys(_w("employee assistant"), ("manages", True)),
    **dict.fromkeys(_w("mentor coach"), ("mentors", False)),
    **dict.fromkeys(_w("mentee protege protégé apprentice"), ("mentors", True)),
    **dict.fromkeys(_w("father mother dad mom mum parent stepfather stepmother stepdad stepmom "
                    "step-dad step-mom papa mama"), ("parent_of", False)),
    **dict.fromkeys(_w("son daughter child children kid stepson stepdaughter"),
                    ("child_of", False)),
    **dict.fromkeys(_w("brother sister sibling twin stepbrother stepsister half-brother "
                    "half-sister"), ("sibling_of", False)),
    **dict.fromkeys(_w("wife husband spouse"), ("married_to", False)),
    **dict.fromkeys(_w("boyfriend girlfriend fiance fiancé fiancee fiancée"),
                    ("dating", False)),
    **dict.fromkeys(("partner", "business partner"), ("partner_of", False)),
    **dict.fromkeys(_w("colleague coworker co-worker teammate collaborator workmate"),
                    ("collaborates_with", False)),
    **dict.fromkeys(_w("client customer"), ("client_of", False)),
    **dict.fromkeys(_w("competitor rival"), ("competitor_of", False)),
    **dict.fromkeys(_w("founder co-founder cofounder"), ("founded", False)),
    "member": ("member_of", False),
    "employer": ("works_at", True),
    **dict.fromkeys(_w("neighbor neighbour roommate flatmate housemate classmate "
                       "acquaintance"), ("knows", False)),
}  # fmt: skip
_ANY_ROLES: Final = frozenset(("client", "customer", "competitor", "rival", "partner",
                              "business partner", "employer", "member"))
_ROLE_RE = "|".join(sorted(map(re.escape, _ROLES), key=lambda r: (-len(r), r)))
_PAIRS: Final[dict[str, str]] = {  # "A and B are <word>"
    **dict.fromkeys(_w("friends besties"), "friend_of"),
    **dict.fromkeys(_w("siblings brothers sisters twins"), "sibling_of"),
    "married": "married_to", "dating": "dating", "engaged": "dating",
    **dict.fromkeys(_w("colleagues coworkers co-workers teammates"), "collaborates_with"),
    **dict.fromkeys(_w("competitors rivals"), "competitor_of"), "partners": "partner_of",
    **dict.fromkeys(_w("neighbors neighbours roommates classmates"), "knows"),
}  # fmt: skip
_JOB_HEAD = (r"[a-z-]*(?:er|or|ist|ant|ent|ian|ee|yst|ive|nurse|chef|cook|intern|clerk|coach"
             r"|barista|ceo|cto|cfo|coo|vp|lead|head|staff|dj|rep|chair)")  # fmt: skip
_JOB_OF: Final = frozenset(_w("ceo cto cfo coo president director head chair chairman chairwoman "
                           "member members customer client"))  # "the CEO of X"
_JOB_REL: Final[dict[str, str]] = {
    **dict.fromkeys(_w("student volunteer member members fellow resident"), "member_of"),
    **dict.fromkeys(_w("customer client patient regular"), "client_of"),
    **dict.fromkeys(_w("fan guest visitor speaker attendee newcomer beginner believer"), ""),
}  # fmt: skip
_GONE = _w("lost quit left lose leave leaving losing")  # "lost my job at X": no longer


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
_PATTERN_TABLE: Final[tuple[tuple[str, str, str, float, int, str], ...]] = (
    ("work", rf"{_SUBJ} (?:work|works|worked|working)(?:(?: (?:full-time|part-time|remotely"
        rf"|there|now))? (?P<at>at)| as (?:a|an|the) (?:[a-z-]+ ){{0,3}}?(?P<as>at|for|with)"
        rf"| (?P<for>for)|(?: closely| together)? (?P<with>with)){_THE}{_obj('o')}", "work",
        EXPLICIT, _ROLE, "work works worked working"),
    ("studies_at", rf"{_SUBJ} (?:study|studies|studied|studying|enrolled|graduated|attend"
        rf"|attends|attended|attending)(?: at| in| from)?{_THE}{_ent('o')}(?!')", "member_of",
        POSSESSIVE, _HINT, "study studies studied studying enrolled graduated attend attends "
        "attended attending"),
    ("employed", rf"{_SUBJ} (?:employed|hired|recruited) (?:by|at){_THE}{_ent('o')}",
        "works_at", EXPLICIT, _ROLE, "employed hired recruited"),
    ("got_job", rf"{_SUBJ} (?:got|landed|started|accepted|took|start|starting|found"
        rf"|have|has) (?:a |an |the |my )?(?:new |full-time |part-time |dream )?(?:job|position"
        rf"|internship|role) (?:at|with){_THE}{_ent('o')}", "works_at", EXPLICIT, _ROLE,
        "job position internship role"),
    ("my_job", rf"{_kept_poss('s')} (?:new |current |full-time |part-time |dream )?(?:job"
        rf"|position|internship) (?:at|with){_THE}{_ent('o')}", "works_at", POSSESSIVE, _ROLE,
        "job position internship"),
    ("job_title", rf"{_who('s')}{_COP} (?:a|an|the) (?P<j>(?:[a-z-]+ ){{0,2}}{_JOB_HEAD})"
        rf" (?P<p>at|for|with|of){_THE}{_ent('o')}", "job", POSSESSIVE, _HINT,
        f"at for with of|{_BE}"),
    ("joined", rf"{_SUBJ} (?:joined|join|joins|joining|rejoined){_THE}{_ent('o')}"
        r"(?! (?:for|at|in|on|to)\b)", "joined", POSSESSIVE, _HINT, "joined join joins joining "
        "rejoined"),
    ("manages", rf"{_SUBJ} (?:manage|manages|managed|managing|supervise|supervises"
        rf"|supervised|supervising|oversee|oversees|oversaw|overseeing){_THE}{_obj('o')}",
        "manages", EXPLICIT, _ROLE, "manage manages managed managing supervise supervises "
        "supervised supervising oversee oversees oversaw overseeing"),
    ("reports_to", rf"{_SUBJ} (?:report|reports|reporting) (?:directly )?to"
        rf"{_THE}{_obj('o')}", "reports_to", EXPLICIT, _ROLE, "report reports reporting"),
    ("friends_with", rf"{_SUBJ} (?:(?:best|good|close|great|old) )?friends with"
        rf" {_obj('o')}", "friend_of", EXPLICIT, _ROLE, "friends"),
    ("befriended", rf"{_SUBJ} befriended {_obj('o')}", "friend_of", EXPLICIT, _ROLE,
        "befriended"),
    ("lives_in", rf"{_SUBJ} (?:live|lives|lived|living|reside|resides|resided"
        rf"|residing|settled)(?: (?:here|there|now|currently))? in{_THE}{_ent('o')}",
        "lives_in", EXPLICIT, _ROLE, "live lives lived living reside resides resided residing "
        "settled"),
    ("moved_to", rf"{_SUBJ} (?:moved|move|moves|moving|relocated|relocating|relocate)"
        rf"(?: (?:back|here|there|out|over|away))? (?:to|in){_THE}{_ent('o')}", "lives_in",
        EXPLICIT, _ROLE, "moved move moves moving relocated relocating relocate"),
    ("based_in", rf"{_SUBJ} (?:based|headquartered) (?:in|out of){_THE}{_ent('o')}",
        "lives_in", EXPLICIT, _ROLE, "based headquartered"),
    ("married_to", rf"{_SUBJ} married (?:to )?{_obj('o')}", "married_to", EXPLICIT,
        _ROLE, "married"),
    ("marries", rf"{_SUBJ} (?:marry|marries|marrying|wed) {_obj('o')}", "married_to",
        EXPLICIT, _ROLE, "marry marries marrying wed"),
    ("engaged_to", rf"{_SUBJ} engaged to {_obj('o')}", "dating", EXPLICIT, _ROLE,
        "engaged"),
    ("dating", rf"{_SUBJ} (?:dating|dates|in a relationship with|going out with)"
        rf" {_obj('o')}", "dating", EXPLICIT, _ROLE, "dating dates relationship out"),
    ("member_of", rf"{_who('s')}{_COP} (?:a |an |one of the |the )?(?:(?:active|proud|founding"
        rf"|new|longtime|long-time|lifelong) )?(?:member|members|part) of{_THE}{_ent('o')}",
        "member_of", EXPLICIT, _ROLE, f"member members part|{_BE}"),
    ("belongs_to", rf"{_SUBJ} (?:belong|belongs|belonged|belonging) to{_THE}"
        rf"{_ent('o')}", "member_of", EXPLICIT, _ROLE, "belong belongs belonged belonging"),
    ("founded", rf"{_SUBJ} (?:founded|co-founded|cofounded|established){_THE}"
        rf"{_ent('o')}", "founded", EXPLICIT, _ROLE, "founded co-founded cofounded established"),
    ("started", rf"{_SUBJ} (?:started|launched|start|launch){_THE}{_ent('o')}(?!')",
        "started", WEAK, _HINT, "started launched start launch"),
    ("uses", rf"{_SUBJ} (?:use|uses|used|using){_THE}{_ent('o')}", "uses", EXPLICIT,
        _HINT, "use uses used using"),
    ("created", rf"{_SUBJ} (?:created|create|creates|creating|built|build|builds"
        rf"|building|wrote|write|writes|writing|written|designed|design|designs|designing"
        rf"|developed|develop|develops|developing|invented|composed|painted|coded|authored"
        rf"|produced|directed){_THE}{_ent('o')}(?! (?:a|an|the|some|my|his|her|their|our|me"
        r"|him|them|us)\b)", "created", EXPLICIT, _HINT, "created create creates creating "
        "built build builds building wrote write writes writing written designed design designs "
        "designing developed develop develops developing invented composed painted coded "
        "authored produced directed"),
    ("collaborates", rf"{_SUBJ} (?:collaborate|collaborates|collaborated"
        rf"|collaborating|cooperated|cooperating)(?: closely)? with{_THE}{_obj('o')}",
        "collaborates_with", EXPLICIT, _ROLE, "collaborate collaborates collaborated "
        "collaborating cooperated cooperating"),
    ("teamed_up", rf"{_SUBJ} (?:teamed|team|teaming|teams) up with{_THE}{_obj('o')}",
        "collaborates_with", POSSESSIVE, _CONTEXT, "teamed team teaming teams"),
    ("mentors", rf"{_SUBJ} (?:mentor|mentors|mentored|mentoring|coach|coaches"
        rf"|coached|coaching|tutor|tutors|tutored|tutoring) {_obj('o')}", "mentors", EXPLICIT,
        _CONTEXT, "mentor mentors mentored mentoring coach coaches coached coaching tutor tutors "
        "tutored tutoring"),
    ("competes", rf"{_SUBJ} (?:compete|competes|competed|competing) (?:directly )?"
        rf"(?:with|against){_THE}{_obj('o')}", "competitor_of", EXPLICIT, _CONTEXT,
        "compete competes competed competing"),
    ("partnered", rf"{_SUBJ} (?:partnered|partnering|partners|partner|in partnership"
        rf"|in a partnership) (?:up )?with{_THE}{_obj('o')}", "partner_of", EXPLICIT, _CONTEXT,
        "partnered partnering partners partner partnership"),
    ("knows", rf"{_SUBJ} (?:know|knows|knew|known) {_obj('o')}", "knows", POSSESSIVE,
        _CONTEXT, "know knows knew known"),
    ("met", rf"{_SUBJ} (?:met|meet|meets|meeting)(?: up)?(?: with)? {_obj('o')}",
        "knows", WEAK, _CONTEXT, "met meet meets meeting"),
    ("role_is", rf"{_who('s')}{_COP} (?:also )?(?:a |an |the |one of )?{_poss('o')} {_MOD}"
        rf"(?P<r>{_ROLE_RE})s?\b", "role", EXPLICIT, _ROLE, f"ROLES|{_BE}"),
    ("role_of", rf"{_who('s')}{_COP} (?:a |an |the |one of )?(?:(?:my|his|her|their|our) )?"
        rf"{_MOD}(?P<r>{_ROLE_RE})s? (?:of|to|for){_THE}{_obj('o')}", "role", EXPLICIT, _ROLE,
        f"ROLES|{_BE}"),
    ("role_appos", rf"{_kept_poss('o')} {_MOD}(?P<r>{_ROLE_RE})s?(?:,| is| was| named"
        rf"| called)? (?P<s>{_E})(?:,? and (?P<s2>{_E}))?", "role", POSSESSIVE, _ROLE, "ROLES"),
    ("role_appos_rev", rf"{_ent('s')}, (?:who is |who's )?{_poss('o')} {_MOD}(?P<r>{_ROLE_RE})"
        r"(?=[,.!?;]|$)", "role", POSSESSIVE, _ROLE, "ROLES"),
    ("has_role_named", rf"{_who('o')}{_AUX} (?:has|have|had|got) (?:a |an |one |two |three )?"
        rf"{_MOD}(?P<r>{_ROLE_RE})s? (?:named|called) {_ent('s')}", "role", EXPLICIT, _ROLE,
        "named called"),
    ("pair", rf"(?P<s>{_E}|\bi\b|\bme\b),? and {_who('o')}{_COP} (?:(?:best|good|close|old"
        rf"|great|longtime) )?(?P<r>{'|'.join(_PAIRS)})\b", "pair", EXPLICIT, _ROLE,
        " ".join(_PAIRS)),
    ("pair_met", rf"{_who('s')} and {_who('o')}(?: first| finally| just)? met\b", "knows", WEAK,
        _CONTEXT, "met"),
    ("pair_together", rf"{_who('s')} and {_who('o')}{_AUX} (?:work|worked|working|collaborate"
        rf"|collaborated|collaborating) together\b", "collaborates_with", POSSESSIVE, _CONTEXT,
        "together"),
)  # fmt: skip
_PATTERNS: Final = tuple(re.compile(p[1]) for p in _PATTERN_TABLE)


def _trigger_index() -> tuple[dict[str, tuple[int, ...]], dict[int, frozenset[str]]]:
    """Trigger word (bare, or with the punctuation that may follow it) -> pattern indices; and
    pattern index -> the words of which one must also be present."""
    marks = ("", ",", ".", "!", "?", ";", ":")
    index: dict[str, tuple[int, ...]] = {}
    required: dict[int, frozenset[str]] = {}
    for i, spec in enumerate(_PATTERN_TABLE):
        any_of, _, also = spec[5].partition("|")
        words = _w(any_of) if any_of != "ROLES" else [
            f for r in _ROLES for f in (*r.split(), r.split()[-1] + "s")]
        for word in sorted({w + p for w in words for p in marks}):
            index[word] = (*index.get(word, ()), i)
        if also:
            required[i] = frozenset(w + p for w in _w(also) for p in marks)
    return index, required


_TRIGGERS, _REQUIRED = _trigger_index()
_TRIGGER_WORDS: Final = frozenset(_TRIGGERS).union(*_REQUIRED.values())
_FIRST_PERSON: Final = frozenset(w + p for w in _w("i me my mine i'm i've i'll i'd")
                                 for p in ("", ",", ".", "!", "?", ";", ":"))

# Allowed types of (subject, object) per relation ("other" always passes), and the type an
# explicit relation gives each end.
_P, _O, _A = frozenset({"person"}), frozenset({"organization"}), frozenset({"person",
                                                                            "organization"})
_ALLOWED: Final[dict[str, tuple[frozenset[str], frozenset[str]]]] = {
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
_HINTS: Final[dict[str, tuple[str | None, str | None]]] = {
    "works_at": ("person", "organization"), "reports_to": ("person", "person"),
    "manages": ("person", None), "lives_in": ("person", "place"),
    "member_of": (None, "organization"), "founded": ("person", "organization"),
    "uses": (None, "product"), "created": (None, "product"), "client_of": (None, "organization"),
    **dict.fromkeys(("friend_of", "dating", "married_to", "parent_of", "child_of", "sibling_of",
                     "mentors", "knows"), ("person", "person")),
}  # fmt: skip
_SYMMETRIC: Final = frozenset({"friend_of", "dating", "married_to", "sibling_of", "knows",
                               "collaborates_with", "competitor_of", "partner_of"})

# Context cues, read around each masked name: a person addressed or speaking, a place travelled
# to, a product bought.
_GREET: Final = frozenset(_w("hey hi hello hiya thanks congrats congratulations dear bye sorry "
                          "welcome"))
_GREET2: Final = frozenset(("thank you", "miss you", "love you", "of you", "good job",
                            "take care"))
_SPEAKS: Final = (" said", " says", " told", " tells", " asked", " asks", " texted", " replied",
                  " thinks", " feels", " and me ", " and i are", " and i were", " and i have",
                  " and i've", " and i had", " and i both", " and i went", " and i got",
                  " and i met", " and i will", " and i'll")
_TELL: Final = frozenset(_w("told tell tells telling asked ask asks texted text texting "
                            "thanked hugged kissed invited reminded"))
_PREPS: Final = frozenset(_w("to in from around through across near outside at"))
_MOTION: Final = frozenset(_w("""went go goes going gone travelled traveled travelling traveling
    travel travels trip trips moved moving flew fly flying drove driving live lives lived living
    stay stayed staying born raised up based vacation vacationed vacationing holiday headed
    heading arrived arriving visiting touring honeymoon back"""))
_BUY: Final = frozenset(_w("bought buy buys buying purchased ordered downloaded installed"))
_BUY_FILL: Final = frozenset(_w("a an the my new brand-new brand some old used"))


def _context(masked: str, a: int, b: int) -> str | None:
    """The type the words around the masked name at ``masked[a:b]`` suggest, if any."""
    after = masked[b:b + 24]
    if after.startswith("'"):  # "Emily's dad": a person; "Joe's bakery": nothing known
        return "person" if after[3:].split(" ", 1)[0].rstrip(",.!?") in _ROLES else None
    if after[1:].split(" ", 1)[0].rstrip(",.!?;:") in _HEADS:  # "the Taylor Swift concert"
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


# --- scanning ---------------------------------------------------------------------------------
_CAP = re.compile(r"[A-Z\u00c0-\U0010ffff][\w'’.\-]*")  # then checked: isupper, word start
_JOIN = re.compile(r"[ \t]+(?:(?:of|de|da|del|della|di|du|van|von|der|den|la|le|al|bin|y|&)"
                   r"(?:[ \t]+the)?[ \t]+)?")  # fmt: skip
_TITLE_JOIN = re.compile(r"\.?[ \t]+")
_NUMBER = re.compile(r"[ \t]+[0-9]{1,4}\b(?![.,:/%][0-9])")
_DIGIT = re.compile(r"[0-9]")
_PLACEHOLDER = re.compile(_E)
_HEAD_ONLY: Final = _HEADS.keys() | _PREFIX_HEADS.keys() | _TITLES  # "the Park": no name
_LEAD: Final = frozenset(" \t\r\n\"'“‘([*-–—")
_ABBREVS: Final = frozenset(_w("mr mrs ms mx dr prof st mt jr sr inc ltd co corp vs etc"))


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
def _name_info(name: str) -> tuple[str, str | None]:
    """A name's key, and the type its own words give it, if any."""
    key = entity_key(name)
    kind = _GAZETTEER.get(key)
    if kind or not key:
        return key, kind
    words = [w for w in name.split() if w not in _CONNECTORS and w not in ("&", "the")]
    last, first = words[-1].casefold(), words[0].casefold().rstrip(".")
    if last in _HEADS:
        return key, _HEADS[last]
    if first in _PREFIX_HEADS and len(words) > 1:
        return key, _PREFIX_HEADS[first]
    if first in _TITLES:
        return key, "person"
    if any(_DIGIT.search(w) or w[0].islower() for w in words):
        return key, "product"
    if last.endswith(_CONCEPT_SUFFIXES) and len(last) > 5:
        return key, "concept"
    return key, None


def _runs(text: str) -> list[tuple[int, int, bool]]:
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
            if tail in _CONTRACTED:
                continue
            if tail == "s":
                tok = tok[:q]
        low = tok.casefold()
        if low in _STOP:
            continue
        b = a + len(tok)
        if cur and (_JOIN.fullmatch(text, cur_end, a) or (
                (len(cur[-1]) == 1 or cur[-1].casefold() in _TITLES)  # "Dr. Who", "J. K. Rowling"
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


# --- extraction -------------------------------------------------------------------------------
_Ref = tuple[int, int]  # (mention index, or -1 for the speaker; position in the masked text)
_Raw = tuple[tuple[int, int], _Ref, str, _Ref, float, int]


class _Mention:
    """One occurrence of a candidate name."""

    __slots__ = ("key", "name", "order", "tentative")

    def __init__(self, key: str, name: str, tentative: bool) -> None:
        self.key, self.name, self.order, self.tentative = key, name, 0, tentative


def _note(evidence: dict[str, tuple[int, str]], key: str, level: int, kind: str) -> None:
    """Record a type cue; a stronger one replaces it, an equal one does not (earliest wins)."""
    if level > evidence.get(key, (0, ""))[0]:
        evidence[key] = (level, kind)


def _relations(
    masked: str, mentions: list[_Mention], evidence: dict[str, tuple[int, str]]
) -> list[_Raw]:
    """Every pattern match in the masked text, as raw relations (resolvers applied)."""
    found: list[_Raw] = []
    words = masked.split()
    hits = _TRIGGER_WORDS.intersection(words)  # cheap exits: no trigger, or no second end
    if not hits:
        return found
    speaker = masked.startswith(":", masked.find("\x01") + 1)  # "Jon: ...", never in a relation
    if len(mentions) - speaker < 2 and _FIRST_PERSON.isdisjoint(words):
        return found
    ids = sorted({i for w in hits for i in _TRIGGERS.get(w, ())})
    for i in ids:
        if i in _REQUIRED and _REQUIRED[i].isdisjoint(hits):
            continue
        _, _, relation, conf, level, _ = _PATTERN_TABLE[i]
        for m in _PATTERNS[i].finditer(masked):
            refs = {g: (int(t[1:-1]) if t[0] == "\x00" else -1, m.start(g))
                    for g, t in m.groupdict().items() if t and g in ("s", "o", "s2")}
            rel, invert = relation, False
            if relation == "role":
                role = m.group("r")
                rel, invert = _ROLES[role]
                if role not in _ANY_ROLES:  # "my colleague Rob": Rob is a person
                    for g in ("s", "s2"):
                        if g in refs and refs[g][0] >= 0:
                            _note(evidence, mentions[refs[g][0]].key, _ROLE, "person")
            elif relation == "work":  # works at / as a nurse at / for / with
                if m.group("with"):
                    rel, conf, level = "collaborates_with", POSSESSIVE, _CONTEXT
                elif m.group("for"):
                    rel, level = "work_for", _HINT
                else:
                    rel = "works_at"
            elif relation == "pair":
                rel = _PAIRS[m.group("r")]
            elif relation == "job":
                head, prep = m.group("j").rsplit(" ", 1)[-1], m.group("p")
                rel = _JOB_REL.get(head, "works_at")
                if not rel or (prep == "of" and head not in _JOB_OF):
                    continue
            elif relation == "started":  # "started Bloom Studio", not "started Pilates"
                name = mentions[refs["o"][0]].name
                if " " not in name and _name_info(name)[1] != "organization":
                    continue
                rel = "founded"
            elif relation == "joined":
                last = mentions[refs["o"][0]].name.rsplit(" ", 1)[-1].casefold()
                rel = "member_of" if last in _MEMBERSHIP else "works_at"
            if rel == "knows":
                conf = min(conf, WEAK)
            for subj in ("s", "s2"):
                if subj in refs:
                    a, b = (refs["o"], refs[subj]) if invert else (refs[subj], refs["o"])
                    found.append(((m.start(), i), a, rel, b, conf, level))
    return found


def extract(text: str) -> tuple[tuple[EntityRef, ...], tuple[RelationRef, ...]]:
    """The named entities of ``text`` (first mention order, unique keys) and the relations it
    states between them (subject and object are entity keys; :data:`SELF_KEY` for "I").

    In a speaker-labelled line ("Caroline: I work at Acme") "I" is the speaker: the relations
    name her, so that what two speakers say of themselves never lands on one "self".
    """
    entities, relations = _extract(text)
    if not relations or not any(e.key == SELF_KEY for e in entities):
        return entities, relations
    label = _SPEAKER_LABEL.match(text)
    speaker = entity_key(label.group(1)) if label else ""
    if not speaker or not any(e.key == speaker for e in entities):
        return entities, relations
    moved = dict.fromkeys(
        RelationRef(speaker if r.subject == SELF_KEY else r.subject, r.relation,
                    speaker if r.object == SELF_KEY else r.object, r.confidence)
        for r in relations)
    return (tuple(e for e in entities if e.key != SELF_KEY),
            tuple(r for r in moved if r.subject != r.object))


_SPEAKER_LABEL: Final = re.compile(r"\s*([^\W\d_][\w .'’-]{0,40}?)\s*:\s")


def _extract(text: str) -> tuple[tuple[EntityRef, ...], tuple[RelationRef, ...]]:
    """:func:`extract` before "I" is given to a labelled speaker."""
    mentions: list[_Mention] = []
    evidence: dict[str, tuple[int, str]] = {}
    parts: list[str] = []
    pos = 0
    for a, b, tentative in _runs(text):
        name = " ".join(text[a:b].split())
        key, kind = _name_info(name)
        if not key or key == SELF_KEY or key in _STOP:
            continue
        if kind:
            _note(evidence, key, _INTRINSIC, kind)
        parts += (text[pos:a], f"\x00{len(mentions)}\x01")
        mentions.append(_Mention(key, name, tentative))
        pos = b
    if not mentions:
        return (), ()
    parts.append(text[pos:])
    for i in range(0, len(parts), 2):  # the text between names: one form for the patterns
        part = parts[i].lower()
        if "\x00" in part or "\x01" in part:
            part = part.replace("\x00", " ").replace("\x01", " ")
        if "\n" in part:  # a line break ends a sentence for the patterns too
            part = part.replace("\n", " . ")
        parts[i] = part if part.isascii() else _APOS_RE.sub("'", part)
    masked = " ".join("".join(parts).split())
    for m in _PLACEHOLDER.finditer(masked):
        mention = mentions[int(m.group()[1:-1])]
        mention.order = m.start()
        kind = _context(masked, m.start(), m.end())
        if kind:
            _note(evidence, mention.key, _CONTEXT, kind)
    raw = _relations(masked, mentions, evidence)
    return _finish(mentions, evidence, raw)


def _settle(
    mentions: list[_Mention], evidence: dict[str, tuple[int, str]], raw: list[_Raw]
) -> tuple[tuple[RelationRef, ...], dict[str, tuple[int, str]], dict[str, int]]:
    """Type the ends of the raw relations and drop those whose ends have the wrong types.

    Returns the relations, the types, and the first position of each key in a relation.
    """

    def key_of(ref: _Ref) -> str:
        return SELF_KEY if ref[0] < 0 else mentions[ref[0]].key

    def typed(rels: list[_Raw]) -> dict[str, tuple[int, str]]:
        types = dict(evidence)
        for _, s, rel, o, _, level in rels:
            for ref, kind in zip((s, o), _HINTS.get(rel, (None, None)), strict=True):
                if kind and ref[0] >= 0:
                    _note(types, mentions[ref[0]].key, level, kind)
        return types

    def valid(rels: list[_Raw], types: dict[str, tuple[int, str]]) -> list[_Raw]:
        def fits(ref: _Ref, allowed: frozenset[str]) -> bool:
            kind = "person" if ref[0] < 0 else types.get(mentions[ref[0]].key, (0, "other"))[1]
            return kind == "other" or kind in allowed

        return [r for r in rels if fits(r[1], _ALLOWED[r[2]][0]) and fits(r[3], _ALLOWED[r[2]][1])]

    def resolve(rel: str, o: _Ref) -> str:  # "works for X": a person X is a boss
        if rel != "work_for":
            return rel
        person = o[0] < 0 or evidence.get(key_of(o), (0, ""))[1] == "person"
        return "reports_to" if person else "works_at"

    raw = sorted((order, s, resolve(rel, o), o, conf, level)
                 for order, s, rel, o, conf, level in raw if key_of(s) != key_of(o))
    # Two rounds: hints of relations dropped in the first no longer type their ends.
    kept = valid(raw, typed(raw))
    types = typed(kept)
    best: dict[tuple[str, str, str], float] = {}
    related: dict[str, int] = {}
    for _, s, rel, o, conf, _ in valid(kept, types):
        sk, ok = key_of(s), key_of(o)
        triple = (ok, rel, sk) if rel in _SYMMETRIC and (ok, rel, sk) in best else (sk, rel, ok)
        best[triple] = max(best.get(triple, 0.0), conf)
        for key, ref in ((sk, s), (ok, o)):
            related[key] = min(related.get(key, ref[1]), ref[1])
    relations = tuple(RelationRef(s, rel, o, conf) for (s, rel, o), conf in best.items())
    return relations, types, related


def _finish(
    mentions: list[_Mention], evidence: dict[str, tuple[int, str]], raw: list[_Raw]
) -> tuple[tuple[EntityRef, ...], tuple[RelationRef, ...]]:
    """The entities (corroborated names, typed, in first mention order) and the relations."""
    relations: tuple[RelationRef, ...] = ()
    types, related = evidence, dict[str, int]()
    if raw:
        relations, types, related = _settle(mentions, evidence, raw)
    # A tentative name needs corroboration: a relation, a type cue, or a second mention.
    kept = {m.key for m in mentions if not m.tentative}
    kept.update(related)
    kept.update(key for key, (level, _) in evidence.items() if level >= _CONTEXT)
    entities: list[EntityRef] = []
    listed: set[str] = set()
    self_at = related.get(SELF_KEY, -1)  # the speaker goes where "I" first takes part
    for m in mentions:
        if 0 <= self_at < m.order:
            entities.append(_SELF)
            self_at = -1
        if m.key in kept and m.key not in listed:
            listed.add(m.key)
            kind = types.get(m.key, (0, "other"))[1]
            entities.append(EntityRef(m.key, m.name, kind))  # type: ignore[arg-type]
    if self_at >= 0:
        entities.append(_SELF)
    return tuple(entities), relations


def encoded(text: str) -> bytes | None:
    """The extraction of ``text`` as the store keeps it beside the text (an encoded
    :class:`eventmem.events.Extraction`), or None when it names nothing."""
    entities, relations = extract(text)
    if not entities:
        return None
    return codec.encode_value(Extraction(entities=entities, relations=relations))
