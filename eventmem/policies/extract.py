"""Entities and typed relations a text states, by deterministic rules: no model, no tagger.

``extract(text)`` returns ``(entities, relations)`` for the ``memory.ingested`` event. The output
is a pure function of the text; the rules are versioned by :data:`EXTRACTOR_VERSION`.

Entities
* Sentences end after ``. ! ? …`` (not after a title or abbreviation: "Dr.", "Inc.", "J.") and at
  line breaks.
* A name is a run of capitalized (or camel-case: "iPhone") words joined by spaces, by the
  connectors of/de/da/van/von/... and "&" ("Bank of America"), or after a title ("Dr. Smith");
  a number right after it joins it ("iPhone 15"). A possessive "'s" is left out of the name.
* Never names: the stoplist (function words, interjections, days, months, "Mom"), contractions
  ("Don't"), runs longer than six words, a lone head word ("Park", "Team"), and every word of a
  sentence that is mostly capitalized (a title or shouting). Uncased scripts give no names.
* A single capitalized word that opens a sentence is only tentative ("Lately", "Nature"): it is
  kept if the same key also appears elsewhere, has a type cue, or takes part in a relation.
* Lowercase words are never entities, not even as a pattern's object ("uses python"): a graph
  node for every common noun ("works at a bakery") costs more precision than it gains.
* First person (I, me, my) is :data:`SELF_KEY`, listed only when it takes part in a relation.
* Type: the strongest evidence wins, earliest first on a tie. Strongest: the name itself (a
  small gazetteer; head words such as "Inc", "University", "Lake", "Festival"; a title; a digit
  or camel case means a product). Then the role in an explicit relation (the object of "works
  at" is an organization), then the context ("Hey Mel", "moved to X", "bought an X"), then the
  role in an ambiguous relation ("joined X"). No evidence: "other".

Relations are regexes over each sentence with its names masked as placeholders and the rest
lowercased, run only when one of their trigger words is present. A relation is dropped when its
ends have types it does not allow (friend_of needs people), and when negated: the verb must
directly follow its subject and auxiliaries, so "don't", "not", "no longer" break the match.
Confidence: :data:`EXPLICIT` for a stated verb or copula ("works at", "is Ann's sister"),
:data:`POSSESSIVE` for a possessive noun or a looser template ("my friend Ann", "joined X", "a
nurse at X"), :data:`WEAK` for weak evidence ("met", "started X", a neighbour).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final

from eventmem.events import EntityRef, RelationRef

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

# --- lexicon (entity_key forms) ----------------------------------------------------------------
_STOP: Final = frozenset("""
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
p ps self
""".split())
_TITLES: Final = frozenset("mr mrs ms mx dr prof sir miss aunt uncle".split())
_CONNECTORS: Final = frozenset("of de da del della di du van von der den la le al bin y".split())
_CONTRACTED: Final = frozenset("m re ve ll d t".split())  # "I'm", "Don't": never names


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
            mcdonald, ikea, nike, adidas, disney, sony, samsung, linkedin, github"""),
        ("product", """iphone, ipad, macbook, android, windows, linux, excel, photoshop,
            instagram, tiktok, youtube, whatsapp, slack, zoom, notion, chatgpt, python,
            javascript, kindle, playstation, xbox, minecraft, fortnite, spotify, netflix,
            twitter, snapchat, pinterest, duolingo"""),
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
        ("product", "pro max mini ultra edition app air"),
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
_MEMBERSHIP: Final = frozenset("club team society association union league band choir".split())
_CONCEPT_SUFFIXES: Final = ("ism", "ology", "ics")


def entity_key(name: str) -> str:
    """The normalized identity of a name: NFKC, casefolded, possessive "'s" and punctuation
    dropped ("O'Brien" -> "obrien", "U.S." -> "us", "&" -> "and"), spaces collapsed. Idempotent.
    """
    s = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    s = _KEY_DROP.sub("", _KEY_POSS.sub("", s.translate(_APOS)).replace("&", " and "))
    return " ".join(_KEY_SPLIT.sub(" ", s).split())


