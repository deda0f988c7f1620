"""The word lists behind entity extraction, and :func:`entity_key`, the identity of a name.

Data, mostly: the stoplist of capitalized words that are never names, titles and connectors
("Dr.", "Bank of America"), a small gazetteer, and the head words that type a name by its last
(or first) word; and :func:`entity_key`, which the words are written in. Kept apart from the
scanning and the relation patterns so that the rules read without pages of vocabulary in
between. The rules themselves are described in
:mod:`eventmem.policies.extract.relations`; any change here changes what it returns, so bump
:data:`eventmem.policies.extract.relations.EXTRACTOR_VERSION` with it.
"""

from __future__ import annotations

import unicodedata
from typing import Final

from eventmem.text.lazyre import lazy_re

__all__ = ["entity_key"]


def word_list(words: str) -> list[str]:
    """The words of a space-separated string: each word list here is written as one string."""
    return words.split()


# --- lexicon (entity_key forms) ----------------------------------------------------------------
STOP: Final = frozenset(word_list("""
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
TITLES: Final = frozenset(word_list("mr mrs ms mx dr prof sir miss aunt uncle"))
CONNECTORS: Final = frozenset(word_list("of de da del della di du van von der den la le al bin y"))
CONTRACTED: Final = frozenset(word_list("m re ve ll d t"))  # "I'm", "Don't": never names


def _set(words: str) -> frozenset[str]:
    return frozenset(w.strip() for w in words.split(",") if w.strip())


GAZETTEER: Final[dict[str, str]] = {
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
HEADS: Final[dict[str, str]] = {
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
PREFIX_HEADS: Final[dict[str, str]] = {  # "Lake Tahoe", "University of Michigan"
    "lake": "place", "mount": "place", "mt": "place", "fort": "place", "cape": "place",
    "isle": "place", "university": "organization", "college": "organization",
    "bank": "organization", "institute": "organization", "school": "organization",
    "academy": "organization", "department": "organization", "ministry": "organization",
    "church": "organization", "museum": "organization", "society": "organization",
}  # fmt: skip
MEMBERSHIP: Final = frozenset(word_list("club team society association union league band choir"))
CONCEPT_SUFFIXES: Final = ("ism", "ology", "ics")


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
APOS_RE = lazy_re("[’‘`´ʼ]")
_KEY_POSS = lazy_re(r"'s\b")
_KEY_DROP = lazy_re(r"['.]")
_KEY_SPLIT = lazy_re(r"[\W_]+")