_APOS: Final = {ord(c): "'" for c in "’‘`´ʼ"} | {0: " ", 1: " "}
_KEY_POSS = re.compile(r"'s\b")
_KEY_DROP = re.compile(r"['.]")
_KEY_SPLIT = re.compile(r"[\W_]+")

# --- relation patterns over a masked sentence -------------------------------------------------
_E = "\x00[0-9]+\x01"  # a masked name: "\x00<mention index>\x01"


def _who(g: str) -> str:  # a name or "i"
    return rf"(?P<{g}>{_E}|\bi\b)"


def _obj(g: str) -> str:  # a name not followed by "'s" (then it owns the object), or "me"
    return rf"(?P<{g}>{_E}(?!')|\bme\b)"


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
_MOD = (r"(?:(?:best|close|good|great|old|dear|new|older|younger|little|big|baby|twin|eldest"
        r"|oldest|youngest|elder|longtime|long-time|childhood|lovely|wonderful|amazing|awesome"
        r"|current|main|biggest|direct|only|first|second|step|beloved) )*")  # fmt: skip

# Role nouns: "A is B's <role>" and "B's <role> A" both state (A, relation, B), or (B, relation,
# A) when inverted ("A is B's mentee": B mentors A).
_ROLES: Final[dict[str, tuple[str, bool]]] = {
    **dict.fromkeys("friend buddy pal bestie bff".split(), ("friend_of", False)),
    **dict.fromkeys("boss manager supervisor".split(), ("manages", False)),
    **dict.fromkeys("employee assistant".split(), ("manages", True)),
    **dict.fromkeys("mentor coach".split(), ("mentors", False)),
    **dict.fromkeys("mentee protege protégé apprentice".split(), ("mentors", True)),
    **dict.fromkeys("father mother dad mom mum parent stepfather stepmother stepdad stepmom "
                    "step-dad step-mom papa mama".split(), ("parent_of", False)),
    **dict.fromkeys("son daughter child children kid stepson stepdaughter".split(),
                    ("child_of", False)),
    **dict.fromkeys("brother sister sibling twin stepbrother stepsister half-brother "
                    "half-sister".split(), ("sibling_of", False)),
    **dict.fromkeys("wife husband spouse".split(), ("married_to", False)),
    **dict.fromkeys("boyfriend girlfriend fiance fiancé fiancee fiancée".split(),
                    ("dating", False)),
    **dict.fromkeys(("partner", "business partner"), ("partner_of", False)),
    **dict.fromkeys("colleague coworker co-worker teammate collaborator workmate".split(),
                    ("collaborates_with", False)),
    **dict.fromkeys("client customer".split(), ("client_of", False)),
    **dict.fromkeys("competitor rival".split(), ("competitor_of", False)),
    **dict.fromkeys("founder co-founder cofounder".split(), ("founded", False)),
    "member": ("member_of", False),
    "employer": ("works_at", True),
    **dict.fromkeys("neighbor neighbour roommate flatmate housemate classmate acquaintance"
                    .split(), ("knows", False)),
}  # fmt: skip
_ROLE_RE = "|".join(sorted(map(re.escape, _ROLES), key=lambda r: (-len(r), r)))
_PAIRS: Final[dict[str, str]] = {  # "A and B are <word>"
    **dict.fromkeys("friends besties".split(), "friend_of"),
    **dict.fromkeys("siblings brothers sisters twins".split(), "sibling_of"),
    "married": "married_to", "dating": "dating", "engaged": "dating",
    **dict.fromkeys("colleagues coworkers co-workers teammates".split(), "collaborates_with"),
    **dict.fromkeys("competitors rivals".split(), "competitor_of"), "partners": "partner_of",
    **dict.fromkeys("neighbors neighbours roommates classmates".split(), "knows"),
}  # fmt: skip
_JOB_HEAD = (r"[a-z-]*(?:er|or|ist|ant|ent|ian|ee|yst|ive|nurse|chef|cook|intern|clerk|coach"
             r"|barista|ceo|cto|cfo|coo|vp|lead|head|staff|dj|rep|chair)")  # fmt: skip
_JOB_OF: Final = frozenset("ceo cto cfo coo president director head chair chairman chairwoman "
                           "member members customer client".split())  # "the CEO of X"
_JOB_REL: Final[dict[str, str]] = {
    **dict.fromkeys("student volunteer member members fellow resident".split(), "member_of"),
    **dict.fromkeys("customer client patient regular".split(), "client_of"),
    **dict.fromkeys("fan guest visitor speaker attendee newcomer beginner believer".split(), ""),
}  # fmt: skip
_NOT_AFTER = r"(?<!lost )(?<!quit )(?<!left )(?<!lose )(?<!leave )(?<!leaving )(?<!losing )"

# (name, regex, relation, confidence, hint level, triggers). relation is a RELATION_TYPES
# member or a resolver: "role"/"pair" (group r), "job" (group j), "joined", "work_for".
_PATTERN_TABLE: Final[tuple[tuple[str, str, str, float, int, str], ...]] = (
    ("works_at", rf"{_who('s')}{_AUX} (?:work|works|worked|working)(?: (?:full-time|part-time"
        rf"|remotely|there|now))? at{_THE}{_ent('o')}", "works_at", EXPLICIT, _ROLE,
        "work works worked working"),
    ("work_for", rf"{_who('s')}{_AUX} (?:work|works|worked|working) for{_THE}{_ent('o')}",
        "work_for", EXPLICIT, _HINT, "work works worked working"),
    ("employed", rf"{_who('s')}{_AUX} (?:employed|hired|recruited) (?:by|at){_THE}{_ent('o')}",
        "works_at", EXPLICIT, _ROLE, "employed hired recruited"),
    ("got_job", rf"{_who('s')}{_AUX} (?:got|landed|started|accepted|took|start|starting|found"
        rf"|have|has) (?:a |an |the |my )?(?:new |full-time |part-time |dream )?(?:job|position"
        rf"|internship|role) (?:at|with){_THE}{_ent('o')}", "works_at", EXPLICIT, _ROLE,
        "job position internship role"),
    ("my_job", rf"{_NOT_AFTER}{_poss('s')} (?:new |current |full-time |part-time |dream )?(?:job"
        rf"|position|internship) (?:at|with){_THE}{_ent('o')}", "works_at", POSSESSIVE, _ROLE,
        "job position internship"),
    ("job_title", rf"{_who('s')}{_COP} (?:a|an|the) (?P<j>(?:[a-z-]+ ){{0,2}}{_JOB_HEAD})"
        rf" (?P<p>at|for|with|of){_THE}{_ent('o')}", "job", POSSESSIVE, _HINT, "at for with of"),
    ("joined", rf"{_who('s')}{_AUX} (?:joined|join|joins|joining|rejoined){_THE}{_ent('o')}"
        r"(?! (?:for|at|in|on|to)\b)", "joined", POSSESSIVE, _HINT, "joined join joins joining "
        "rejoined"),
    ("manages", rf"{_who('s')}{_AUX} (?:manage|manages|managed|managing|supervise|supervises"
        rf"|supervised|supervising|oversee|oversees|oversaw|overseeing){_THE}{_obj('o')}",
        "manages", EXPLICIT, _ROLE, "manage manages managed managing supervise supervises "
        "supervised supervising oversee oversees oversaw overseeing"),
    ("reports_to", rf"{_who('s')}{_AUX} (?:report|reports|reporting) (?:directly )?to"
        rf"{_THE}{_obj('o')}", "reports_to", EXPLICIT, _ROLE, "report reports reporting"),
    ("friends_with", rf"{_who('s')}{_AUX} (?:(?:best|good|close|great|old) )?friends with"
        rf" {_obj('o')}", "friend_of", EXPLICIT, _ROLE, "friends"),
    ("befriended", rf"{_who('s')}{_AUX} befriended {_obj('o')}", "friend_of", EXPLICIT, _ROLE,
        "befriended"),
    ("lives_in", rf"{_who('s')}{_AUX} (?:live|lives|lived|living|reside|resides|resided"
        rf"|residing|settled)(?: (?:here|there|now|currently))? in{_THE}{_ent('o')}",
        "lives_in", EXPLICIT, _ROLE, "live lives lived living reside resides resided residing "
        "settled"),
    ("moved_to", rf"{_who('s')}{_AUX} (?:moved|move|moves|moving|relocated|relocating|relocate)"
        rf"(?: (?:back|here|there|out|over|away))? (?:to|in){_THE}{_ent('o')}", "lives_in",
        EXPLICIT, _ROLE, "moved move moves moving relocated relocating relocate"),
    ("based_in", rf"{_who('s')}{_AUX} (?:based|headquartered) (?:in|out of){_THE}{_ent('o')}",
        "lives_in", EXPLICIT, _ROLE, "based headquartered"),
    ("married_to", rf"{_who('s')}{_AUX} married (?:to )?{_obj('o')}", "married_to", EXPLICIT,
        _ROLE, "married"),
    ("marries", rf"{_who('s')}{_AUX} (?:marry|marries|marrying|wed) {_obj('o')}", "married_to",
        EXPLICIT, _ROLE, "marry marries marrying wed"),
    ("engaged_to", rf"{_who('s')}{_AUX} engaged to {_obj('o')}", "dating", EXPLICIT, _ROLE,
        "engaged"),
    ("dating", rf"{_who('s')}{_AUX} (?:dating|dates|in a relationship with|going out with)"
        rf" {_obj('o')}", "dating", EXPLICIT, _ROLE, "dating dates relationship going"),
    ("member_of", rf"{_who('s')}{_COP} (?:a |an |one of the |the )?(?:(?:active|proud|founding"
        rf"|new|longtime|long-time|lifelong) )?(?:member|members|part) of{_THE}{_ent('o')}",
        "member_of", EXPLICIT, _ROLE, "member members part"),
    ("belongs_to", rf"{_who('s')}{_AUX} (?:belong|belongs|belonged|belonging) to{_THE}"
        rf"{_ent('o')}", "member_of", EXPLICIT, _ROLE, "belong belongs belonged belonging"),
    ("founded", rf"{_who('s')}{_AUX} (?:founded|co-founded|cofounded|established){_THE}"
        rf"{_ent('o')}", "founded", EXPLICIT, _ROLE, "founded co-founded cofounded established"),
    ("started", rf"{_who('s')}{_AUX} (?:started|launched|start|launch){_THE}{_ent('o')}(?!')",
        "founded", WEAK, _HINT, "started launched start launch"),
    ("uses", rf"{_who('s')}{_AUX} (?:use|uses|used|using){_THE}{_ent('o')}", "uses", EXPLICIT,
        _HINT, "use uses used using"),
    ("created", rf"{_who('s')}{_AUX} (?:created|create|creates|creating|built|build|builds"
        rf"|building|wrote|write|writes|writing|written|designed|design|designs|designing"
        rf"|developed|develop|develops|developing|invented|composed|painted|coded|authored"
        rf"|produced|directed){_THE}{_ent('o')}(?! (?:a|an|the|some|my|his|her|their|our|me"
        r"|him|them|us)\b)", "created", EXPLICIT, _HINT, "created create creates creating "
        "built build builds building wrote write writes writing written designed design designs "
        "designing developed develop develops developing invented composed painted coded "
        "authored produced directed"),
    ("collaborates", rf"{_who('s')}{_AUX} (?:collaborate|collaborates|collaborated"
        rf"|collaborating|cooperated|cooperating)(?: closely)? with{_THE}{_obj('o')}",
        "collaborates_with", EXPLICIT, _ROLE, "collaborate collaborates collaborated "
        "collaborating cooperated cooperating"),
    ("works_with", rf"{_who('s')}{_AUX} (?:work|works|worked|working|teamed up|team up"
        rf"|teaming up)(?: closely| together)? with{_THE}{_obj('o')}", "collaborates_with",
        POSSESSIVE, _CONTEXT, "work works worked working teamed team teaming"),
    ("mentors", rf"{_who('s')}{_AUX} (?:mentor|mentors|mentored|mentoring|coach|coaches"
        rf"|coached|coaching|tutor|tutors|tutored|tutoring) {_obj('o')}", "mentors", EXPLICIT,
        _CONTEXT, "mentor mentors mentored mentoring coach coaches coached coaching tutor tutors "
        "tutored tutoring"),
    ("competes", rf"{_who('s')}{_AUX} (?:compete|competes|competed|competing) (?:directly )?"
        rf"(?:with|against){_THE}{_obj('o')}", "competitor_of", EXPLICIT, _CONTEXT,
        "compete competes competed competing"),
    ("partnered", rf"{_who('s')}{_AUX} (?:partnered|partnering|partners|partner|in partnership"
        rf"|in a partnership) (?:up )?with{_THE}{_obj('o')}", "partner_of", EXPLICIT, _CONTEXT,
        "partnered partnering partners partner partnership"),
    ("knows", rf"{_who('s')}{_AUX} (?:know|knows|knew|known) {_obj('o')}", "knows", POSSESSIVE,
        _CONTEXT, "know knows knew known"),
    ("met", rf"{_who('s')}{_AUX} (?:met|meet|meets|meeting)(?: up)?(?: with)? {_obj('o')}",
        "knows", WEAK, _CONTEXT, "met meet meets meeting"),
    ("role_is", rf"{_who('s')}{_COP} (?:also )?(?:a |an |the |one of )?{_poss('o')} {_MOD}"
        rf"(?P<r>{_ROLE_RE})s?\b", "role", EXPLICIT, _ROLE, "ROLES"),
    ("role_of", rf"{_who('s')}{_COP} (?:a |an |the |one of )?(?:(?:my|his|her|their|our) )?"
        rf"{_MOD}(?P<r>{_ROLE_RE})s? (?:of|to|for){_THE}{_obj('o')}", "role", EXPLICIT, _ROLE,
        "ROLES"),
    ("role_appos", rf"{_NOT_AFTER}{_poss('o')} {_MOD}(?P<r>{_ROLE_RE})s?(?:,| is| was| named"
        rf"| called)? {_ent('s')}(?:,? and {_ent('s2')})?", "role", POSSESSIVE, _ROLE, "ROLES"),
    ("role_appos_rev", rf"{_ent('s')}, (?:who is |who's )?{_poss('o')} {_MOD}(?P<r>{_ROLE_RE})\b"
        r"(?!')", "role", POSSESSIVE, _ROLE, "ROLES"),
    ("has_role_named", rf"{_who('o')}{_AUX} (?:has|have|had|got) (?:a |an |one |two |three )?"
        rf"{_MOD}(?P<r>{_ROLE_RE})s? (?:named|called) {_ent('s')}", "role", EXPLICIT, _ROLE,
        "named called"),
    ("pair", rf"{_who('s')},? and {_who('o')}{_COP} (?:(?:best|good|close|old|great|longtime) )?"
        rf"(?P<r>{'|'.join(_PAIRS)})\b", "pair", EXPLICIT, _ROLE, " ".join(_PAIRS)),
    ("pair_met", rf"{_who('s')} and {_who('o')}(?: first| finally| just)? met\b", "knows", WEAK,
        _CONTEXT, "met"),
    ("pair_together", rf"{_who('s')} and {_who('o')}{_AUX} (?:work|worked|working|collaborate"
        rf"|collaborated|collaborating) together\b", "collaborates_with", POSSESSIVE, _CONTEXT,
        "together"),
)  # fmt: skip
_PATTERNS: Final = tuple(re.compile(p[1]) for p in _PATTERN_TABLE)
_TRIGGERS: Final[dict[str, tuple[int, ...]]] = {}
for _i, _p in enumerate(_PATTERN_TABLE):
    _words = _p[5].split() if _p[5] != "ROLES" else [
        f for r in _ROLES for f in (*r.split(), r.split()[-1] + "s")]
    for _w in _words:
        _TRIGGERS[_w] = (*_TRIGGERS.get(_w, ()), _i)
_WORD = re.compile(r"[a-zé][a-zé-]*")

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
    "member_of": (None, "organization"), "founded": (None, "organization"),
    "uses": (None, "product"), "created": (None, "product"), "client_of": (None, "organization"),
    **dict.fromkeys(("friend_of", "dating", "married_to", "parent_of", "child_of", "sibling_of",
                     "mentors", "knows"), ("person", "person")),
}  # fmt: skip
_SYMMETRIC: Final = frozenset({"friend_of", "dating", "married_to", "sibling_of", "knows",
                               "collaborates_with", "competitor_of", "partner_of"})

# Context cues (on the masked sentence): a person addressed or speaking, a place travelled to,
# a product bought.
_CTX = re.compile(
    rf"(?:\b(?:hey|hi|hello|hiya|thanks|thank you|congrats|congratulations|dear|bye|sorry"
    rf"|miss you|love you|proud of you|good job|take care|welcome),? |, )(?P<person>{_E})"
    rf"(?=[!?.]|$)|\b(?:hey|hi|hello|hiya|thanks|thank you|congrats|congratulations|dear|bye"
    rf")(?:,| ) ?(?P<person2>{_E})|(?P<person3>{_E}) (?:said|says|told|tells|asked|asks|texted"
    rf"|replied|thinks|feels|and i\b|and me\b)|\bme and (?P<person4>{_E})"
    rf"|\b(?:went|go|goes|going|gone|travell?ed|travell?ing|travels?|trips?|moved|moving|flew"
    rf"|fly|flying|drove|driving|lives?|lived|living|stay(?:ed|ing|s)?|born|raised|grew up"
    rf"|based|vacation(?:ed|ing)?|holiday(?:ed|ing)?|headed|heading|arrived|arriving"
    rf"|visiting|touring|honeymoon)(?: back)? (?:to|in|from|around|through|across|near|outside"
    rf"|at)(?: the)? (?P<place>{_E})(?!')"
    rf"|\b(?:bought|buy|buys|buying|purchased|ordered|downloaded|installed|upgraded to|got"
    rf" (?:a |an |my |the )?new)(?: (?:a|an|the|my|new|brand-new|brand new|some|old|used))*"
    rf" (?P<product>{_E})(?!')(?! (?:a|an|the|some)\b)"
)
_CTX_TYPE: Final = {"person": "person", "person2": "person", "person3": "person",
                    "person4": "person", "place": "place", "product": "product"}

# --- scanning ---------------------------------------------------------------------------------
_ABBREV = "".join(rf"(?<!\b{a})" for a in (
    "Mr", "Mrs", "Ms", "Mx", "Dr", "Prof", "St", "Mt", "Jr", "Sr", "Inc", "Ltd", "Co", "Corp",
    "vs", "etc", "[A-Z]"))
_BOUNDARY = re.compile(rf"(?:{_ABBREV}\.|[!?…])+[\"'’”)\]]*\s+|\n\s*")
_CAP = re.compile(r"(?<![\w'’])(?:[^\W\d_a-z]|[a-z]+(?=[A-Z]))(?:\w|['’.\-](?=[^\W_]))*")
_JOIN = re.compile(r"[ \t]+(?:(?:of|de|da|del|della|di|du|van|von|der|den|la|le|al|bin|y|&)"
                   r"(?:[ \t]+the)?[ \t]+)?")  # fmt: skip
_TITLE_JOIN = re.compile(r"\.?[ \t]+")
_NUMBER = re.compile(r"[ \t]+[0-9]{1,4}\b(?![.,:/%][0-9])")
_LEADING = re.compile(r"[\s\"'“‘(\[*\-–—]*")
_WS = re.compile(r"\s+")
_DIGIT = re.compile(r"[0-9]")
_PLACEHOLDER = re.compile(_E)
_HEAD_ONLY: Final = _HEADS.keys() | _PREFIX_HEADS.keys() | _TITLES  # "the Park": no name


class _Mention:
    """One occurrence of a candidate name in a sentence."""

    __slots__ = ("key", "name", "order", "tentative")

    def __init__(self, key: str, name: str, order: tuple[int, int], tentative: bool) -> None:
        self.key, self.name, self.order, self.tentative = key, name, order, tentative


def _sentences(text: str) -> list[tuple[int, int]]:
    starts = [0, *(m.end() for m in _BOUNDARY.finditer(text))]
    return [(a, b) for a, b in zip(starts, [*starts[1:], len(text)], strict=True) if a < b]


def _intrinsic(words: list[str], key: str) -> str | None:
    """The type a name's own words give it, if any."""
    kind = _GAZETTEER.get(key)
    if kind:
        return kind
    last = words[-1].casefold()
    if last in _HEADS and not _DIGIT.search(last):
        return _HEADS[last]
    first = words[0].casefold()
    if first in _PREFIX_HEADS and (len(words) > 1):
        return _PREFIX_HEADS[first]
    if first.rstrip(".") in _TITLES:
        return "person"
    if any(_DIGIT.search(w) or (w[0].islower() and w.isascii()) for w in words):
        return "product"
    if last.endswith(_CONCEPT_SUFFIXES) and len(last) > 5:
        return "concept"
    return None


def _runs(text: str, start: int, end: int) -> list[tuple[int, int, list[str], bool]]:
    """Name spans in one sentence: (start, end, words, tentative)."""
    runs: list[tuple[int, int, list[str], bool]] = []
    cur: list[str] = []
    cur_start = cur_end = 0
    n_caps = 0
    for m in _CAP.finditer(text, start, end):
        tok, a, b = m.group(), m.start(), m.end()
        c = tok[0]
        if not (c.isupper() or c.istitle() or "a" <= c <= "z"):
            continue
        n_caps += 1
        q = max(tok.rfind("'"), tok.rfind("’"))
        if q > 0:
            tail = tok[q + 1:].lower()
            if tail in _CONTRACTED:
                continue
            if tail == "s":
                tok, b = tok[:q], a + q
        low = tok.casefold()
        if low in _STOP or len(low) == 1:
            continue
        if cur and (
            _JOIN.fullmatch(text, cur_end, a)
            or (cur[-1].casefold().rstrip(".") in _TITLES and _TITLE_JOIN.fullmatch(text,
                                                                                   cur_end, a))
        ):
            cur.append(tok)
            cur_end = b
            continue
        if cur:
            runs.append((cur_start, cur_end, cur, False))
        cur, cur_start, cur_end = [tok], a, b
    if cur:
        runs.append((cur_start, cur_end, cur, False))
    # A mostly capitalized sentence is a title or shouting: its capitals say nothing.
    if n_caps >= 4 and n_caps * 10 >= 7 * len(text[start:end].split()):
        return []
    out = []
    for a, b, words, _ in runs:
        num = _NUMBER.match(text, b, end)
        if num:
            b = num.end()
            words = [*words, text[num.start():b].strip()]
        if len(words) > 6:
            continue
        if len(words) == 1 and words[0].casefold() in _HEAD_ONLY:
            continue
        initial = _LEADING.fullmatch(text, start, a) is not None
        out.append((a, b, words, initial and len(words) == 1))
    return out


# --- extraction -------------------------------------------------------------------------------
_Ref = tuple[int, tuple[int, int]]  # (mention index, or -1 for the speaker; order of mention)
_Raw = tuple[tuple[int, int, int], _Ref, str, _Ref, float, int]


def _note(evidence: dict[str, tuple[int, str]], key: str, level: int, kind: str) -> None:
    """Record a type cue; a stronger one replaces it, an equal one does not (earliest wins)."""
    if level > evidence.get(key, (0, ""))[0]:
        evidence[key] = (level, kind)


def _relations(masked: str, si: int, mentions: list[_Mention]) -> list[_Raw]:
    """Every pattern match in one masked sentence, as raw relations (resolvers applied)."""
    found: list[_Raw] = []
    ids = sorted({i for w in set(_WORD.findall(masked)) for i in _TRIGGERS.get(w, ())})
    for i in ids:
        _, _, relation, conf, level, _ = _PATTERN_TABLE[i]
        for m in _PATTERNS[i].finditer(masked):
            refs = {g: (int(t[1:-1]) if t[0] == "\x00" else -1, (si, m.start(g)))
                    for g, t in m.groupdict().items() if t and g in ("s", "o", "s2")}
            rel, invert = relation, False
            if relation == "role":
                rel, invert = _ROLES[m.group("r")]
            elif relation == "pair":
                rel = _PAIRS[m.group("r")]
            elif relation == "job":
                head, prep = m.group("j").rsplit(" ", 1)[-1], m.group("p")
                rel = _JOB_REL.get(head, "works_at")
                if not rel or (prep == "of" and head not in _JOB_OF):
                    continue
            elif relation == "joined":
                last = mentions[refs["o"][0]].name.rsplit(" ", 1)[-1].casefold()
                rel = "member_of" if last in _MEMBERSHIP else "works_at"
            if rel == "knows":
                conf = min(conf, WEAK)
            for subj in ("s", "s2"):
                if subj in refs:
                    a, b = (refs["o"], refs[subj]) if invert else (refs[subj], refs["o"])
                    found.append(((si, m.start(), i), a, rel, b, conf, level))
    return found


def extract(text: str) -> tuple[tuple[EntityRef, ...], tuple[RelationRef, ...]]:
    """The named entities of ``text`` (first mention order, unique keys) and the relations it
    states between them (subject and object are entity keys; :data:`SELF_KEY` for "I").
    """
    mentions: list[_Mention] = []
    evidence: dict[str, tuple[int, str]] = {}
    raw: list[_Raw] = []
    for si, (start, end) in enumerate(_sentences(text)):
        runs = _runs(text, start, end)
        if not runs:
            continue
        parts, pos = [], start
        for a, b, words, tentative in runs:
            name = " ".join(text[a:b].split())
            key = entity_key(name)
            if not key or key == SELF_KEY or key in _STOP:
                continue
            kind = _intrinsic(words, key)
            if kind:
                _note(evidence, key, _INTRINSIC, kind)
            parts.append(text[pos:a].translate(_APOS).lower())
            parts.append(f"\x00{len(mentions)}\x01")
            mentions.append(_Mention(key, name, (si, 0), tentative))
            pos = b
        parts.append(text[pos:end].translate(_APOS).lower())
        masked = _WS.sub(" ", "".join(parts)).strip()
        for m in _PLACEHOLDER.finditer(masked):
            mentions[int(m.group()[1:-1])].order = (si, m.start())
        for m in _CTX.finditer(masked):
            group = m.lastgroup or ""
            _note(evidence, mentions[int(m.group(group)[1:-1])].key, _CONTEXT, _CTX_TYPE[group])
        raw.extend(_relations(masked, si, mentions))
    if not mentions:
        return (), ()

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

    # "works for X": X's boss-ness decides, from the cues of the text alone.
    raw = sorted(
        (order, s, ("reports_to" if evidence.get(key_of(o), (0, ""))[1] == "person" or o[0] < 0
                    else "works_at") if rel == "work_for" else rel, o, conf, level)
        for order, s, rel, o, conf, level in raw
        if key_of(s) != key_of(o)
    )
    kept = valid(raw, typed(raw))
    types = typed(kept)
    kept = valid(kept, types)

    best: dict[tuple[str, str, str], float] = {}
    firsts: dict[str, tuple[int, int]] = {}
    for _, s, rel, o, conf, _ in kept:
        sk, ok = key_of(s), key_of(o)
        triple = (sk, rel, ok)
        if rel in _SYMMETRIC and (ok, rel, sk) in best:
            triple = (ok, rel, sk)
        best[triple] = max(best.get(triple, 0.0), conf)
        for key, ref in ((sk, s), (ok, o)):
            firsts[key] = min(firsts.get(key, ref[1]), ref[1])
    for m in mentions:
        if not m.tentative or evidence.get(m.key, (0, ""))[0] >= _CONTEXT:
            firsts[m.key] = min(firsts.get(m.key, m.order), m.order)
    names: dict[str, str] = {}
    for m in mentions:
        names.setdefault(m.key, m.name)
        if m.key in firsts:
            firsts[m.key] = min(firsts[m.key], m.order)
    entities = tuple(
        _SELF if key == SELF_KEY
        else EntityRef(key, names[key], types.get(key, (0, "other"))[1])  # type: ignore[arg-type]
        for key in sorted(firsts, key=lambda k: (firsts[k], k))
    )
    relations = tuple(RelationRef(s, rel, o, conf) for (s, rel, o), conf in best.items())
    return entities, relations
