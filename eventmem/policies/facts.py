"""What a text says about whom: personal facts read as (owner, attribute) slots.

A memory for one user hears each attribute of that user said many ways: "I moved to Denver", "User
lives in Denver", "Finally settled in Geneva after the move", "Dana relocated to Lyon". To answer
"Where do I live?" with the current value, recall must know that the question asks for the user's
*residence*, which memories state it, whatever their words, and whose fact each one is ("My friend
Jake still lives in Boston" is Jake's). :func:`read` gives the facts of a text, one per attribute a
sentence states; :func:`read_question` gives the owner and attribute a question asks about.

Owners:

``user``   the first person ("I", "my", "we"), the extraction pipelines' "User" / "The user" /
           "the user's", and a sentence with no subject (diary style: "Decided to go vegan");
``other``  a relation of the user's speaking for itself ("My friend Jake lives in Boston", "My
           sister prefers coffee");
a name     lower-cased ("dana"): someone named as the subject. Whether the name is the user's
           (:func:`declared_name`, or the namespace's memories naming them as the user would be
           named) is for the caller to say, since one text cannot tell.

The attributes are the personal facts an assistant is told about and asked about (residence,
employer, title, diet, car, phone, pet, relationship, count, age, departure, appointment,
preference, allergy, family, hobby, hometown, birthday), each recognised by its vocabulary: the
words a speaker of English uses for it, not the phrasings of any data set. Some attributes hold
several values at once (counts of different things, relatives, appointments of different kinds):
their facts carry a *qualifier*, the thing counted, the relative, the kind of appointment, which a
question's qualifier must match.

Ten editions of the reading (:data:`EDITION`): the first is how the write gates up to gate-11
read, and the audit re-derives their decisions with it; the second (gate-12, classify-4) also
reads a statement behind a correction marker ("Sorry, I misspoke, I work at X"), a he/she
sentence as about the person the sentence before it names ("Caught up with Dana. She moved to
Lyon."), each attribute in more of the words English says it in, names in any letters
("Joaquín", "Zoë", "Łukasz"; a modal that is a name: "Will moved to Oslo"), an attribute's
vocabulary without accents ("Citroën" is a car) and something kept with a name of its own as a
pet ("a bearded dragon named Dottie"). The first reads names of ASCII letters only. The third
(gate-13, classify-5) also reads a job left by giving notice ("Handed in my notice at Globex")
and counts of things English pluralises otherwise ("5 cacti" and "another cactus" count one
thing, see :func:`singular`). The fourth (gate-14, classify-6) also reads a job left
for another ("left Globex Inc. for Initech"), titles of several words ("a air traffic
controller"), values of several words ("He calls Tel Aviv home"), an allergy as the one's it
affects ("Shellfish gives me hives"), keeps an abbreviation's full stop within its sentence and
an interjection's statement after it ("Honestly it's tea over coffee, always"), and knows a
new role at a company, being employed as something and feeling better for what they are not
(see :data:`_PHRASINGS_4`, :data:`_FALSE_FRIENDS_4`). The fifth (gate-15, classify-7 and recall)
also reads jobs ending in "-ary" ("a actuary", "a notary") and a job someone was made ("They made
me air traffic controller"), the age of someone else's child named ("Oscar's son Leo is 9" is
Leo's age), a pet of several words introduced as new ("Meet Miss Marple, our new border collie!"
is the speaker's), a modal that is a name after "with" ("Caught up with Will today. He eats
macrobiotic." is Will's diet; see :data:`_PHRASINGS_5`), hyphened words in alternatives and in a
job at a company ("late check-outs over early check-ins", "a sous-chef at Saltmarsh
Ventures"), and a change of job by the job left ("I went from actuary to sommelier"). The
sixth (gate-16, classify-8 and recall) also reads a job taken or lost by its offer, contract,
hirer or last day ("I accepted an offer from Initech", "Initech hired me", "Globex laid me
off"), a job got by its title ("I got the paramedic job"), a new address or city, a count one
is down to or got up to ("down to one bike", "a third cat", "I meant 4 bikes"), an age by a
birthday or a bare number ("his 7th birthday", "Mia is 9 now"), meat eaten again, a preference
for the kind of person one is ("more of a wine person"), an appointment on a day ("My haircut
is Saturday", "Physio is now Friday instead of Tuesday"), a train moved to an hour, a couple
together; a note's label as no speaker ("Update: relocated to Porto"); and a sentence opening
with a common noun of the vocabulary ("Home is Porto now"), a bare verb ("Is now vegan"), "X
and I" ("Sam and I broke up"), a place said to be home ("Porto is home now") or whoever hired
("Initech hired me") as the speaker's, where the editions before took the first word for a
name (see :data:`_PHRASINGS_6`). The seventh (gate-17, classify-9 and recall) also reads a home
moved to by "moved house to", said by "-based" or noted as a city ("User: city now Kiel"), a
preference by what one likes more than another, a job lost or found by "let me go", "took me
on" (whoever did it: the speaker's) or being poached, a job by what one works as where ("Tomás
works for TAP as a captain", "Priyanka works as a dentist at SmileCare"), a wedding ("tied the
knot"), an age by a number word ("Isla turned three", "June is sixteen now"), after "'s"
("Milo's 4 now") or after "he's" ("Finn is a teenager now, he's 13"), a train's new time on the
24-hour clock, and "They've changed the Leeds train to 8:25" as the speaker's train; it counts
the thing after a number before any other ("I bought a gravel bike, so I have 3 bikes now"
counts bikes, "Sold two of the chickens, 4 left" chickens), and knows that a teenager, a mother
or a fan is no job (see :data:`_PHRASINGS_7`). The eighth (gate-19, classify-10 and recall)
also reads a job by the one who took the speaker on in more words ("Bosch onboarded me",
"Contoso recruited me"), what has won the speaker over or back ("Paper books have won me
back": the speaker's, whoever the subject), a separation ("signed the separation papers"), an
age by a birthday celebrated ("Tariq celebrated turning fifteen"), in tens ("Forty-two as of
this morning", "Thirty today!"), a departure "shifted" to an hour, and an appointment by the
day one is booked in for or going in on ("I'm booked in for the 19th", "I'm going in Monday
instead") and by its field ("the dental surgery" is the dentist, "the dermatology clinic" the
dermatologist, the eye test the optician's: see :data:`_PHRASINGS_8`). The ninth (gate-20,
classify-11 and recall) also reads a promotion by being bumped, moved up or appointed to a job
("Dangote bumped me up to finance manager"), a job by what one now teaches or manages, by the
first pay or day at a place or of any words at a place ("is now a branch manager at BRI"), a
separation, a car one gets around in, a departure by the one one is on ("so I'm on the 7:48
instead") or moved to an hour in words, a home unpacked in or moved to in a direction ("We
moved south to Bodø"), a count noted after "now" or given again ("so it's four"), a test, scan
or treatment booked on a day as an appointment of its kind ("the blood test"), and an opening
clause with its own subject ("Since we unpacked in Noida, ..."); and it reads no value held
once as held now ("from when I lived in Kampala", "I used to work at Initech": ``held_once``
reads them as values of the past), none that may come to hold ("We might move to Cusco"), no
count after a preposition ("got down on one knee"), no seat on a plane as a car and no month
one was born in as a home town (see :data:`_PHRASINGS_9`, :data:`_FALSE_FRIENDS_9`). The tenth
(gate-21, classify-12 and recall) also reads a clause with its own first-person subject in a
sentence about someone or something else as the speaker's ("Perth's been great but we're
Adelaide-based now", "Arash moved out and we're now officially separated"), and what someone talked
the speaker into; a birth as one child more ("Our son Tariq arrived on Sunday", "Baby number three
arrived"); a count by its ordinal ("There's a third cat in the house now") or by what is left
("which leaves us with two"), some of a thing as the thing ("a pair of the rabbits"); a couple made
official, a pastime taken up, a departure retimed or "the 6:55 bus for me", a place moved up to or
gone to for good, a job by an offer said yes to, by where one now teaches or one's department, what
has overtaken another for the speaker, an appointment booked in for a day or its day corrected, and
the animal clinic as the vet (see :data:`_PHRASINGS_10`), a promotion got or come through, an age
corrected ("Noor is 7, not 6"), a job started as at a place or held with a company named, a report
opening a sentence as no subject ("Kenya Airways emailed, they've pushed ..."), a cleft of the
speaker's as theirs ("It's cashews I react to"), what someone who called reports of themself as
theirs ("Dana called, she moved to Lyon"), a clause after a semicolon with no subject as going on
about the one before ("User's brother Cheikh graduated; now works at Hydro-Quebec"), someone else's
birth, "the only cat left", a standing appointment ("every Wednesday"), a note's days ("Tue ->
Fri"), a home beside an appointment in one sentence, an opening holding a subject as no aside
("Since last week I've gone fully vegan, ..."); and it reads nothing new in what was declined ("I
didn't take the job at Saffron Pay after all"), supposed ("If I got the job at Nordlys I'd ..."),
meant to be and not ("I was supposed to take over as head chef, but ..."), only considered, held
back when ("Back when Tavita was in her twenties ..."), or said to stay as it was ("the departure
time hasn't changed", "decided to keep the current car"), nor a department as a departure, an
allergy clinic as an allergy or a pastime quit as a job left (see :data:`_NOT_SO_10`,
:data:`_FALSE_FRIENDS_10`).

Pure and deterministic: regexes over the text, no model.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from functools import cache, lru_cache
from typing import Final, NamedTuple

from eventmem.policies.literals import Screen
from eventmem.text.lazyre import lazy_re

FACTS_VERSION: Final = "facts-1"
# The reader's editions. Edition 1 is how the write gates up to gate-11 read a text (the audit
# re-derives their decisions with it); edition 2 (gate-12) also reads a statement
# behind a correction marker ("Sorry, I misspoke earlier, I work at X"), a he/she sentence as
# about the person the sentence before it names ("Caught up with Dana. She moved to Lyon."),
# each attribute in the other words English says it in (:data:`_PHRASINGS`), and names in any
# letters, vocabularies without accents and pets by "named" (see :class:`_Names`, :func:`_plain`,
# :data:`_KEPT_NAMED`); edition 3 (gate-13) notice given (:data:`_PHRASINGS_3`) and irregular
# plurals; editions 4 (gate-14), 5 (gate-15), 6 (gate-16), 7 (gate-17), 8 (gate-19) and 9
# (gate-20, and recall) what the module docs list. One number says how a gate reads, so there is
# no second switch for names.
EDITION_1: Final = 1
EDITION_2: Final = 2
EDITION_3: Final = 3
EDITION_4: Final = 4
EDITION_5: Final = 5
EDITION_6: Final = 6
EDITION_7: Final = 7
EDITION_8: Final = 8
EDITION_9: Final = 9
EDITION_10: Final = 10
EDITION: Final = EDITION_10

USER: Final = "user"
OTHER: Final = "other"


class Fact(NamedTuple):
    """One attribute a sentence states, and whose."""

    owner: str  # USER, OTHER or a lower-cased name
    attribute: str
    qualifier: str | None  # the thing counted, the relative, the kind of appointment...


class Question(NamedTuple):
    """The owner and attribute a question asks about."""

    owner: str  # USER or a lower-cased name
    attribute: str
    qualifier: str | None
    options: frozenset[str]  # a preference question's alternatives ("coffee or tea")


# A name as written in any Latin, Greek or Cyrillic script: a capital, then lower-case letters
# ("Zoë", "Joaquín", "Łukasz"), or two such joined by a hyphen ("Anne-Marie", "Ana-Sofía").
# ASCII-only classes read "Joaquín moved to Lyon" as a sentence with no subject (so the user's
# move) and "Where does Joaquín live?" as asking about no one. The capitals are listed (Python's
# re has no \p{Lu}); a lower-case letter is any letter but those.
_CAPITALS: Final = "".join(c for c in map(chr, range(0xC0, 0x530)) if c.isupper())
CAP: Final = f"[A-Z{_CAPITALS}]"
LOW: Final = rf"[^\W\d_A-Z{_CAPITALS}]"
NAME: Final = rf"{CAP}{LOW}+(?:-{CAP}{LOW}+)?"
# What gate-11 and classify-3 (and before) took for a name and a word: ASCII letters only. Their
# logs are audited with these (see _Names).
ASCII_NAME: Final = r"[A-Z][a-z]+(?:-[A-Z][a-z]+)?"


def _words(*groups: str) -> str:
    return "|".join(w for group in groups for w in group.split())


_RELATIVES: Final = frozenset(
    """
    sister brother sibling mother mom mum mommy father dad daddy parent parents son daughter kid
    child children baby wife husband spouse partner girlfriend boyfriend fiance fiancee grandma
    grandmother granny grandpa grandfather aunt uncle cousin niece nephew stepson stepdaughter
    stepmother stepfather friend bestie coworker colleague neighbour neighbor boss manager
    roommate flatmate housemate classmate teammate mentor
    """.split())  # noqa: SIM905 - a word list reads better as prose
_KIN: Final = frozenset(
    """
    sister brother sibling mother mom mum father dad son daughter kid child baby wife husband
    spouse partner girlfriend boyfriend fiance fiancee grandma grandmother grandpa grandfather
    aunt uncle cousin niece nephew stepson stepdaughter stepmother stepfather
    """.split())  # noqa: SIM905
# Whom one is in a relationship with: "Who is my husband?" asks the user's relationship.
_SPOUSES: Final = "partner husband wife spouse boyfriend girlfriend fiance fiancee"
_CHILDREN: Final = frozenset("son daughter kid child baby stepson stepdaughter".split())  # noqa: SIM905
_APPOINTMENTS: Final = (
    "dentist doctor physio physiotherapist physiotherapy haircut hairdresser barber checkup "
    "check-up vet therapist therapy optician optometrist dermatologist chiropractor "
    "gynecologist dermatology eye massage osteopath orthodontist cardiologist "
    "consultation interview")
_JOBS: Final = (
    "engineer manager director scientist analyst designer developer nurse teacher lawyer "
    "accountant consultant architect writer editor researcher programmer administrator officer "
    "specialist coordinator technician practitioner pharmacist chef intern professor lecturer "
    "librarian bookkeeper cashier clerk paralegal electrician plumber mechanic recruiter "
    "strategist marketer "
    "salesperson representative supervisor executive founder cto ceo cfo vp owner "
    "journalist photographer translator economist statistician physicist chemist biologist "
    "surgeon paramedic firefighter pilot tutor instructor counselor counsellor auditor "
    "planner producer illustrator animator copywriter")
_CAR_MAKES: Final = (
    "toyota honda tesla ford subaru nissan bmw audi volkswagen vw kia hyundai mazda volvo "
    "chevrolet chevy jeep lexus porsche mercedes renault peugeot fiat skoda seat polestar rivian "
    "dodge gmc buick cadillac mitsubishi suzuki citroen dacia opel jaguar prius civic corolla "
    "camry outback leaf golf")
_PETS: Final = (
    "pet pets cat cats dog dogs puppy puppies kitten kittens labrador beagle terrier retriever "
    "poodle spaniel corgi dachshund husky shepherd collie tabby parrot budgie hamster rabbit bunny "
    "goldfish tortoise turtle gecko lizard ferret chinchilla pug greyhound parakeet cockatiel "
    "canary budgerigar guinea iguana axolotl hedgehog gerbil pony horse")

# Each attribute's vocabulary, on the lower-cased sentence. Order matters for a question only:
# the first attribute it names is the one asked (so "seeing the physio" is an appointment).
_ATTRIBUTES: Final[tuple[tuple[str, str], ...]] = (
    ("allergy", r"\ballerg\w*|\bintoleran\w*|\banaphyla\w*"),
    # A kind of appointment counts with its date ("the haircut is on Friday", "pushed the
    # physio to Tuesday"), not when merely named ("took the dog to the vet").
    ("appointment", rf"\bappointments?\b|\bresched\w*|\b(?:{_words(_APPOINTMENTS)})\b[^.;]*"
                    r"\b(?:on|moved|pushed|booked|scheduled|to) (?:the )?(?:next )?"
                    r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|\d)"
                    r"|\b(?:push|pushed|move|moved|book|booked|schedule|scheduled)"
                    r" (?:the |my |a )?"
                    rf"(?:{_words(_APPOINTMENTS)})\b"),
    ("departure", r"\bflights?\b|\bdepart\w*|\btakes? off\b|\btake-?off\b|\bboarding\b"
                  r"|\b(?:train|bus|ferry|plane)\b.*\b(?:leaves?|leaving)\b"),
    # "We celebrated Tessa's birthday" is a party, not a date of birth.
    ("birthday", r"\bbirthday (?:is|was|falls)\b|\bbirthday's\b|\bborn on\b|\bdate of birth\b"
                 r"|\bwhen is \w+(?:'s)? birthday\b"),
    ("age", r"\b\d+\s*(?:years?|yrs?)[ -]old\b|\bturn(?:s|ed)? \d+\b|\bhow old\b"
            r"|\bwhat age\b|\bage\b"
            rf"|\b(?:{_words(' '.join(sorted(_CHILDREN)))})\b.* is (?:now )?\d+\b"),
    ("count", r"\bhow many\b|\b(?:own|owns|owned|have|has|had|got|bought|buy|sold|gave|left|"
              r"picked up|that's|thats|total|collect\w*)\b.*\b(?:\d+|another|one more|an extra)\b"
              r"|\b(?:\d+|another|one more|an extra)\b.*\b(?:own|owns|have|has|left|now)\b"),
    ("hometown", r"\bgrew up\b|\bhome ?town\b|\boriginally from\b|\bborn and raised\b"
                 r"|\bborn in\b|\bcome from\b|\bis from\b|\bam from\b|\bare from\b"),
    ("family", rf"\b(?:{_words(' '.join(sorted(_KIN)))})s?\b.*\b(?:name|named|called)\b"
               rf"|\b(?:name|named|called)\b.*\b(?:{_words(' '.join(sorted(_KIN)))})\b"),
    ("diet", r"\bdiet\w*|\bvegan\b|\bvegetarian\b|\bpesc[ae]tarian\b|\bketo\b|\bpaleo\b"
             r"|\bgluten[- ]free\b|\bdairy[- ]free\b|\blactose\b|\bflexitarian\b|\bcarnivore\b"
             r"|\bhalal\b|\bkosher\b|\bplant[- ]based\b|\beat(?:s|ing)? (?:no )?(?:meat|fish)\b"
             r"|\blow[- ]carb\b|\bfasting\b"),
    ("car", rf"\bcars?\b|\b(?:driv(?:e|es|ing)|drove)\s+(?:a|an|the|my|our|his|her|their)\b"
            rf"|\bvehicle\b|\btruck\b|\bsuv\b"
            rf"|\bsedan\b|\bhatchback\b|\bminivan\b|\b(?:{_words(_CAR_MAKES)})\b"),
    ("phone", r"\bphones?\b|\biphone\w*|\bpixel\b|\bgalaxy\b|\bsmartphone\b|\boneplus\b"
              r"|\bxperia\b|\bfairphone\b|\bmotorola\b|\bmoto\b|\bnokia\b|\bxiaomi\b|\bhuawei\b"),
    ("pet", rf"\b(?:{_words(_PETS)})\b|\badopt\w*|\bpassed away\b|\bdied\b|\bput down\b"),
    # "single" as a status ("I'm single", "back to being single"), not "a single ticket".
    ("relationship", r"\b(?:i'm|im|i am|is|am|are|now|still|been|being|stay\w*) single\b"
                     r"|\bdating\b"
                     r"|\bseeing (?:someone|somebody|anyone|each other|a (?:guy|girl|man|woman))\b"
                     r"|\bengaged\b|\bmarried\b|\bgirlfriend\b"
                     r"|\bboyfriend\b|\bfianc[eé]e?\b|\bdivorc\w*|\bbroke up\b|\bbreak ?up\b"
                     r"|\bsplit up\b|\brelationship\b|\bin love\b|\bproposed\b"),
    ("preference", r"\bprefer\w*|\brather\b|\bfavou?rite\b|\bbetter\b|\bswitched (?:to|from)\b"
                   r"|\b(?:pick|choose|take|like|love|want|go for)s? [a-z ]+ over\b"),
    ("hobby", r"\bhobb(?:y|ies)\b|\bfor fun\b|\bpastime\b|\bfree time\b|\bspare time\b"
              r"|\benjoy\w*|\b(?:got|getting|gotten|really|totally|very|so|big|huge|i'm|im) "
              r"into\b|\bpassion\b|\bspends? (?:\w+ )?(?:weekends|evenings|free time|spare time)"
              r" on\b"),
    ("title", rf"\bjob title\b|\btitle\b|\b(?:job|role|position|occupation|profession) is\b"
              rf"|\bpromoted\b|\bpromotion to\b|\b(?:work\w*|start\w*|hired|employed) as\b"
              rf"|\brole\b|\bposition\b|\boccupation\b|\bprofession\b|\bfor a living\b"
              rf"|\bjob as\b|\b(?:as|a|an|new|now|from|to)\s+(?:[a-z]+\s+)?(?:{_words(_JOBS)})\b"
              r"|\b(?:is|am|i'm|im|became|become|becoming|now) (?:now )?an? [a-z]+"
              r"(?:ist|er|or|ian|ant|grapher|ologist)\b"),
    ("employer", r"\bwork(?:s|ed|ing)? (?:at|for)\b(?! (?:me|us|you|him|her|them|it)\b)"
                 r"|\bemploy\w*|\bjob (?:at|with)\b"
                 r"|\bhired (?:at|by)\b|\bfirst (?:day|week|month) at\b"
                 r"|\bstart(?:ed|ing|s)? (?:a new job )?at\b|\bjob as [a-z ]+ at\b|\bcompany\b"
                 r"|\blaid off\b"
                 r"|\bquit\b|\bwhere (?:do|does|did) \w+ work\b|\bfirm\b|\bover at\b"
                 r"|\b(?:i'm|im|i am) an? [a-z]+(?: [a-z]+)? at\b"),
    ("residence", r"\bliv(?:e|es|ed|ing) in\b|\bmov(?:e|ed|es|ing) (?:to|from|back|out|away)\b"
                  r"|\brelocat\w*|\bbased (?:in|out of)\b|\bsettled in\b|\breside\w*"
                  r"|\b(?:apartment|flat|house|home|place) in\b|\bresidence\b|\bwhat city\b"
                  r"|\bwhere (?:do|does|did) \w+ live\b|\bliv(?:e|es|ing) (?:at|near|with)\b"
                  r"|\bafter the move\b"),
)
_COMPILED: Final = tuple((name, lazy_re(pattern)) for name, pattern in _ATTRIBUTES)

# Edition 2: more of the words each attribute is said in, beside :data:`_ATTRIBUTES` (on the
# lower-cased sentence). Each is a way English states the attribute, whatever the verb tense or
# the person: where one lives ("home is", "call X home", "a new place in"), works ("on the
# payroll", "left X for Y", "a new role at"), is trained as ("by trade", "made me"), prefers
# ("favour", "given the choice", "X over Y any day"), counts ("there are 3 ...", "up to 5"),
# comes from ("raised in"), reacts to ("gives me a reaction"), flies ("fly out to"), was born
# ("born on May 3", "May 3 is my birthday"), names a relative ("goes by", "is my sister").
_PHRASINGS: Final = {name: lazy_re(pattern) for name, pattern in (
    ("allergy", r"\bgives? (?:me|him|her|them) (?:a |an )?(?:bad |awful |terrible |allergic )?"
                r"(?:reaction|rash|hives)\b|\bcan't (?:have|eat|touch)\b[^.]*\ballerg"),
    ("departure", r"\bfl(?:y|ies|ying|ew) (?:out )?(?:to|from)\b|\bleav(?:e|es|ing) for\b"
                  r"|\bdeparture time\b"),
    ("birthday", r"\bis (?:my|his|her|their|the user's) birthday\b|\bborn (?:on )?(?:january|"
                 r"february|march|april|may|june|july|august|september|october|november|"
                 r"december)\b"),
    ("count", r"\bthere (?:are|were) (?:\d+|two|three|four|five|six|seven|eight|nine|ten)\b"
              r"|\bkeeps? \d+\b|\b(?:up to|makes) \d+\b|\bcollection\b[^.]*\b\d+\b"),
    ("hometown", r"\braised (?:in|on)\b|\bwhere (?:i|we|he|she|they) (?:was|were) raised\b"
                 r"|\bfrom \w+(?: \w+)? originally\b"),
    ("family", rf"\bgoes by\b|\bknown as\b|\bis (?:my|our|his|her|their|the user's) "
               rf"(?:{_words(' '.join(sorted(_KIN)))})\b"),
    ("diet", r"\bgave up (?:meat|fish|dairy|animal products)\b|\bno (?:more )?meat\b"
             r"|\b(?:macrobiotic|fruitarian|atkins|whole ?30)\b"
             r"|\b(?:lacto[- ]?ovo|ovo[- ]?lacto|ovo|lacto)[- ]vegetarian\b"
             r"|\blow[- ](?:fodmap|sodium|salt|fat|sugar|histamine|gi)\b"
             r"|\b(?:egg|nut|soy|sugar|grain|wheat|carb)[- ]free\b|\bmediterranean diet\b"),
    ("car", r"\bcar dealer(?:ship)?\b|\bget(?:s)? around in\b"),
    ("phone", r"\bnew phone\b"),
    ("relationship", r"\blove life\b|\bwith someone\b|\b(?:status|user)[: ]+single\b"),
    ("preference", r"\bfavou?r(?:s|ed|ing)? [a-z]+(?: [a-z]+)? over\b|\bgiven the choice\b"
                   r"|\b[a-z]+ over [a-z]+[^.]*\b(?:any day|every time)\b|\bcome around\b"
                   r"|\bchanged (?:my|his|her|their) mind\b"
                   r"|\b[a-z]+ over [a-z]+,? (?:for me|always|these days|now)\b"),
    ("hobby", r"\b(?:weekends|evenings|sundays|saturdays) are for\b|\bin (?:my|his|her|their)"
              r" (?:free|spare) time\b"),
    ("title", rf"\bby trade\b|\bmade (?:me|him|her|them) (?:an? )?(?:[a-z]+ )?(?:{_words(_JOBS)})\b"
              rf"|\b(?:was|were|got) made (?:an? )?(?:[a-z]+ )?(?:{_words(_JOBS)})\b"
              rf"|\bmoved up to\b"),
    ("employer", r"\bon (?:the|their|its) payroll\b|\bnew (?:role|job|position) at\b"
                 r"|\b(?:is|am|was|i'm|he's|she's) an? [a-z]+(?: [a-z]+)? at\b|\bjob\b[^.]* at\b"),
    ("residence", r"\bhome (?:for me )?(?:is|was)\b|\bcall \w+(?: \w+)? home\b"
                  r"|\bnew place\b|\bunpacking in\b|\bcity of residence\b|\bcurrent city\b"),
)}
# A medical or care specialist by the form of the word ("podiatrist", "audiologist",
# "dietician"), beside the appointments named in :data:`_APPOINTMENTS` (edition 3).
_SPECIALIST: Final = r"[a-z]+(?:ist|ician)"
# Edition 3: leaving a job in the words notice is given in ("Handed in my notice at Globex, I'm
# with Hooli now", "She resigned from Globex"); an appointment with a specialist by the form of
# the word ("Had to push the podiatrist to Friday").
_PHRASINGS_3: Final = {name: lazy_re(pattern) for name, pattern in (
    ("appointment", rf"\b(?:push|pushed|move|moved|book|booked|schedule|scheduled|resched\w*) "
                    rf"(?:the |my |a |an |his |her |their )?{_SPECIALIST}\b"
                    rf"|\b(?:seeing|see|sees|visiting|visit) (?:the|my|a|an|his|her|their) "
                    rf"{_SPECIALIST} (?:on|next|this|at|tomorrow)\b"),
    ("pet", r"\b(?:maine coon|ragdoll|siamese|persian|bengal|sphynx|bearded dragon|"
            r"cockatoo|macaw|lovebird|finch|tarantula|snake|python|chameleon|dachshund|"
            r"schnauzer|shih tzu|whippet|labradoodle|cockapoo|rottweiler|doberman|"
            r"boxer dog|bulldog|mutt|tomcat|kitty)\b"),
    ("employer", r"\b(?:handed|handing|hand|hands|gave|give|gives|giving|put|putting) in "
                 r"(?:my|his|her|their|our) (?:notice|resignation)\b"
                 r"|\b(?:gave|give|gives|giving) (?:my|his|her|their|our) notice\b"
                 r"|\bresign(?:ed|s|ing)? (?:from|at|as)\b"
                 r"|\bserving (?:my|his|her|their) notice\b"),
)}
# Edition 4: a job left for another ("Desmond left Zephyr Bio-Systems for Brightwater Inc.":
# "left X for Y" says a move between employers when a company is named in it, between places
# otherwise) and a title of up to three words before "at" ("I'm a air traffic controller at
# Kestrel Aerospace"); a title of up to three words, or hyphenated, by the form of its last
# word, where it is said as the speaker's work ("I'm a air traffic controller now", "I'm a
# sous-chef now": the earlier editions took one plain word only, "I'm a nurse").
_COMPANY: Final = (
    r"(?:&|\b(?:inc|co|corp|corporation|ltd|llc|plc|gmbh|ag|group|partners|labs?|studios?|"
    r"systems|bank|press|games|foods|motors|energy|technologies|solutions|consulting|ventures|"
    r"holdings|industries|media|software|pharma|insurance|capital|aerospace|logistics|freight|"
    r"brothers|agency|analytics|insights|robotics|airlines|publishing|health|healthcare|care|"
    r"traders|trading|paper|retail|services|networks?|telecom|electric|hotels|finance|financial|"
    r"pharmaceuticals|digital|interactive|entertainment|marketing|engineering|construction|"
    r"manufacturing|shipping|enterprises|international|global|company)\b)")
# A job's name of up to three words, by the form of its last ("air traffic controller").
_JOB_4: Final = (r"(?:[a-z]+[- ]){0,2}(?:[a-z]+(?:ist|er|or|ian|ant|grapher|ologist)|chef|nurse|"
                 r"partner|pilot|clerk|guard|agent)")
# "He calls Tel Aviv home": up to four words of ``word`` characters between (not "at home").
_CALLS_HOME: Final = (r"\bcall(?:s|ed|ing)? (?:{word}+ ){{1,4}}(?<!\bat )(?<!\bfrom )"
                      r"(?<!\bback )(?<!\bthe )(?<!\bmy )home\b")
_PHRASINGS_4: Final = {name: lazy_re(pattern) for name, pattern in (
    # (within one sentence, whose abbreviations keep their full stops: "Inc.")
    ("employer", rf"\bleft\b[^;!?]*?{_COMPANY}[^;!?]*?\bfor\b"
                 rf"|\bleft\b[^;!?]*?\bfor\b[^;!?]*?{_COMPANY}"
                 r"|\b(?:i'm|im|i am|is|am|was|he's|she's) an? [a-z-]+(?: [a-z-]+){2} at\b"),
    # alternatives of several words ("train journeys over road trips, always"), and a status
    # said alone ("User: single")
    ("preference", r"\b[a-z]+(?: [a-z]+){0,2} over [a-z]+(?: [a-z]+){0,2},? (?:for me|always|"
                   r"these days|now|any day|every time)\b"),
    ("relationship", r"^(?:single|engaged|married|divorced|widowed)[.!]?$"),
    # phones by the makes the first vocabulary lacked ("I use a Redmi Note 13")
    ("phone", r"\b(?:redmi|poco|realme|oppo|vivo|zenfone|blackberry|razr|lumia|"
              r"galaxy [a-z]?\d+|iphone|handset)\b"),
    # a home of several words, whoever calls it so ("He calls Tel Aviv home now", "I call Ho
    # Chi Minh City home")
    ("residence", _CALLS_HOME.format(word=r"[\w'-]")),
    ("title", rf"\b(?:is|am|i'm|im|was|became|become|becoming|now) (?:now )?an? {_JOB_4}\b"
              r"(?= (?:now|at|by trade|for a living|these days)\b|[.!]?$)"),
)}
# Edition 5: jobs named by "-ary" too ("actuary", "notary", "secretary") or led ("marketing
# lead", "team lead"), and a job someone was made ("They made me air traffic controller, so long
# actuary").
_JOB_5: Final = _JOB_4.replace("|ant|", "|ant|ary|").replace(
    "|agent)", "|agent|lead|" + "|".join(sorted(_JOBS.split(), key=len, reverse=True)) + ")")
_PHRASINGS_5: Final = {name: lazy_re(pattern) for name, pattern in (
    ("title", rf"\b(?:is|am|i'm|im|was|became|become|becoming|now) (?:now )?an? {_JOB_5}\b"
              r"(?= (?:now|at|by trade|for a living|these days|on|since|as of|effective)\b"
              r"|[.!]?$)"
              rf"|\b(?:made (?:me|him|her|them|us)|(?:was|were|got|been|be|being) made) "
              rf"(?:an? |the )?(?!redundant\b){_JOB_5}\b"),
    # a hometown with "originally" after it ("User: from Aix-en-Provence originally")
    ("hometown", r"\bfrom (?:[\w'.-]+ ){1,4}originally\s*(?:[.!,;]|$)"),
    # a home whose name holds an abbreviation ("I call St. Louis home")
    ("residence", _CALLS_HOME.format(word=r"[\w'.-]")),
    # a specialist named by the form of the word who moved the day ("The podiatrist pushed
    # me to Sunday", "the podiatrist switched my slot from Wednesday to Thursday"), as the
    # first edition reads it of the specialists its vocabulary names ("The dentist pushed me
    # to Sunday"); someone or something moved, not only named ("The tourist bus leaves on
    # Monday", "The artist moved to Berlin on Monday")
    # a thing favoured named in up to four words ("User favours cooking at home over eating
    # out"; the second edition read two)
    ("preference", r"\bfavou?r(?:s|ed|ing)? [a-z]+(?: [a-z]+){2,3} over\b"),
    ("appointment", rf"\b(?:the|my|his|her|their|our) {_SPECIALIST} (?:pushed|moved|switched"
                    r"|bumped|shifted|rescheduled|changed|put|booked) (?:me|us|him|her|them|it|my"
                    r"|our|his|their|the)\b[^.;]*"
                    r"\b(?:on|to|from) (?:the )?(?:next )?"
                    r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b"),
)}
# Edition 6: more ways English states an attribute (the module docs list them). A job taken by
# its offer or contract ("I accepted an offer from Initech"; an offer only made is no job:
# "Solveig got a job offer from Marigold"), lost ("Globex laid me off") or got by its title ("I
# got the paramedic job"); where one lives by the address; a count one is down to or got up to
# ("I'm down to one bike", "We just got a third dog"); an appointment on a day ("My haircut is
# Saturday", "Physio is now Friday instead of Tuesday"); an age by a bare number, only when the
# whole sentence is the name and the number ("Mia is 9 now").
_PHRASINGS_6: Final = {name: lazy_re(pattern) for name, pattern in (
    ("employer", r"\b(?:accept(?:ed|ing|s)?|took|take|taking|taken) (?:an? |the |their |his |her )?"
                 r"(?:job |work )?offer (?:from|at|with)\b"
                 r"|\bsigned (?:my|our|an? (?:employment|job|work)) contract (?:with|at)\b"
                 r"|\bhired me\b|\blaid (?:me|us) off\b|\bfired me\b|\blast (?:day|week) at\b"
                 r"|\b(?:changed|switched|changing|switching) jobs\b"),
    ("title", rf"\b(?:got|landed|accepted|took|start(?:ed|ing)?) (?:the|a|an|my|that) "
              rf"(?:new )?{_JOB_5} (?:job|role|position|post|gig)\b"),
    ("appointment", rf"\b(?:{_words(_APPOINTMENTS)})\b[^.;]*\b(?:now|instead of|is|'s) "
                    r"(?:on )?(?:the )?(?:next )?"
                    r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b"),
    ("relationship", r"\b(?:are|is|am|were|got|getting|been|back) (?:officially |finally |now )?"
                     r"together\b|\b(?:and i|we) (?:have |had |just |finally )?separated"
                     r"(?=\s*(?:[.!,;]|$|last\b|this\b|in\b|after\b|for good\b|recently\b))"
                     r"|\bseparated from (?:my )?(?:husband|wife|partner|spouse)\b"),
    # a pastime done at the weekend ("I do pottery on weekends")
    ("hobby", r"\b(?:i|we) (?:do|play|practi[cs]e|go) [a-z]+(?: [a-z]+)? (?:on|at|every|most) "
              r"(?:the )?weekends?\b"),
    # a train, bus or ferry moved to another time ("Train's been moved to 11am")
    ("departure", r"\b(?:train|bus|ferry|coach)\b[^.;]*\b(?:moved|pushed|rescheduled|delayed"
                  r"|bumped|changed|now)\b[^.;]*\b\d{1,2}(?::\d\d)?\s*(?:am|pm)\b"),
    # ("My new address is in Porto", "Porto is home now", "Porto is where I live now")
    ("residence", r"\b(?:new|home|current) (?:address|city|hometown)\b|\baddress is (?:now )?in\b"
                  r"|\bis (?:my |our )?home (?:now|these days|for now|for me)\b"
                  r"|\bis where (?:i|we) (?:live|am living|'m living|reside)\b"),
    # (and one more kept by adopting it: "We adopted a third cat, so 3 cats")
    # ("I meant 4 bikes" with a digit: "I meant Three Rivers Bank" names a bank)
    ("count", r"\b(?:i'm|im|i am|we're|we are|now|only|just) down to (?:\d+|one|two|three|four|"
              r"five|six|seven|eight|nine|ten)\b"
              r"|\b(?:i meant|make (?:that|it)) \d+\b"
              r"|\b(?:adopt\w*|rescued|welcomed|took in|got|bought|added)\b[^.;]*\b(?:\d+|"
              r"an? (?:second|third|fourth|fifth|sixth))\b"),
    ("diet", r"\beat(?:s|ing)? (?:chicken|beef|pork|fish|seafood|meat|steak)\b"
             r"|\b(?:started|start|back to|stopped|quit|gave up) eating\b"),
    ("age", r"\b\d+(?:st|nd|rd|th) birthday\b"
            r"|^[^\W\d_][\w-]* is (?:now )?\d{1,2}(?: years old)?(?: now| today)?[.!]*$"),
    ("preference", r"\bmore of an? [a-z]+ (?:person|fan|drinker|eater|lover|guy|girl)\b"),
)}
# Edition 6: the ordinals before a thing counted ("a third cat").
_ORDINALS_6: Final = frozenset(["second", "third", "fourth", "fifth", "sixth"])
# Edition 6: common nouns of the vocabulary that open a sentence as its subject ("Home is Porto
# now", "Physio is now Friday", "Flight got moved to 2pm"), and verbs opening one without a
# subject, as extraction pipelines write them ("Is now vegan", "Was promoted to analyst"): the
# speaker's, not someone's name.
_COMMON_SUBJECTS_6: Final = frozenset(
    f"home work job life flight train bus ferry car phone {_APPOINTMENTS} "
    "is was are were am been be does".split())
# Edition 6: the speaker with someone else ("Sam and I broke up", "Mia and me moved in
# together"): the speaker's.
_WITH_ME_6: Final = lazy_re(r"^\S+(?: \S+)? and (?:I|me)\b")
# Edition 6: a label opening a note, not a speaker ("Update: relocated to Porto", "Big news: I
# got engaged!", "FYI: ...").
_NEWS_LABEL_6: Final = lazy_re(
    r"^\s*(?:(?:quick|small|little|big|good|great|bad|sad|happy|life|some|exciting) )?"
    r"(?:update|news)\s*[:!-]\s*|^\s*(?:fyi|ps|p\.s\.|btw|heads up|side note)\s*[:,-]\s*",
    re.IGNORECASE)
# Edition 6: a place said to be home ("Porto is home now", "Porto is where I live"), the
# speaker's.
_HOME_IS_6: Final = lazy_re(
    rf"^{NAME}(?: {NAME})? is (?i:(?:my |our )?home\b|where (?:i|we) (?:live|am living|reside))")
# Edition 6: "Initech hired me" (or "laid me off") is the speaker's job, whoever hired.
_HIRED_ME_6: Final = lazy_re(r"^[^.!?;]*\b(?:hired|laid|fired) me\b", re.IGNORECASE)
# Edition 7: more ways of stating an attribute (the module docs list them).
_NUMBER_WORDS_7: Final = ("one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
                          "|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty")
_PHRASINGS_7: Final = {name: lazy_re(pattern) for name, pattern in (
    ("residence", r"\bmov(?:e|ed|es|ing) (?:house|home|flats?|apartments?) (?:to|from)\b"
                  # "we're Adelaide-based now" ("I'm plant-based" is a diet)
                  r"|\b(?:i'm|im|i am|we're|we are|now) (?!plant-)[a-z]+-based\b"),
    ("preference", r"\b(?:like|likes|love|loves|enjoy|enjoys|prefer|prefers) [a-z ]{1,30}? "
                   r"(?:more|better) than\b"
                   # "Poker beats chess for me these days"
                   r"|\b(?:beats?|trumps?|wins? over) [a-z ]{1,30}? for me\b"),
    # a job by what one works as where ("Tomás now works for TAP as a captain")
    ("title", r"\b(?:(?:work(?:s|ed|ing)?|employed|hired|start(?:s|ed|ing)?) (?:for|at|with|by)"
              r"|join(?:s|ed|ing)?) [^.;,]{1,40}? as (?!well\b|usual\b|always\b|ever\b|planned"
              r"\b|much\b|many\b|soon\b|long\b|far\b|before\b|a result\b|a team\b|a favou?r\b"
              r"|of\b|if\b|though\b|from\b|per\b|part\b|such\b)"
              r"(?:an? |the )?[a-z]+"),
    ("employer", r"\blet (?:me|us) go\b|\b(?:took|taken|brought) (?:me|us) on\b"
                 r"|\b(?:poached|headhunted|recruited|snapped up) by\b"
                 # a role taken somewhere ("I've taken a role at Litware")
                 r"|\b(?:taken|took|take|taking|accepted|started|starting) (?:a|the|up a|on a)"
                 r" (?:new )?(?:role|job|position|post) (?:at|with)\b"
                 # "I'm at Northwind as an engineer"
                 r"|^(?:i'm|im|i am|we're|we are) (?:now )?(?:at|with) [^.;,]{1,40}?"
                 r" as (?:an? |the )"
                 # where one works as something ("Priyanka works as a dentist at SmileCare")
                 r"|\bwork(?:s|ed|ing)? as (?:an? |the )?[a-z]+(?: [a-z]+)? (?:at|for|with)\b"),
    ("relationship", r"\btied the knot\b|\bgot hitched\b|\bgetting hitched\b"
                     r"|\bwidow(?:ed|er)?\b"),

    ("age", rf"\bturn(?:s|ed)? (?:{_NUMBER_WORDS_7})\b"
            r"|\b(?:he|she)(?:'s| is) (?:now )?\d{1,2}(?: years old)?(?=\s*(?:[.!,;]|now\b|$))"
            # (the whole sentence a name and an age in words: "June is sixteen now", or with
            # "'s": "Milo's 4 now")
            rf"|^[^\W\d_][\w-]* is (?:now )?(?:{_NUMBER_WORDS_7})(?: years old)?(?: now| today)?"
            r"[.!]*$"
            rf"|^[^\W\d_][\w-]*'s (?:now )?(?:\d{{1,2}}|{_NUMBER_WORDS_7})(?: years old)?"
            r"(?: now| today)?[.!]*$"
            # a birthday by its ordinal in words ("Nia's seventh birthday was yesterday")
            r"|\b(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh"
            r"|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth)"
            r"[ -]birthday\b"),
    ("departure", r"\b(?:train|bus|ferry|coach|flight)\b[^.;]*\b(?:moved|pushed|rescheduled"
                  r"|delayed|bumped|changed|now|brought forward)\b[^.;]*\b\d{1,2}:\d\d\b"
                  r"|\b(?:moved|pushed|rescheduled|delayed|bumped|changed|brought forward)"
                  r" (?:the|my|our) (?:[a-z]+ )?(?:train|bus|ferry|coach|flight)"
                  r" to \d{1,2}(?::\d\d|\s*[ap]m)\b"),
)}
# Edition 7: words of being something that is no job ("Finn is a teenager now", "I'm a mother
# of two", "I'm a big fan of jazz").
_FALSE_FRIENDS_7: Final = {name: lazy_re(pattern) for name, pattern in (
    ("title", r"\b(?:teenager|toddler|newborn|preteen|beginner|member|fan|newcomer|stranger"
              r"|foreigner|mother|father|grandmother|grandfather|sister|brother|daughter"
              r"|lover|customer|regular)\b"),
)}
# Edition 7: a note's city ("User: city now Kiel") is where the user lives.
_CITY_NOTE_7: Final = lazy_re(
    rf"^(?i:(?:current |new |home )?city)(?:\s+(?i:now|is))?\s*:?\s*{CAP}")
# Edition 9: ... and so is its home ("User: home now Tainan").
_CITY_NOTE_9: Final = lazy_re(
    rf"^(?i:(?:current |new |home )?(?:city|town|home))(?:\s+(?i:now|is))?\s*:?\s*{CAP}")
# Edition 7: "let me go" and "took me on" are said of the speaker's job, whoever did it; what
# beats what "for me" is the speaker's preference ("Poker beats chess for me").
_HIRED_ME_7: Final = lazy_re(
    r"^[^.!?;]*\b(?:(?:hired|laid|fired) me|let me go|(?:took|taken|brought) me on"
    r"|(?:beats?|trumps?|wins? over) [a-z ]{1,30}? for me)\b",
    re.IGNORECASE)
# Edition 7: "they" changing the speaker's booking is no one in particular ("They've changed
# the Leeds train to 8:25"; "They moved to Denver" is still someone else's).
_THEY_CHANGED_7: Final = lazy_re(
    r"^they(?:'ve| have)? (?:just )?(?:changed|rescheduled|moved|pushed|delayed|bumped"
    r"|cancelled|canceled|brought forward|put back) (?:the|my|our)\b", re.IGNORECASE)
# Edition 7: a thing counted by a number ("3 bikes", "two of the chickens") before any other ("a
# gravel bike"); what is left or owned in all is no thing ("4 left now", "6 in total").
_COUNTED_7: Final = lazy_re(
    rf"\b(?:\d+|{_NUMBER_WORDS_7})\s+(?:of (?:the|my|our|his|her|their|them) )?"
    r"(?:(?:new|more|other|extra|electric|old|used)\s+)?([a-z]+)")
_NOT_COUNTED_7: Final = frozenset("left total altogether all so and but".split())  # noqa: SIM905
# Edition 8: ages in tens ("forty-two"), more ways of stating an attribute (the module docs list
# them).
_TENS_8: Final = "twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety"
_AGE_WORDS_8: Final = (rf"(?:\d{{1,3}}|(?:{_TENS_8})(?:[- ](?:one|two|three|four|five|six|seven"
                       rf"|eight|nine))?|{_NUMBER_WORDS_7})")
_NUMBERS_8: Final = frozenset(f"{_NUMBER_WORDS_7}|{_TENS_8}".split("|"))
_FUNCTION_WORDS_8: Final = frozenset(
    "from to at in on for with by of per am pm and or the a an as than till until".split())  # noqa: SIM905
_PHRASINGS_8: Final = {name: lazy_re(pattern) for name, pattern in (
    # a count in words ("We have two aquariums at home")
    ("count", rf"\b(?:own|owns|owned|have|has|had|got|bought|keep|keeps|sold|gave|lost|left"
              rf"|adopted|rescued)\b[^.;]*"
              rf"\b(?:{_NUMBER_WORDS_7})\s+(?!or\b|and\b)[a-z]+"),
    ("employer", r"\b(?:onboarded|recruited|poached) (?:me|us)\b"
                 r"|\bbrought (?:me|us) on ?board\b"),
    ("preference", r"\b(?:won|win|wins|winning) (?:me|us) (?:back|over|round|around)\b"),
    ("relationship", r"\b(?:separation|divorce) (?:papers|agreement|is final|went through)\b"
                     r"|\b(?:trial|legal) separation\b"),
    ("age", rf"\bcelebrat\w* (?:his |her |their |my |our )?turning {_AGE_WORDS_8}\b"
            rf"|\bblew out {_AGE_WORDS_8} candles\b"
            rf"|^(?:i'm |i am |now )?{_AGE_WORDS_8}(?: years old)? (?:today|now|as of)\b"
            rf"|^(?:i'm|i am) {_AGE_WORDS_8}(?: years old)?[.!]*$"),
    ("departure", r"\b(?:train|bus|ferry|coach|flight)\b[^.;]*\bshifted\b[^.;]*\b\d{1,2}(?::\d\d"
                  r"|\s*[ap]m)\b|\bshifted (?:the|my|our) (?:[a-z]+ )?(?:train|bus|ferry|coach"
                  r"|flight) to \d{1,2}(?::\d\d|\s*[ap]m)\b"),
    # the day one is booked in for, or going in on ("the dental surgery had a cancellation, so
    # I'm going in Monday instead")
    ("appointment", rf"\b(?:{_words(_APPOINTMENTS)}|dental|eye test|eye exam)\b[^.;]*"
                    r"\b(?:in|for|in on|seen on|see me on) (?:the )?(?:next )?(?:monday|tuesday"
                    r"|wednesday|thursday|friday|saturday|sunday|\d{1,2}(?:st|nd|rd|th)\b"
                    r"|\d{1,2}(?::\d\d|\s*[ap]m)\b)"),
)}
# Edition 8: what wins the speaker over is the speaker's preference ("Paper books have won me
# back"), and whoever onboards or recruits the speaker gives the speaker's job.
_HIRED_ME_8: Final = lazy_re(
    r"^[^.!?;]*\b(?:(?:hired|laid|fired|onboarded|recruited) me|let me go"
    r"|(?:took|taken|brought) me on|brought me on ?board"
    r"|(?:beats?|trumps?|wins? over) [a-z ]{1,30}? for me"
    r"|(?:won|win|wins|winning) me (?:back|over|round|around))\b",
    re.IGNORECASE)


# Edition 9: more ways of stating an attribute, each a family of English rather than one
# sentence: a promotion by being bumped, moved up or appointed to a job ("Dangote bumped me up to
# finance manager"), a job by what one now teaches or manages, by the first pay or day at a
# place, or of any words at a place ("is now a branch manager at BRI"); a separation, someone
# one goes out with; a car one gets around in; a departure by the one one is on ("so I'm on the
# 7:48 instead"), a coach's, or one moved to an hour in words; a home unpacked in or moved to in
# a direction ("We moved south to Bodo": not "moved up to", a promotion); a count noted after
# "now" ("User: now 3 kids") or given again ("so it's four"); and an appointment by a test, scan
# or treatment booked on a day ("the blood test on Monday").
_DAYS_9: Final = (r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday"
                  r"|\d{1,2}(?:st|nd|rd|th)?\b)")
_TREATMENTS_9: Final = (
    "blood test|blood tests|blood work|bloods|scan|mri|x-ray|xray|ultrasound|mammogram"
    "|vaccination|vaccinations|jab|jabs|booster|smear test|manicure|pedicure|nails|braids"
    "|facial|waxing|tattoo|grooming|groomer"
    "|hearing test|driving test|theory test")
# A job after an article, or by a word of the vocabulary alone ("revenue assurance manager"):
# the form of a word alone is no job without one ("saving for" ends as "actor" does).
_JOB_9: Final = rf"(?:(?:an? |the ){_JOB_5}|(?:[a-z]+ ){{0,2}}(?:{_words(_JOBS)}))"
_PHRASINGS_9: Final = {name: lazy_re(pattern) for name, pattern in (
    ("title", rf"\b(?:bumped|moved|stepped|bumping|moving|stepping) (?:me |us |him |her )?up to"
              rf" (?:an? |the )?(?:[a-z-]+ ){{0,2}}(?:{_words(_JOBS)}|lead|head|partner)\b"
              r"|\b(?:now|currently) (?:teach|teaches|teaching|lectures|lecturing)\b"
              rf"|\bappointed (?:as )?(?:an? |the )?(?:[a-z-]+ ){{0,2}}(?:{_words(_JOBS)}|head"
              r"|lead|partner|chair)\b"
              r"|\bteach(?:es)? [a-z]+ at\b"
              r"|\b(?:now|currently) (?:manages|runs|heads|leads)\b"
              rf"|\b(?:has|have|'s|'ve) been {_JOB_9}\b"
              r"|\b(?:practises|practices|practising|practicing|qualified|signed (?:me|us|him"
              r"|her) on) as\b"
              # a job where it is done ("Mirela is a dental hygienist in Brasov"), a subject
              # taught now ("he teaches bandoneon lessons now")
              rf"|\b(?:is|am|i'm|im|was|became|now) (?:now )?an? {_JOB_5} in\b"
              r"|\bteach(?:es|ing)? [a-z ]{1,30}? now\b"),
    ("employer", r"\b(?:first|my|our) (?:pay ?check|pay ?cheque|pay ?slip|salary|wages?|pay ?day)"
                 r" (?:from|at|with)\b|\bsigned on (?:with|at)\b"
                 r"|\bfirst (?:day|week|shift|month)\b(?: as [^.;]*?)? at\b"
                 r"|\boffer from\b[^.;]*\b(?:took it|accepted it|said yes)\b"
                 # a job of any words at a place ("is now a branch manager at BRI", "has been
                 # revenue assurance manager at NetOne")
                 rf"|\b(?:is|am|i'm|im|was|now|been|became) (?:now )?{_JOB_9} at (?!(?:heart"
                 r"|home|night|work|times|first|last|least|once|all|the moment|weekends?)\b)"),
    ("relationship", r"\b(?:we're|we are|i'm|i am|are|is) (?:now )?(?:officially |legally )?"
                     r"separated\b|\b(?:been )?going out with\b"
                     r"|\b(?:called it quits|went our separate ways|ended things)\b"),
    ("car", r"\b(?:zipping|getting|cruising|tooling|pottering|driving|running|nipping)"
            r" (?:around|about|round) in (?:a|an|my|our|the|this|that)\b"),
    ("departure", r"\b(?:i'm|im|i am|we're|we are|i'll be|we'll be|put me|put us|booked me|"
                  r"booked us) (?:now )?on the \d{1,2}(?:[:.]\d\d|\s*[ap]m)\b"
                  r"|\bcoach(?:es)?\b[^.;]*\b(?:leaves?|leaving|departs?|departing)\b"
                  # to an hour in words ("moved the Jaffna train to quarter past six")
                  r"|\b(?:train|bus|ferry|coach|flight|sailing)\b[^.;]*\b(?:held|postponed"
                  r"|put back|delayed) (?:until|till|to) [^.;]*\b\d{1,2}(?::\d\d|\s*[ap]m)\b"
                  r"|^(?=[^.;]*\b(?:train|bus|ferry|coach|flight)\b)(?=[^.;]*\b(?:moved|pushed"
                  r"|rescheduled|delayed|bumped|changed|shifted|brought forward|now)\b)[^.;]*"
                  rf"\b(?:(?:quarter|half) (?:past|to) (?:{_NUMBER_WORDS_7}|\d{{1,2}})"
                  rf"|(?:{_NUMBER_WORDS_7}) o'clock|noon|midnight)\b"),
    ("age", rf"\b(?:is|'s|turned) (?:now )?{_AGE_WORDS_8}(?: years old)? (?:since|as of)\b"),
    ("residence", r"\bunpacked in\b"
                  r"|\bfirst (?:night|week|weekend|month) (?:in|at) (?:the |our |my )?(?:new )?"
                  r"[\w-]+ (?:apartment|flat|house|home|place)\b"
                  r"|\bmoved (?:north|south|east|west|back|down|out|over|away|across|inland)"
                  rf"(?: again)? to (?!(?:an? |the )?(?:[a-z-]+ ){{0,2}}(?:{_words(_JOBS)})\b)"),
    ("count", rf"\bnow (?:\d+|{_NUMBER_WORDS_7}) [a-z]+"
              rf"|\b(?:so|which makes|that makes|making) (?:it's|it is|that's|thats|it) "
              rf"(?:\d+|{_NUMBER_WORDS_7})\b"),
    ("appointment", rf"\b(?:{_TREATMENTS_9})\b[^.;]*\b(?:on|moved|pushed|booked|scheduled|to|"
                    rf"for) (?:the )?(?:next |following )?{_DAYS_9}"
                    rf"|\b(?:{_TREATMENTS_9})\b[^.;]*\b(?:at|to) \d{{1,2}}(?:[:.]\d\d|\s*[ap]m)\b"
                    r"|\b(?:push|pushed|move|moved|book|booked|schedule|scheduled|rescheduled"
                    rf"|shifted|bumped) (?:the |my |a |her |his )?(?:{_TREATMENTS_9})\b"),
)}
# Edition 9: what held once and holds no more is not what holds ("I really miss the stalls from
# when I lived in Kampala", "I used to work at Initech"): the reader cuts a past frame out, up
# to the end of its clause; a number after a preposition counts nothing ("got down on one knee",
# "in two weeks"); and a month or a year one was born in is no home town.
_PAST_FRAME_9: Final = (
    r"(?:\b(?:used to|(?:back )?when (?:i|we|he|she|they|the user) (?:still )?(?:lived|worked|was"
    r" living|were living|was working|were working|drove|had|was with|were with|was at|were at"
    r"|was in|were in))\b|(?<!'ve )(?<!have )(?<!has )(?<!'s )\blived in\b)"
    r".*?(?=\b(?:but|and|so|now|these days)\b|[.;,!?]|$)")
# ... and what may come to hold is not what holds ("We might move to Cusco if the transfer goes
# through", "thinking of joining Initech"): cut to the end of the sentence.
_MAYBE_9: Final = (r"\b(?:might|could|would|thinking (?:of|about)|considering|planning to"
                   r"|plan to|hoping to|hope to|want to|wants to|wanna|if)\b[^.;!?]*")
# A car's make or model in its other senses ("play golf", "a seat on the plane": SEAT makes cars
# and VW the Golf).
_NO_CAR_9: Final = (
    r"\bseats? (?:number |no\.? )?\d+[a-z]?\b|\bin seat\b|\bseat ?belts?\b|\b(?:window|aisle"
    r"|middle|front|back|rear|booster|passenger|exit row) seats?\b"
    r"|\b(?:play|plays|played|playing|round of|mini|crazy) golf\b|\bgolf (?:course|club|clubs"
    r"|balls?|lessons?|buddies|trip|holiday)\b|\b(?:new|tea|fig) leaf\b|\bleaf blower\b"
    r"|\bcivic (?:duty|centre|center|pride|society|hall)\b|\bthe outback\b")
# (The past is cut out of a sentence before any attribute is read, see read(); both, as
# written: "I'm thinking of joining Initech" joins no one.)
_PAST_9: Final = lazy_re(_PAST_FRAME_9)
# Edition 10: ... and what held back when anyone did anything ("Back when Tavita was in her
# twenties she worked as a tour guide").
_PAST_10: Final = lazy_re(rf"{_PAST_FRAME_9}|\bback when\b.*?(?=\b(?:but|and|so|now|these days)\b"
                          r"|[.;,!?]|$)")
_FRAMES_9: Final = lazy_re(f"{_PAST_FRAME_9}|{_MAYBE_9}", re.IGNORECASE)
_MAYBE_JOINING_9: Final = lazy_re(_MAYBE_9, re.IGNORECASE)
_FALSE_FRIENDS_9: Final = {
    **{name: lazy_re(_MAYBE_9) for name in (
        "residence", "employer", "phone", "diet", "relationship")},
    # the same role is no new one ("took the offer, same role, better hours")
    "title": lazy_re(rf"{_MAYBE_9}|\b(?:same|my old|the old) (?:role|job|position|title)\b"
                     r"|\bbelievers?\b"),
    "count": lazy_re(rf"\b(?:on|in|for|after|within|per|every) "
                     rf"(?:\d+|{_NUMBER_WORDS_7})\b"),
    # a seat on a plane or train is no car (SEAT makes cars: "I drive a SEAT Leon")
    "car": lazy_re(rf"{_MAYBE_9}|{_NO_CAR_9}"),
    "hometown": lazy_re(r"\bborn in (?:january|february|march|april|may|june|july|august"
                        r"|september|october|november|december|\d{4}|the (?:spring|summer"
                        r"|autumn|fall|winter|year|month)|(?:early|late|mid) \d{4})\b"),
}
# Edition 10: what was declined, what is only supposed and what is said to stay as it was state
# nothing new ("I didn't take the job at Saffron Pay after all", "If I got the job at Nordlys I'd
# finally have a short commute", "it's gate B14, the departure time hasn't changed"). The reader
# cuts each out of its sentence before reading any attribute: a refusal to the end of its
# clause, a clause saying what stayed as it was whole, and a supposition to the end of its
# sentence (what follows "if I got ..." is supposed too). "If I'm honest, ..." supposes nothing.
_DECLINED_10: Final = (
    r"\b(?:didn't|did not|didnt|never|won't|will not|wont|decided not to|chose not to)"
    r" (?:\w+ )?(?:take|took|get|got|accept|join|move|moved|buy|bought|adopt|adopted|sign|end up"
    r"|ended up)\b"
    r"|\b(?:turned|turning|turn) (?:it |them |the \w+ |(?:an? |the )?(?:\w+ )?offer )?down\b"
    r"|\b(?:declined|passed on|said no to)\b"
    # what was to be and was not ("I was supposed to take over as head chef, but ..."), and
    # what was only considered
    r"|\b(?:was|were) (?:supposed|meant|going|due|set) to\b|\bconsidered\b"
    # and what is kept as it was ("decided to keep the current car for now")
    r"|\bkeep(?:ing)? (?:the|my|our) (?:current|old|same|existing) \w+")
# (A clause is searched from its start only: one pass over a sentence, not one from each word.)
_UNCHANGED_10: Final = (
    r"(?:^|(?<=[,;:.!?]))[^,;:.!?]*\b(?:(?:hasn't|has not|hasnt|haven't|have not|didn't|did not"
    r"|hadn't) changed"
    r"|(?:is|are|was|stays?|stayed|remains?|remained) (?:still )?(?:the same|unchanged|as (?:it was"
    r"|it is|before|planned|booked))|unchanged)\b[^,;:.!?]*")
_SUPPOSED_10: Final = (
    r"\b(?:if|even if|unless|suppose|supposing) (?:i|we|he|she|they|the user)"
    r"(?:'m|'re| am| are| was| were)?(?: ever| only)?"
    r" (?:got|get|had|were|moved|move|took|take|won|win|landed|land|bought|buy|went|go|switched"
    r"|switch|could|did|lived|worked|quit|left|adopted|getting|moving|taking|buying|switching"
    r"|leaving)\b[^.;!?]*")
_NOT_SO_10: Final = lazy_re(rf"(?:{_DECLINED_10}).*?(?=\b(?:but|and|so|now|these days)\b"
                            rf"|[.;,!?]|$)|{_UNCHANGED_10}|{_SUPPOSED_10}", re.IGNORECASE)
# Edition 10: a clause with its own first-person subject, in a sentence about someone or
# something else, is the speaker's ("Perth's been great but we're Adelaide-based now", "Leeds is
# behind me, I'm a Manchester resident now", "Arash moved out and we're now separated").
_OWN_CLAUSE_10: Final = lazy_re(
    r"(?:[,;:]\s+|[,;:]?\s+(?:and|but|so|yet)\s+)(?:(?:now|so|and)\s+)?"
    r"(?=(?:i|i'm|i've|i'd|i'll|im|ive|we|we're|we've|we'd|we'll|my|mine|our|ours)\b)",
    re.IGNORECASE)
# ... and so is what someone talked the speaker into ("My sister talked me into going
# vegetarian": the speaker's diet).
_TALKED_ME_INTO_10: Final = lazy_re(
    r"^[^.;!?]*\b(?:talked|convinced|persuaded|got|pushed) (?:me|us) (?:into|to)\b",
    re.IGNORECASE)
# Edition 10: a birth is one child more, the speaker's when it is their child ("Our son Tariq
# arrived on Sunday", "Baby number three arrived", "Our third, a little girl, was born on
# Friday", "We welcomed our second").
_BIRTH_10: Final = lazy_re(
    r"^(?:baby (?:number |no\.? )?(?:two|three|four|five|six|\d)\b[^.;]*\b(?:arrived|is here"
    r"|was born|came)"
    r"|(?:our|my) (?:(?:new|little|baby|newborn|first|second|third|fourth|fifth|sixth) )*"
    r"(?:son|daughter|baby|boy|girl|little one|twins|bundle)\b[^.;]*\b(?:arrived|was born"
    r"|were born|is here|are here|came into the world)"
    r"|(?:our|my) (?:second|third|fourth|fifth|sixth)\b[^.;]*\b(?:arrived|was born|is here))"
    r"|\b(?:we|i) (?:just )?(?:welcomed|had) (?:our |a |the )?(?:(?:second|third|fourth|fifth"
    r"|new|newborn|little|healthy|beautiful) )*(?:baby|son|daughter|twins|(?:baby|little) (?:boy"
    r"|girl))\b|\b(?:we|i) (?:just )?welcomed (?:our|a) (?:second|third|fourth|fifth)\b"
    r"|\bi gave birth\b|\bgave birth to (?:our|my) \w+", re.IGNORECASE)
# Edition 10: a place moved up to is a home, not a rank: a name written with a capital that is no
# job ("Farida moved up to Tangier"; "moved up to occupational therapist" is a promotion).
_MOVED_UP_TO_10: Final = lazy_re(
    rf"\b(?i:moved up to) (?!(?i:(?:an? |the )?(?:[a-z-]+ ){{0,2}}(?:{_words(_JOBS)}|lead|head"
    rf"|partner|senior|chief|captain|level|grade|band)\b)){CAP}[\w'-]*\b(?<!ist)(?<!ician)")
# Edition 10: a report opening a sentence is not its subject when what follows is the speaker's or
# the reporter's deed ("Kenya Airways emailed, they've pushed the Nairobi departure to 11:15":
# the speaker's flight, not Kenya's; but "Dana called, she moved to Lyon" is Dana's).
_REPORTS_10: Final = "called|rang|texted|emailed|e-mailed|wrote|messaged|phoned"
_REPORTED_10: Final = lazy_re(
    rf"^[^,:;.!?]{{1,40}}?\b(?:{_REPORTS_10}|confirmed)"
    r"\b[^,:;.!?]{0,20}?[,:;]\s+(?=(?:they|they've|they're|i|i'm|i've|we|we're|my|our|the)\b)",
    re.IGNORECASE)
# ... and what someone reports of themself is theirs ("Dana called, she moved to Lyon" is Dana's
# home, "Mum rang, she's moved to Lyon" the user's mother's; both were the speaker's).
_REPORTER_10: Final = lazy_re(
    rf"^((?i:my |our )?)({NAME}) (?i:{_REPORTS_10})"
    r"\b[^,;:.!?]{0,20}?[,;:]\s+(?i:she|he|she's|he's|she'd|he'd)\b")
# Edition 10: a job with a company named ("I'm a marine biologist with Nordhaf Research") names
# the employer (a capitalised name: "a teacher with two kids" names none).
_JOB_WITH_10: Final = lazy_re(
    rf"\b(?i:i'm|im|i am|is|am|was|works? as|working as) (?i:an?) (?i:[a-z-]+ ){{0,2}}"
    rf"(?i:{_JOB_5}) with (?:the )?{CAP}")
# Edition 10: a cleft of the speaker's is the speaker's ("It's actually cashews I react to").
_CLEFT_10: Final = lazy_re(
    r"^(?:it's|it is|that's|that is) (?:actually |really |in fact )?[\w' -]{1,40}? (?:i|we)"
    r" (?:react|am allergic|'m allergic|are allergic|'re allergic|eat|drive|prefer|live|work)\b",
    re.IGNORECASE)
# Edition 10: a home said by living in, beside an appointment in the same sentence.
_LIVE_IN_10: Final = lazy_re(r"\b(?:we|i|user|they|he|she) (?:still )?(?:live|lives) in\b")
# Edition 10: someone else's birth counts their children ("Farhan and his wife welcomed their
# third child").
_BIRTH_THEIRS_10: Final = lazy_re(
    r"\b(?:welcomed|had) (?:their|his|her) (?:(?:first|second|third|fourth|fifth|new|baby) )*"
    r"(?:child|baby|son|daughter|kid|twins)\b", re.IGNORECASE)
# Edition 10: a job said of someone in apposition is theirs, not the subject's ("Bakyt has
# started dating Aizada, a schoolteacher from Cholpon-Ata").
_APPOSED_JOB_10: Final = (r"\b(?:dating|seeing|married|marrying|met|meeting|engaged to|with)"
                          r" [a-z]+, an? [^,.;]*")
# Edition 10: a clause cut off by a semicolon, opening in lower case with no subject of its own,
# goes on about whom the one before was ("User's brother Cheikh graduated; now works at X").
_GOES_ON_10: Final = lazy_re(
    r"^(?!(?:i|i'm|i've|i'd|i'll|im|ive|we|we're|we've|we'd|we'll|my|mine|our|ours|me|us"
    r"|the user|user)\b)[a-z]")
# ... and "it" after a correction of something of the speaker's is the speaker's.
_IT_IS_10: Final = lazy_re(r"^it(?:'s| is| was)\b", re.IGNORECASE)
# Edition 10: a sentence opening with "there is" states what the speaker has only as a count
# ("There's a third cat in the house now").
_THERE_IS_10: Final = lazy_re(r"^there(?:'s| is| are)\b", re.IGNORECASE)
_WORKPLACE_10: Final = (r"\b(?:switched|transferred|been transferred|got transferred) (?:over )?"
                       r"to the [a-z -]{1,30}? (?:unit|ward|team|department|branch|office|site"
                       r"|campus|clinic|hospital|practice|depot|store|plant|lab)\b")
_PHRASINGS_10: Final = {name: lazy_re(pattern) for name, pattern in (
    # a count by its ordinal ("There's a third cat in the house now") or by what is left
    # ("which leaves us with two")
    ("count", r"\b(?:there's|there is|we've got|we have|i've got|i have|now) an? (?:second|third"
              r"|fourth|fifth|sixth) [a-z]+"
              r"|\bleaves? (?:us|me|him|her|them) with (?:just |only )?"
              rf"(?:\d+|{_NUMBER_WORDS_7})\b"
              # "Mbissa is the only cat left"
              r"|\bonly (?:one )?[a-z]+ left\b"
              # "so Emil is left with two", "User sold the gravel bike; now has two"
              r"|\b(?:is|are|am|'m|'re) (?:now )?left with (?:just |only )?"
              rf"(?:\d+|{_NUMBER_WORDS_7})\b|\bnow (?:has|have) (?:just |only )?"
              rf"(?:\d+|{_NUMBER_WORDS_7})\b"),
    ("relationship", r"\b(?:we're|we are) (?:now )?(?:officially )?(?:a couple|an item)\b"
                     r"|\b(?:officially|now) together\b|\bmade (?:it|things|us) official\b"
                     r"|\bback together\b"),
    ("title", r"\b(?:got|get|gotten|getting|earned|landed) (?:the|a|my|that) promotion\b"
              r"|\bpromotion (?:came|has come|finally came) through\b"
              r"|\b(?:is|am|i'm|im|are|'s) (?:now )?teaching\b"
              r"|\b(?:i'm|im|i am|is|was|became|now) (?:now )?(?:the )?head of\b"
              r"|\b(?:now )?(?:freelances?|freelancing|self-employed|works? freelance)\b"
              # "Chidi is deputy head at his new school now"
              r"|\b(?:i'm|im|i am|is|was|became|now) (?:now )?(?:the )?(?:deputy|assistant|acting"
              r"|vice|associate) [a-z]+\b"),
    # an age corrected ("Noor is 7, not 6, her birthday was in March")
    ("age", r"^[^\W\d_][\w-]* is (?:actually |really |in fact )?\d{1,2},? not \d{1,2}\b"),
    ("allergy", r"\b(?:it's|it is) (?:actually |really )?[a-z]+ (?:i|we) react to\b"
                r"|\bskin[- ]prick\b"),
    ("hobby", r"\bspends? (?:\w+ )?(?:weekends|evenings|free time|spare time|sundays|saturdays)"
              r" [a-z]+ing\b|"
              r"\b(?:took|taken|taking|take) up (?!(?:the |an? |his |her |my |their )?(?:offer"
              r"|job|post|position|role|residence|space|room|time|slack)\b)[a-z]+"),
    ("departure", r"\b(?:re-?timed|bumped (?:us|me) (?:on)?to the \d{1,2}(?:[:.]\d\d|\s*[ap]m))\b"
                  r"|\b(?:it's|it is) (?:now )?the \d{1,2}(?:[:.]\d\d|\s*[ap]m) (?:bus|train|ferry"
                  r"|coach|flight|sailing|boat|tram)\b"
                  # "Jelena's crossing has been moved to the 14:30 sailing"
                  r"|\b(?:crossing|sailing|ferry|boat|train|bus|coach|flight)\b[^.;]*\b(?:moved"
                  r"|pushed|changed|shifted|bumped|rescheduled|retimed)\b[^.;]*\b\d{1,2}[:.]\d\d\b"),
    # a place gone to for good (and one moved up to, see _MOVED_UP_TO_10)
    ("residence", r"\b(?:headed|moved|went|gone|relocated|upped sticks) (?:up |down |over |back "
                  r"|out )?to [a-z][\w' -]{0,40}? for good\b"
                  # the place the sentence names ("got a job in Oslo and moved there")
                  r"|\bmov(?:e|ed|es|ing) (?:over |out |up |down )?there\b"
                  r"|\bmov(?:e|ed|es|ing) into (?:a |the |our |my |his |her |their )?(?:new )?"
                  r"(?:[a-z]+ )?(?:flat|house|apartment|place|home|condo|unit)\b"),
    ("employer", r"\bmade (?:me|us) an? (?:job )?offer\b[^.;]*\b(?:said yes|accepted|took it"
                 r"|signed)\b|\b(?:i'm|im|i am|we're|now|currently) teaching at\b"
                 r"|\bstart(?:ed|ing|s)? as an? [a-z -]{1,40}? (?:at|with)\b"
                 # a workplace switched to ("Mele switched to the birthing unit in Papakura")
                 rf"|{_WORKPLACE_10}"
                 # "I'm at Tidewater Insurance, in the claims department"
                 r"|\bat [^,.;]+,? (?:in|on) the [a-z]+(?: [a-z]+)? (?:department|dept|division"
                 r"|team|desk|unit)\b"),
    ("preference", r"\b(?:has|have) (?:overtaken|overtook|replaced|edged out|taken over from)"
                   r" [a-z ]{1,30}? for me\b"),
    ("appointment", r"\b(?:is|are|'s) (?:now )?booked in for\b"
                    # a correction of its day ("I got the dentist wrong, it's actually Friday")
                    rf"|\b(?:{_words(_APPOINTMENTS)})\b[^.;]*\b(?:it's|it is|is) (?:actually |now "
                    rf"|really |in fact )?(?:on )?(?:the )?(?:next )?{_DAYS_9}"
                    # a standing one ("physiotherapy is every Wednesday at 17:00")
                    rf"|\b(?:{_words(_APPOINTMENTS)})\b[^.;]*\b(?:every|each) {_DAYS_9}"
                    # a note's days ("User: dentist moved Tue -> Fri 9:30am")
                    rf"|\b(?:{_words(_APPOINTMENTS)})\b[^.;]*\b(?:moved|pushed|rebooked|booked"
                    r"|rescheduled|changed|now)\b[^.;]*\b(?:mon|tue|tues|wed|thu|thur|thurs|fri"
                    r"|sat|sun)\b"),
)}
_FALSE_FRIENDS_10: Final = {name: lazy_re(pattern) for name, pattern in (
    # a pastime given up is no job left ("I quit the pottery classes")
    # (and keeping someone company is no employer)
    ("employer", r"\bquit (?:the |my |our )?(?:[a-z]+ ){0,2}(?:classes|class|lessons|club|team"
                 r"|course|league|choir|band|gym)\b|\bquit (?:smoking|drinking|sugar|caffeine"
                 r"|coffee|meat|vaping)\b|\bkeep(?:s|ing)? (?:\w+ )?company\b"),
    # a clinic or test for an allergy is no allergy said ("The allergy clinic can't do Monday")
    ("allergy", r"\ballergy (?:clinic|appointment|test|specialist|nurse|doctor|consultant"
                r"|jab|shot|injection|unit|department)s?\b"),
    # a workplace switched to is no preference
    ("preference", _WORKPLACE_10),
    # a car that hit someone is no one's car here ("was hit by a car")
    ("car", r"\b(?:hit|run over|knocked down|knocked over|struck) by an? (?:car|truck|van|bus"
            r"|lorry|motorbike)\b"),
    # a department is no departure ("in the claims department")
    ("departure", r"\bdepartments?\b"),
    # an offer is no job ("Jake made me an offer on my car"), nor someone else's in apposition
    ("title", r"\bmade (?:me|us|him|her|them) an? (?:job |new |better )?offer\b"
              rf"|{_APPOSED_JOB_10}"),
)}
# Edition 9: what someone named moves of the speaker's (or of no one's), as the sentence's
# first deed, is the speaker's ("Mpilo moved my X-ray to Friday", "Railways moved the Jaffna
# train to quarter past six"; not "Amara's flight was late, so she moved my braids": that
# sentence says Amara's flight too).
_MOVED_MINE_9: Final = lazy_re(
    r"^\S+(?: \S+)? (?:moved|pushed|rescheduled|shifted|bumped|changed|put back|brought forward"
    r"|cancell?ed|booked|rebooked) (?:my|our|the)\b", re.IGNORECASE)
# Edition 9: whoever bumps or promotes the speaker gives the speaker's job.
_HIRED_ME_9_SOURCE: Final = (
    r"^[^.!?;]*\b(?:(?:hired|laid|fired|onboarded|recruited|promoted) me|let me go"
    r"|(?:took|taken|brought|signed) me on|brought me on ?board|(?:bumped|moved) me up"
    r"|(?:beats?|trumps?|wins? over) [a-z ]{1,30}? for me"
    r"|(?:won|win|wins|winning) me (?:back|over|round|around))\b")
_HIRED_ME_9: Final = lazy_re(_HIRED_ME_9_SOURCE, re.IGNORECASE)


# Edition 10: ... and so does whoever made the speaker an offer taken, and what has overtaken
# another for the speaker ("Swimming has overtaken running for me").
_HIRED_ME_10: Final = lazy_re(
    rf"{_HIRED_ME_9_SOURCE}|^[^.!?;]*\b(?:made (?:me|us) an? (?:job )?offer\b[^.!?;]*\b(?:said yes"
    r"|accepted|took it|signed)|(?:has|have) (?:overtaken|overtook|replaced|edged out|taken over"
    r" from) [a-z ]{1,30}? for me|promotion (?:came|has come|finally came) through)\b",
    re.IGNORECASE)


def _hired_me(edition: int) -> re.Pattern[str]:
    """The openings that make a sentence the speaker's whoever its subject, in ``edition``
    (from the sixth: "Initech hired me")."""
    if edition >= EDITION_10:
        return _HIRED_ME_10
    if edition >= EDITION_9:
        return _HIRED_ME_9
    if edition >= EDITION_8:
        return _HIRED_ME_8
    return _HIRED_ME_7 if edition >= EDITION_7 else _HIRED_ME_6


# Edition 5: a flight attendant's job is no departure ("User: job title flight attendant").
_FALSE_FRIENDS_5: Final = {name: lazy_re(pattern) for name, pattern in (
    ("departure", r"\bflight (?:attendants?|crew|instructors?|engineers?|dispatchers?|nurses?)\b"),
)}
# Edition 5: hyphened words where the phrasings read words of letters alone: alternatives
# ("late check-outs over early check-ins, always") and a job at a company ("I'm a sous-chef at
# Saltmarsh Ventures"). For these attributes a sentence is read with a hyphen between letters
# dropped: "check-outs" is then one word, as "checkouts" would be.
# (One pattern for this and for the question reader's names: a hyphen between letters of any
# alphabet, "check-outs", "Ana-Sofía".)
_HYPHEN_IN_WORD: Final = lazy_re(r"(?<=[^\W\d_])-(?=[^\W\d_])")
_HYPHENS_DROPPED_5: Final = frozenset({"preference", "employer"})
# Edition 5: a change of job by the job left ("I went from actuary to HR business partner",
# "from quantity surveyor to sommelier", "from HR business partner to sommelier"), read in the
# sentence as written: a job is written in lower case, but for an initialism before it ("HR",
# "QA"); a place left ("from Manchester to Leeds") is capitalised.
_CAREER_MOVE_5: Final = lazy_re(rf"\bfrom (?:an? |being an? )?(?:[A-Z]{{2,4}} )?{_JOB_5} to\b")
# Edition 4: a note of the user's job alone, "User: technical writer at Wonka Labs" (a job's
# name, "at", a name): the employer and the title.
_NOTE: Final = lazy_re(r"^\s*(?:the )?user\s*:\s*", re.IGNORECASE)
_JOB_AT_NOTE: Final = (r"^(?i:an? )?(?!(?i:dinner|supper|breakfast|brunch|lunch|party|drinks"
                      r"|coffee)\b)(?i:{job}) at (?:the )?[A-Z\d]")
_JOB_AT: Final = lazy_re(_JOB_AT_NOTE.format(job=_JOB_4))
# Edition 5: the same of a job named by any word of the vocabulary ("User: paralegal at X").
_JOB_AT_5: Final = lazy_re(_JOB_AT_NOTE.format(job=_JOB_5))
# Edition 4: an allergy is the one's it affects, named as the object ("Shellfish gives me hives",
# "Mustard seed give me a bad reaction": the speaker's, though the sentence opens with the food).
_AFFECTS: Final = lazy_re(
    r"\b(?:gives?|gave|giving)\s+(me|us|him|her)\s+(?:a |an )?(?:bad |awful |terrible |"
    r"allergic |severe )?(?:reaction|rash|hives)\b", re.IGNORECASE)
# Edition 3: words that hold an attribute's word without stating the attribute ("renewed my
# residence permit" says nothing of where one lives). A sentence is read without them.
_FALSE_FRIENDS_3: Final = {name: lazy_re(pattern) for name, pattern in (
    ("residence", r"\bresidence (?:permits?|cards?|visas?|halls?)\b|\bresidency\b"),
)}
# Edition 4: feeling better is no preference ("Just got back from a walk, feeling better"); a
# new role at a company names the employer, not the title ("Started a new role at Dunder
# Paper" replaced "User was promoted to data analyst"), and being employed as something names
# the title, not the employer.
_FALSE_FRIENDS_4: Final = {name: lazy_re(pattern) for name, pattern in (
    ("title", r"\bnew (?:role|job|position|gig) (?:at|with)\b"),
    # "employed as an air traffic controller" is a title, unless it says where too
    ("employer", r"\bemployed as\b(?![^.;]*\b(?:at|by|for|with)\b)"),
    ("preference", r"\b(?:feel|feels|feeling|felt|get|gets|getting|got|gotten|looking|looks)"
                   r" (?:(?:much|a lot|a bit|a little|so much|way|even) )?better\b"),
)}
# The phrasings and false friends of each edition, in the order they are read.
_PHRASINGS_SINCE: Final = ((EDITION_2, _PHRASINGS), (EDITION_3, _PHRASINGS_3),
                           (EDITION_4, _PHRASINGS_4), (EDITION_5, _PHRASINGS_5),
                           (EDITION_6, _PHRASINGS_6), (EDITION_7, _PHRASINGS_7),
                           (EDITION_8, _PHRASINGS_8), (EDITION_9, _PHRASINGS_9),
                           (EDITION_10, _PHRASINGS_10))
_FALSE_FRIENDS: Final = ((EDITION_3, _FALSE_FRIENDS_3), (EDITION_4, _FALSE_FRIENDS_4),
                         (EDITION_5, _FALSE_FRIENDS_5), (EDITION_7, _FALSE_FRIENDS_7),
                         (EDITION_9, _FALSE_FRIENDS_9), (EDITION_10, _FALSE_FRIENDS_10))
# Every vocabulary, phrasing and false friend a sentence is read with for the attributes.
# Searched one after another they were most of a read's cost, though a sentence matches few:
# one scan of it tells the few that may match (each needs one of a few strings) from the rest.
_SCREEN: Final = Screen([pattern for _, pattern in _COMPILED] + [
    pattern for _, table in (*_PHRASINGS_SINCE, *_FALSE_FRIENDS) for pattern in table.values()])
# A sentence that opens by taking back what was said: the statement is what follows the marker
# ("Sorry, I misspoke earlier, I work at X" states the employer; "No wait, ..."). Only the
# markers are cut, never a sentence that has no statement after them.
_CORRECTION_OPENING: Final = lazy_re(
    r"^(?:(?:sorry|oops|whoops|no wait|wait|actually|correction|scratch that|my bad|my mistake|"
    r"i misspoke(?: earlier)?|i meant to say|i got (?:that|it) wrong|let me correct (?:that|myself)"
    r"|to correct (?:that|myself)|i was wrong|that's wrong|that was wrong)\b[^,:;.!]{0,20}"
    r"[,:;.!]\s*)+", re.IGNORECASE)
# A phrase of time opening a sentence without a comma ("Right now I'm single"): not its subject.
_NOW_OPENING: Final = lazy_re(
    r"^(?:right now|just now|these days|nowadays|at the moment|at present|lately|currently|"
    r"for the record)\b,?\s+", re.IGNORECASE)
# A he/she subject or possessive opening a sentence: someone the sentence before named.
_PERSONAL_PRONOUN: Final = lazy_re(r"^(?:he|she|he's|she's|his|her)\b", re.IGNORECASE)
# A name, or a place, said to be the user's: "Jonas is my brother", "Bergen is where I grew up".
_IS_MINE: Final = lazy_re(
    rf"^{NAME}(?: {NAME})? (?:is|was) (?i:(?:my|our) |where (?:i|we)\b)")
# A relative said to be someone by name: "Theo's daughter is Victor", "My sister was Ana".
_KIN_IS_NAME: Final = lazy_re(
    rf"\b(?i:{_words(' '.join(sorted(_KIN)))})s? (?:is|was) {NAME}[.!]?$")
# Giving a relative's name in other words than "named" or "called".
_NAMES_RELATIVE: Final = lazy_re(rf"\b(?:goes by|known as)\b|\b(?:is|was) {NAME}[.!]?$")
_CAPITALISED: Final = lazy_re(rf"\b({NAME})\b")

# Attributes a question cannot name by the vocabulary alone ("What does Dana drive?" is the car,
# and so on): the same table serves, but these question forms come first.
_QUESTION_FORMS: Final[tuple[tuple[str, re.Pattern[str]], ...]] = tuple(
    (name, lazy_re(pattern)) for name, pattern in (
        # First: the alternatives of a preference may hold any attribute's word ("Do I prefer
        # city breaks or camping trips?" asks no city).
        ("preference", r"\bprefer\w*|\brather\b.*\bor\b"
                       # the alternatives alone ("Cycling or running?", "Tea or coffee?")
                       r"|^(?:[a-z]+ ){0,2}[a-z]+ or (?!not\b)(?:[a-z]+ ){0,2}[a-z]+"
                       # ... for whom ("Window or aisle seat for me?")
                       r"(?: for (?:me|us|him|her|them|[a-z]+))?\s*\?\s*$"),
        # "Where did Rufaro live before she got married?" asks a home, whatever a clause after
        # it names
        ("residence", r"^where (?:do|does|did|have|has) (?:the )?\w+ (?:use to |used to |ever )?"
                      r"live\b"),
        ("hobby", r"\bhobb(?:y|ies)\b|\bfor fun\b|\bfree time\b|\bspare time\b|\bpastimes?\b"
                  r"|\bdo (?:on|at|over) (?:the )?weekends?\b"
                  r"|\bdo (?:every|each|most) (?:morning|evening|night|day|week|weekend)s?\b"
                  # on a day of the week ("What do I do on Tuesday evenings?": no job)
                  r"|\bdo (?:on|every|each|most) (?:monday|tuesday|wednesday|thursday|friday"
                  r"|saturday|sunday)s?\b|\bdo (?:in|on) the (?:mornings?|evenings?"
                  r"|afternoons?)\b"),
        # Which of two a person likes more, however it is asked ("X or Y: which do I like
        # more?", "Between X and Y, which does she favour?", "Would he rather have X or Y?").
        ("preference", r"\bwhich (?:do|does|did|would) \w+ (?:like|love|enjoy|want|favou?r|pick"
                       r"|choose)\b|\bfavou?r\b|\bwould \w+ rather\b|\blike \w+ (?:more|better)\b"
                       r"|\b(?:like|liked|enjoy|enjoyed) [a-z ]+ or [a-z ]+ (?:more|better)\b"
                       # "Would I pick a hike or a round of golf?"
                       r"|\bwould \w+ (?:pick|choose|go for|take|want)\b[^?]* or\b"),
        # ("How old was Paolo before his birthday?" asks an age.)
        ("birthday", r"\bwhen (?:was|were) \w+ born\b|^(?!.*\bhow old\b).*\bbirthday\b"),
        ("title", r"\bfor a living\b|\bjob title\b|\bline of work\b"
                  r"|\bwhat(?: is|'s| was) \w+(?:'s)? (?:current |old |previous |former |first "
                  r"|last |new )?(?:job|role)\b"
                  r"|\bwhat (?:do|does) \w+ work as\b"
                  r"|\bwhat (?:does|do) \w+ do\b|\b(?:what|which) (?:job|role|position)\b"
                  r"|\boccupation\b|\brole at work\b|\bcareer\b"
                  r"|\b(?:make|makes|earn|earns) (?:a|my|his|her|their|our) living\b"
                  r"|\bdo (?:at|for) work\b|\bwhat (?:is it|it is) \w+ do\b"),
        ("employer", r"\bemployer\b|\bwhere (?:do|does|did) (?:the )?\w+ work\b|\bwork for\b"
                     r"|\bwhere (?:i|you|he|she|we|they) work\b"
                     r"|\bwhere (?:was|were|am|is|are) \w+ working\b"
                     r"|\bwhich company\b|\bwhat company\b"
                     # who pays the user is whom the user works for
                     r"|\bsalary\b|\bpay ?(?:check|cheque|slip)s?\b|\bwages\b|\bpayroll\b"
                     r"|\bworkplace\b|\b(?:fly|flies|play|plays|drive|drives) for\b"
                     # where one teaches is whom one works for ("Where do I teach?")
                     r"|\bwhere (?:do|does|did) \w+ teach\b|\bteach(?:es)? at\b"),
        ("appointment", rf"\bappointment\b|\bseeing the (?:{_words(_APPOINTMENTS)})\b"
                        rf"|\b(?:when(?: is|'s| was)|(?:which|what) (?:day|time) is) "
                        rf"(?:(?:my|the|his|her|their|our) )?(?:{_words(_APPOINTMENTS)})\b"
                        rf"|\b(?:{_words(_APPOINTMENTS)}) (?:day|date)\b"
                        # a test, scan or treatment (the ninth edition's: "When is my blood
                        # test?", "Which day was the scan first booked for?"; the forms read
                        # "X-ray" as one word, "x_ray")
                        rf"|\b(?:when(?: is|'s| was)|(?:which|what) (?:day|time) (?:is|was)) "
                        rf"(?:(?:my|the|his|her|their|our|\w+'s) )?(?:{_TREATMENTS_9}|x_ray)\b"
                        rf"|\b(?:seeing|see|visiting|visit) (?:the|my|a|an|his|her|their) "
                        rf"{_SPECIALIST}\b"
                        # (the tenth edition's: "When do I see the physio?", "When am I
                        # seeing the GP?", "When am I getting my teeth looked at?", "When do I
                        # go in for the blood draw?")
                        rf"|\b(?:seeing|see|visiting|visit) (?:the|my|a|an) (?:gp|doc|doctor"
                        rf"|{_words(_APPOINTMENTS)})\b"
                        r"|\bteeth (?:looked at|checked|cleaned|done)\b"
                        r"|\b(?:when|what day|what time|what date)\b[^?]*\b(?:go|going|come|coming)"
                        r" in for\b|\bblood (?:draw|work|test)\b"),
        ("departure", r"\bleav(?:e|es|ing) for\b|\bfly(?:ing)? (?:out )?to\b"
                      r"|\bflight\b(?! attendants?\b)|\bdeparture\b"
                      # "What time is my train to Lucerne?"
                      r"|\b(?:what time|when)\b[^?]*\b(?:train|bus|ferry|coach)\b"
                      # "What was the Jakarta train's original time?"
                      r"|\b(?:train|bus|ferry|coach)'s (?:\w+ )?(?:time|departure)\b"
                      # "What time does our boat to the island leave?", "When does my plane
                      # take off?"
                      r"|\b(?:what time|when)\b[^?]*\b(?:boat|ship|sailing|plane|tram)\b"
                      r"[^?]*\b(?:leave|leaves|sail|sails|depart|departs|go|goes|take off)\b"
                      r"|\btakes? off\b"),
        ("relationship", r"\bseeing (?:anyone|anybody|someone|somebody)\b|\brelationship\b"
                         r"|\bsingle\b"
                         r"|\bdating\b|\bmarried\b|\bengaged\b|\bpartner\b"
                         r"|\bwith (?:anyone|anybody|someone|somebody)\b"
                         rf"|^who(?:'s| is) \w+(?:'s)? (?:{_words(_SPOUSES)})\b"
                         r"|^who(?:'s| is| am| are) \w+ (?:seeing|dating|going out with)\s*\??$"),
        ("count", r"\bhow many\b|\bnumber of\b"),
        ("car", r"\bdrive\b|\bdriving\b|\bcar\b"
                # "What do I ride around on?"
                r"|\bride (?:around |about )?(?:on|in)\b|\bwhat (?:do|does) \w+ ride\b"
                r"|\bget(?:s)? around (?:on|in)\b"),
        ("age", r"\bhow old\b|\bwhat age\b|\bage of\b"),
        ("hometown", r"\bgrow up\b|\bgrew up\b|\bhome ?town\b|\bfrom originally\b"
                     r"|\b(?:city|town|country|place) (?:is|are|was|were|am|do|does|did) \w+"
                     r" (?:come |hail |hails )?from\b"
                     r"|\bwhere (?:do|does|did) (?:the )?\w+ come from\b"
                     r"|\boriginally from\b|\bwhere (?:am|is|are) \w+ from\b"
                     r"|\bwhere (?:was|were) \w+ born\b"),
        ("family", rf"\b(?:{_words(' '.join(sorted(_KIN)))})(?:'s)? (?:name|called)\b"
                   rf"|\bname of \w+ (?:{_words(' '.join(sorted(_KIN)))})\b"),
        ("residence", r"\bwhere (?:do|does|did) (?:the )?\w+ live\b|\bcity\b|\bresidence\b"
                      r"|\bliving\b|\blive\b|\bbased\b|\bwhere(?:'s| is) home\b|\bcall home\b"
                      # (after hometown: "What town am I from?" asks where the user grew up)
                      r"|\b(?:town|village|country|neighbou?rhood|suburb)\b|\bsettled\b"),
        ("phone", r"\bmobile\b|\bhandset\b|\bcell ?phone\b"),
        # "Is there any medicine I can't take?"
        ("allergy", r"\b(?:medicines?|medications?|drugs?|pills?|antibiotics?|painkillers?|foods?)"
                    r" \w+ (?:can't|cannot|can not|shouldn't|mustn't|must not) (?:take|have|eat)\b"
                    # "Which nut do I need to avoid?", "What can't Awa digest well?"
                    r"|\b(?:need to|have to|has to|should|must) avoid\b|\bdigest\b"),
        ("diet", r"\bcan'?t \w+ eat\b|\bhow (?:do|does) \w+ eat\b"
                 # "Does Nayeli eat red meat?", "Can I have milk?" (not "Does Ana have a dog?"),
                 # "Is there anything I don't eat?"
                 r"|^(?:does|do) \w+ (?:eat|drink)\b|^(?:can|may|should) \w+ (?:have|eat|drink)\b"
                 r"|\b(?:anything|what) \w+ (?:don't|doesn't|do not|does not|won't|can't"
                 r"|cannot) eat\b"
                 r"|\bwhat (?:do|does|can) \w+ eat\b(?! (?:for|at|on|in|with)\b)"),
    ))

_APOSTROPHES: Final = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'"})
_SENTENCES: Final = lazy_re(r"(?<=[.!?;])\s+|\n+")
# Edition 4: an abbreviation's full stop ends no sentence ("He left Brightwater Inc. for
# Larkspur Games" is one; the earlier editions read "for Larkspur Games." apart).
_SENTENCES_4: Final = lazy_re(
    r"(?<=[.!?;])(?<!\bInc\.)(?<!\bCo\.)(?<!\bCorp\.)(?<!\bLtd\.)(?<!\bBros\.)(?<!\bSt\.)"
    r"(?<!\bDr\.)(?<!\bMr\.)(?<!\bMrs\.)(?<!\bMs\.)(?<!\bJr\.)(?<!\bSr\.)(?<!\bvs\.)"
    r"(?<!\be\.g\.)(?<!\bi\.e\.)\s+|\n+")
# A date, time or aside that opens a sentence: "On March 3, 2025, I moved..." is about the rest.
_OPENING: Final = lazy_re(
    r"^(?:(?:on|since|as of|from|starting|starting from|in|at|last|this|yesterday|today|"
    r"tonight|earlier|recently|as promised|by the way|btw|fyi|heads up|just so you know|"
    r"quick update|update|good news|big news|guess what|oh|so|well|also|anyway|ok|okay|ugh|"
    r"haha|hah|hey|wow|yay|lol|hmm|oops|aw|yeah|yes|no|honestly|funny|fun fact)"
    r"\b[^,:!]{0,40}[,:!]\s*)+"
    # and a word that only opens what follows ("So Vera started...", "Haha my mom...")
    r"|^(?:(?:so|oh|ugh|haha|hah|hey|well|also|and|but|lol|hmm|ok|okay|yeah|anyway|btw|"
    r"actually|honestly|guess what|quick update)\b[,:!]?\s+)+", re.IGNORECASE)
# Edition 4: an interjection opens a sentence only as a word of its own ("Honestly, ...",
# "Oh well: ..."); the earlier editions took up to 40 characters after it to the first comma,
# so "Honestly it's podcasts over audiobooks, always." lost its statement.
_OPENING_4: Final = lazy_re(
    r"^(?:(?:(?:on|since|as of|from|starting|starting from|in|at|last|this|yesterday|today|"
    r"tonight|earlier|recently|as promised|by the way|btw|fyi|heads up|just so you know|"
    r"quick update|update|good news|big news|guess what|fun fact)\b[^,:!]{0,40}"
    r"(?:,\s*\d{4}\b)?"  # "On March 3, 2025, ..."
    r"|(?:oh|so|well|also|anyway|ok|okay|ugh|haha|hah|hey|wow|yay|lol|hmm|oops|aw|yeah|yes|"
    r"no|honestly|funny)\b[^,:!\s]*(?:\s+[^,:!\s]+)?)[,:!]\s*)+"
    r"|^(?:(?:so|oh|ugh|haha|hah|hey|well|also|and|but|lol|hmm|ok|okay|yeah|anyway|btw|"
    r"actually|honestly|guess what|quick update)\b[,:!]?\s+)+", re.IGNORECASE)
# Edition 9: an opening that is a clause of its own, with its subject, is no aside ("Since we
# unpacked in Noida, my commute's down to twenty minutes" says where the speaker lives).
# (An opening's form, with what may not follow its first word: {subject}.)
_OPENING_FORM: Final = (
    r"^(?:(?:(?:on|since|as of|from|starting|starting from|in|at|last|this|yesterday|today|"
    r"tonight|earlier|recently|as promised|by the way|btw|fyi|heads up|just so you know|"
    r"quick update|update|good news|big news|guess what|fun fact)\b"
    r"{subject}[^,:!]{{0,40}}"
    r"(?:,\s*\d{{4}}\b)?"  # "On March 3, 2025, ..."
    r"|(?:oh|so|well|also|anyway|ok|okay|ugh|haha|hah|hey|wow|yay|lol|hmm|oops|aw|yeah|yes|"
    r"no|honestly|funny)\b[^,:!\s]*(?:\s+[^,:!\s]+)?)[,:!]\s*)+"
    r"|^(?:(?:so|oh|ugh|haha|hah|hey|well|also|and|but|lol|hmm|ok|okay|yeah|anyway|btw|"
    r"actually|honestly|guess what|quick update)\b[,:!]?\s+)+")
_OPENING_9: Final = lazy_re(_OPENING_FORM.format(
    subject=r"(?!\s+(?:i|we|he|she|they|you|i've|we've|i'd|we'd)\b)"), re.IGNORECASE)
# Edition 10: an opening holding its own subject anywhere is no aside ("Since last week I've gone
# fully vegan, no eggs, ..." was cut up to its comma).
_OPENING_10: Final = lazy_re(_OPENING_FORM.format(
    subject=r"(?![^,:!]{0,40}?\b(?:i|we|he|she|they|you|i've|we've|i'd|we'd|i'm|we're)\b)"),
    re.IGNORECASE)
_USER_SUBJECT: Final = lazy_re(r"^(?:the )?user(?:'s|s)?\b", re.IGNORECASE)
_FIRST_PERSON: Final = lazy_re(
    r"^(?:i|i'm|i've|i'd|i'll|im|ive|we|we're|we've|we'd|we'll|our|ours|me|mine)\b",
    re.IGNORECASE)
_MY: Final = lazy_re(r"^(?:my|our|(?:the )?user's)\s+(?:new |old |best |eldest |oldest |"
                        r"youngest |younger |older |little |big |late )?([a-z]+)\b",
                        re.IGNORECASE)
# Naming a relative, or stating their age: a fact about the family the relative belongs to.
_NAMING: Final = lazy_re(
    r"\b(?:name|named|called|\d+\s*(?:years?|yrs?)[ -]old|turn(?:s|ed)? \d+|is (?:now )?\d+)\b")
_PRONOUN: Final = lazy_re(
    r"^(?:it|it's|its|this|that|these|those|there|he|he's|she|she's|they|they're|his|her|their|"
    r"everyone|everybody|someone|somebody|nobody|people|you|you're|your)\b", re.IGNORECASE)
# Sentence-initial words that are not names (a sentence without a subject starts with a verb or
# an adverb: "Finally settled in", "Decided to", "Picked up").
_NOT_NAMES: Final = frozenset(
    """
    a an the this that these those there here it its it's he she they them his her their
    what when where who whom whose why how which yes no not never always just finally recently
    still also already now today tonight yesterday tomorrow then soon maybe perhaps actually
    officially apparently luckily sadly unfortunately hopefully honestly basically seriously
    definitely probably really first second last next new old big small great good bad nice
    happy sad so but and or if because since after before while during until with without
    about for from into onto over under up down out off again only even both each every all
    some any most many much more less few other another such same one two three got had has
    have having did do does done made make making went go going gone took take taking gave
    give given came come coming felt feel thought think saw see seen let lets please thanks
    thank sorry hey hi hello ok okay well oh assistant user booked picked decided started
    bought sold moved adopted switched joined left quit signed finished renewed submitted
    returned called paid cancelled canceled scheduled rescheduled pushed celebrated spent
    managed tried planning planned need needs needed must should would could can will may
    might gotta wanna gonna lost found we i i'm my our me
    monday tuesday wednesday thursday friday saturday sunday january february march may july
    september october november december christmas easter
    """.split())  # noqa: SIM905
# Words capitalised wherever they stand, so no name for being capitalised mid-sentence.
CALENDAR: Final = frozenset(
    """
    monday tuesday wednesday thursday friday saturday sunday january february march april may
    june july august september october november december christmas easter assistant
    """.split())  # noqa: SIM905
_NOUN: Final = lazy_re(r"[a-z]+")
# Words of letters in any alphabet: a question's alternatives ("Would Dörte rather have espresso
# or matcha?" asks of "espresso" and "matcha", not of "rte").
_LETTERS: Final = lazy_re(r"[^\W\d_]+")
_WHEN_WORDS: Final = frozenset(
    """
    back ago last earlier before after since during until year years month months week weeks
    day days today yesterday
    """.split())  # noqa: SIM905
_NUMBERED: Final = lazy_re(
    r"\b(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|another|one more|"
    r"an extra|a new|a|an)\s+(?:(?:new|more|other|extra|electric|old|used)\s+)?([a-z]+)")
_NOT_COUNTED: Final = frozenset(
    ["year", "years", "month", "months", "week", "weeks", "day", "days", "hour", "hours",
        "minute", "minutes", "time", "times", "bit", "lot", "few", "couple", "while"])
_QUESTION_STOP: Final = frozenset(
    """
    do does did is are was were the a an my your his her their our i you he she they it what
    which who whom when where why how like likes prefer prefers better more or over than now
    these days currently still user user's s one thing to of in on at for with best
    between favour favor rather have would
    """.split())  # noqa: SIM905


class _Names(NamedTuple):
    """The patterns that find names (and value words), for one way of spelling them."""

    name: str  # one name: "Dana", "Anne-Marie"
    name_start: re.Pattern[str]  # a sentence opening with a name
    declared: re.Pattern[str]  # the user giving their name
    speaker: re.Pattern[str]  # a dialogue turn's speaker
    seeing: re.Pattern[str]  # "seeing Theo"
    named_relative: re.Pattern[str]  # "my brother Liam"
    possessive_relative: re.Pattern[str]  # "Bob's sister"
    token: re.Pattern[str]  # a word that may carry a value
    modal_names: bool  # "Will moved to Oslo" names Will


def _names(name: str, word: str, token: str, *, modal_names: bool) -> _Names:
    kin = _words(" ".join(sorted(_KIN)))
    return _Names(
        name=name,
        name_start=lazy_re(rf"^({name})('s)?\s+(\S+)"),
        declared=lazy_re(  # the cue in any case, the name capitalised
            r"\b(?i:my name is|my name's|call me|(?:the )?user's name is"
            r"|(?:the )?user is (?:named|called)"
            rf"|i am called|i'm called|name's)\s+({name})\b"
            rf"|^(?i:(?:hi,? |hello,? |hey,? )?(?:i'm|i am))\s+({name})\s*(?:[.,!]|$)"),
        speaker=lazy_re(rf"^({word}(?:[ -]{word})?):\s+"),
        seeing=lazy_re(rf"\b(?i:seeing|dating)\s+{name}\b(?!\s+(?:again|today|tomorrow))"),
        named_relative=lazy_re(rf"\b(?:[Mm]y|[Oo]ur|[Uu]ser's) ((?i:{kin})) ({name})\b"),
        possessive_relative=lazy_re(rf"^{name}'s ((?i:{kin}))\b"),
        token=lazy_re(token),
        modal_names=modal_names)


_UNICODE_NAMES: Final = _names(NAME, f"{CAP}{LOW}+", r"[^\W_][\w-]*", modal_names=True)
_ASCII_NAMES: Final = _names(ASCII_NAME, "[A-Z][a-z]+", r"[A-Za-z0-9][\w-]*", modal_names=False)


def _spelling(edition: int) -> _Names:
    """How names are spelled in ``edition``: the second reads names in any letters."""
    return _UNICODE_NAMES if edition >= EDITION_2 else _ASCII_NAMES


def _plain(text: str) -> str:
    """``text`` without its accents ("citroën" -> "citroen"), letters otherwise kept."""
    if text.isascii():
        return text
    decomposed = unicodedata.normalize("NFKD", text)
    return unicodedata.normalize(
        "NFC", "".join(c for c in decomposed if not unicodedata.combining(c)))


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).translate(_APOSTROPHES)


def sentences(text: str, edition: int = EDITION) -> list[str]:
    """``text`` cut into sentences, each without the date or aside that opens it."""
    out = []
    fourth = edition >= EDITION_4
    cut, opening = (_SENTENCES_4, _OPENING_10 if edition >= EDITION_10 else
                    _OPENING_9 if edition >= EDITION_9 else _OPENING_4) \
        if fourth else (_SENTENCES, _OPENING)
    for part in cut.split(_fold(text).strip()):
        part = opening.sub("", part.strip()).strip()
        if part:
            out.append(part)
    return out




def _own_clauses(sentence: str, edition: int) -> list[str]:
    """``sentence`` cut before each clause with its own first-person subject when the sentence
    is about someone or something else (from the tenth edition: "Perth's been great but we're
    Adelaide-based now" holds the speaker's home); else the sentence whole."""
    if edition < EDITION_10 or owner_of(sentence, edition) in (None, USER):
        return [sentence]
    return [part for part in _OWN_CLAUSE_10.split(sentence) if part.strip()]


def relative_named(text: str) -> str | None:
    """The lower-cased name of the relation a statement opens with, whose facts it states (read
    as :data:`OTHER`'s): "My sister Dima lives in Zarqa" -> "dima"; None for any other."""
    match = _RELATIVE_NAMED.match(_fold(text).strip())
    return match.group(2).lower() if match is not None else None


def relations_named(text: str) -> frozenset[tuple[str, str]]:
    """Each relation ``text`` gives a name, lower-cased: "I live in Karachi with my husband
    Faisal and our son Zain" -> {("husband", "faisal"), ("son", "zain")}."""
    return frozenset((relation.lower(), name.lower())
                     for relation, name in _RELATIVE_NAMED_IN.findall(_fold(text)))


def relation_asked(question: str) -> str | None:
    """The relation a question asks about ("Which city does my brother live in?" -> "brother"),
    which :func:`read_question` reads no owner of; None for any other question."""
    mine = _RELATION_ASKED.search(question)
    if mine is None or mine.group(1).lower() not in _RELATIVES or question_owner(question):
        return None
    return mine.group(1).lower()


def naming_the_relation(question: str, name: str) -> str:
    """``question`` with the relation it asks about called by ``name`` ("Which city does my
    brother live in?" -> "Which city does Obinna live in?")."""
    return _RELATION_ASKED.sub(name.title(), question, count=1)


_RELATION_WORDS: Final = (r"(?:(?:older|younger|little|big|best|eldest|oldest|youngest|new|old) )?"
                          rf"({_words(' '.join(sorted(_RELATIVES)))})")
_RELATIVE_NAMED: Final = lazy_re(
    rf"^(?:(?i:my|our)|{NAME}'s) (?i:{_RELATION_WORDS}),? ({NAME})\b")
_RELATIVE_NAMED_IN: Final = lazy_re(rf"\b(?i:my|our) (?i:{_RELATION_WORDS}),? ({NAME})\b")
_RELATION_ASKED: Final = lazy_re(rf"\b(?i:my|our) (?i:{_RELATION_WORDS})(?='s\b|\b)")


def said_to_hold(text: str) -> str:
    """``text`` as written without what it says held once, may come to hold, was declined or
    supposed, or stayed as it was (the cuts of the ninth and tenth editions): what it says holds
    now. "If I got the job at Nordlys I'd ..." says nothing holds; recall asks this of a newer
    statement before taking its values as new ones (:mod:`eventmem.recall.updates`)."""
    return _FRAMES_9.sub(" ", _PAST_10.sub(" ", _NOT_SO_10.sub(" ", text)))


def _speaker(text: str, names: _Names = _UNICODE_NAMES) -> tuple[str | None, str]:
    """A dialogue turn's speaker ("Caroline: I moved...") lower-cased, and the turn without it;
    None for the user (and for no speaker). An assistant's turn keeps its prefix: it states no
    fact of the user's."""
    match = names.speaker.match(text.strip())
    if match is None:
        return None, text
    name = match.group(1).lower()
    if name == "assistant":
        return None, text
    return (None if name in ("user", "me", "i") else name), text.strip()[match.end():]


def owner_of(sentence: str, edition: int = EDITION) -> str | None:
    """Whose facts a sentence states (see the module docs); None for a question or an
    assistant's turn, which state none. ``edition`` :data:`EDITION`: a name may be spelled with
    any letters ("Zoë"); :data:`EDITION_1` reads names of ASCII letters only, as gate-11 and
    classify-3 did."""
    names = _spelling(edition)
    if sentence.endswith("?") or sentence.lower().startswith("assistant"):
        return None
    if _USER_SUBJECT.match(sentence) or _FIRST_PERSON.match(sentence):
        mine = _MY.match(sentence)
        if mine is None or mine.group(1).lower() not in _RELATIVES:
            return USER
    mine = _MY.match(sentence)
    if mine is not None:
        relative = mine.group(1).lower()
        if relative not in _RELATIVES:
            return USER  # "My phone is...", "My flight..."
        lowered = sentence.lower()
        # Naming one's relatives, and their ages, are facts about the user's family; "my
        # friend Ana's daughter is named Mia" is about Ana's.
        if relative in _KIN and not re.match(rf"^\S+ \S+ {names.name}'s\b", sentence) and (
                _NAMING.search(lowered)):
            return USER
        return OTHER
    if _PRONOUN.match(sentence):
        # "It works at last", "She moved to Rome": not the speaker; but "they rescheduled my
        # flight" is about the speaker's flight.
        if edition >= EDITION_7 and _THEY_CHANGED_7.match(sentence):
            return USER
        return USER if re.search(r"\b(?:my|our|me|us)\b", sentence.lower()) else OTHER
    theirs = names.possessive_relative.match(sentence)
    if theirs is not None and not _NAMING.search(sentence.lower()):
        return OTHER  # "Bob's sister Eva lives in Bergen" is Eva's fact, not Bob's
    name = _subject_name(sentence, names)
    if edition >= EDITION_6 and name is not None and (
            name in _COMMON_SUBJECTS_6
            or _hired_me(edition).match(sentence)
            or _WITH_ME_6.match(sentence) or _HOME_IS_6.match(sentence)):
        return USER  # "Home is Porto now", "Initech hired me", "Sam and I broke up"
    if edition >= EDITION_9 and name is not None and _MOVED_MINE_9.match(sentence):
        return USER  # "Mpilo moved my X-ray to Friday": the speaker's X-ray
    return USER if name is None else name  # no subject: the speaker's diary ("Decided to...")


def _subject_name(sentence: str, names: _Names) -> str | None:
    """The lower-cased name a sentence opens with as its subject ("Dana moved", "Dana's
    daughter"), or None: a capitalised first word is a name only when what follows reads as its
    verb or it is possessive ("Dentist appointment moved" has no subject)."""
    named = names.name_start.match(sentence)
    if named is None:
        return None
    word, possessive, following = named.group(1), named.group(2), named.group(3).lower()
    lowered = word.lower()
    if names.modal_names and lowered in _MODALS and (possessive or following in _FINITE or (
            following.isalpha() and following.endswith(("s", "ed")))):
        # "Will moved to Oslo", "May's flight": a modal is followed by a verb's bare form
        # ("Will do"), never by a finite one, so this is someone called Will or May.
        return lowered
    if lowered in _NOT_NAMES or lowered.endswith(("ly", "ing")) or (
            lowered.endswith("ed") and len(lowered) > 4):
        return None
    if possessive or following in _AUXILIARIES or (
            following.isalpha() and following.endswith(("s", "ed"))):
        return lowered
    return None


# Modal verbs that are also given names ("Will", "May"), and the finite verbs that can follow a
# name but not a modal.
_MODALS: Final = frozenset("will may can must might shall".split())  # noqa: SIM905
_FINITE: Final = frozenset("is was has had just got went took left quit bought sold".split())  # noqa: SIM905
_AUXILIARIES: Final = frozenset(
    """
    is was has had will would can could just now still recently finally also never always
    got went took left quit bought sold drove ate became began broke came fell felt found gave
    grew kept knew lost made met paid ran said saw sent spent stood swore thought told took
    won wrote and is's isn't wasn't doesn't didn't hasn't won't can't might must should
    """.split())  # noqa: SIM905


_COMPILED_AGE: Final = dict(_COMPILED)["age"]


def _qualifier(attribute: str, lowered: str, edition: int = EDITION) -> str | None:
    """The thing a multi-valued attribute's fact is about, or None."""
    if attribute == "count" and edition >= EDITION_10:
        # "Gave a pair of the rabbits away" counts rabbits, not pairs.
        counted = _qualifier(attribute, lowered, EDITION_9)
        if counted in _SOME_OF_10:
            of = _SOME_OF_10_THING.search(lowered)
            return singular(of.group(1), edition) if of is not None else None
        left = _ONLY_LEFT_10.search(lowered)
        if left is not None:  # "so Mbissa is the only cat left" counts cats
            return singular(left.group(1), edition)
        if counted is None and _LEFT_WITH_10.search(lowered):
            # what is left, with no number before a thing ("Emil's dog Bamse passed away, so
            # Emil is left with two", "sold the gravel bike; now has two"): the animal named,
            # else what went (not "My flight got moved to 14:45": no count)
            given = _PET_10.search(lowered) or _GIVEN_THING_10.search(lowered)
            return singular(given.group(1), edition) if given is not None else None
        return counted
    if attribute == "count":
        # (from the eighth edition, a word of function is no thing: "at 6 from now on")
        function_words = _FUNCTION_WORDS_8 if edition >= EDITION_8 else frozenset()
        if edition >= EDITION_7:
            for match in _COUNTED_7.finditer(lowered):
                noun = match.group(1)
                if noun not in _NOT_COUNTED and noun not in _QUESTION_STOP \
                        and noun not in _ORDINALS_6 and noun not in _NOT_COUNTED_7 \
                        and noun not in function_words:
                    return singular(noun, edition)
        for match in _NUMBERED.finditer(lowered):
            noun = match.group(1)
            if edition >= EDITION_6 and noun in _ORDINALS_6:
                # "a third bike" counts bikes: the word after the ordinal
                after = _NOUN.match(lowered, match.end(1) + 1)
                noun = after.group(0) if after is not None else noun
            if noun not in _NOT_COUNTED and noun not in _QUESTION_STOP \
                    and (edition < EDITION_6 or noun not in _ORDINALS_6) \
                    and noun not in function_words:
                return singular(noun, edition)
        return None
    if attribute == "family":
        for word in _NOUN.findall(lowered):
            if singular(word) in _KIN:
                return singular(word)
        return None
    if attribute == "appointment":
        words = _APPOINTMENT_WORDS_10 if edition >= EDITION_10 else \
            _APPOINTMENT_WORDS_8 if edition >= EDITION_8 else _APPOINTMENT_WORDS
        same = _SAME_APPOINTMENT_8 if edition >= EDITION_8 else _SAME_APPOINTMENT_7
        for word in _NOUN.findall(lowered):
            if word in words and (edition < EDITION_4 or word != "up"):
                # ("up" is half of "check-up", no appointment: "end up", "pick up")
                kind = words[word]
                return same.get(kind, kind) if edition >= EDITION_7 else kind
        if edition >= EDITION_9:
            treated = next((w for w in _NOUN.findall(lowered.replace("x-ray", "xray"))
                            if w in _TREATMENT_WORDS_9), None)
            if treated is not None:
                return _TREATMENT_WORDS_9[treated]
        if edition >= EDITION_3:  # a specialist named by the form of the word ("podiatrist")
            specialist = _SPECIALIST_BEFORE.search(lowered) or _SPECIALIST_AFTER.search(lowered)
            if specialist is not None:
                return specialist.group(1)
        return None
    return None


# Edition 10: the one thing left ("Mbissa is the only cat left").
_ONLY_LEFT_10: Final = lazy_re(r"\bonly (?:one )?([a-z]+) left\b")
# Edition 10: the thing counted where no number comes before it: an animal named, or what was
# sold, given away, lost or got.
_LEFT_WITH_10: Final = lazy_re(r"\b(?:left with|now (?:has|have)|(?:is|are) (?:now )?left)\b")
_PET_10: Final = lazy_re(rf"\b({_words(_PETS)})\b")
_GIVEN_THING_10: Final = lazy_re(
    r"\b(?:sold|gave away|lost|bought|adopted|got|rehomed|traded in|scrapped)\s+(?:the |a |an "
    r"|my |our |one of (?:the |my |our )?)?(?:[a-z]+ )?([a-z]+)\b")
# Edition 10: words for some of a thing, which count the thing after "of".
_SOME_OF_10: Final = frozenset({"pair", "couple", "few", "lot", "bunch", "handful", "litter",
                                "trio", "dozen"})
_SOME_OF_10_THING: Final = lazy_re(r"\b(?:pair|couple|few|lot|bunch|handful|litter|trio|dozen)"
                                   r" of (?:the |my |our |his |her |their )?([a-z]+)")

# "my podiatrist appointment", "the audiologist on Friday", "seeing the podiatrist".
_SPECIALIST_BEFORE: Final = lazy_re(
    rf"\b({_SPECIALIST}) (?:appointment|visit|session|checkup|consultation|on|to)\b")
_SPECIALIST_AFTER: Final = lazy_re(rf"\b(?:the|see|seeing|saw) ({_SPECIALIST})\b")


_APPOINTMENT_WORDS: Final = {w: ("physio" if w.startswith("physio") else
                                 "checkup" if w.startswith("check") else w)
                             for w in _APPOINTMENTS.replace("-", " ").split()}
# Edition 7: one appointment by who gives it or what it is ("Barber called, haircut's Saturday
# now" moves "My haircut is on Friday").
_SAME_APPOINTMENT_7: Final = {"barber": "haircut", "hairdresser": "haircut"}
# Edition 8: ... or by its field ("the dental surgery", "the dermatology clinic"), and an eye test
# is the optician's.
_SAME_APPOINTMENT_8: Final = {**_SAME_APPOINTMENT_7, "dermatology": "dermatologist",
                              "optometrist": "optician", "eye": "optician",
                              "therapy": "therapist"}
_APPOINTMENT_WORDS_8: Final = {**_APPOINTMENT_WORDS, "dental": "dentist"}
# Edition 10: ... by what it sees to or who gives it in other words ("the animal clinic" is the
# vet, "the GP" the doctor; "getting my teeth looked at" the dentist).
_APPOINTMENT_WORDS_10: Final = {**_APPOINTMENT_WORDS_8, "animal": "vet", "gp": "doctor",
                                "teeth": "dentist", "tooth": "dentist"}
# Edition 9: a test, scan or treatment is its own kind ("my blood test", "the MRI": one scan),
# where no one who gives it is named ("Bhalu's vaccination at the vet" is the vet's).
_TREATMENT_WORDS_9: Final = {
    "blood": "blood test", "bloods": "blood test", "scan": "scan",
    "mri": "scan", "ultrasound": "scan", "mammogram": "scan", "xray": "scan",
    "vaccination": "vaccination", "vaccinations": "vaccination", "jab": "vaccination",
    "jabs": "vaccination", "booster": "vaccination",
    "smear": "smear test", "manicure": "nails", "pedicure": "nails", "nails": "nails",
    "braids": "braids", "facial": "facial", "waxing": "waxing", "tattoo": "tattoo",
    "hearing": "hearing test", "driving": "driving test", "theory": "theory test",
    "grooming": "grooming", "groomer": "grooming"}


def singular(word: str, edition: int = EDITION) -> str:
    """A crude singular: "houseplants" -> "houseplant", "boxes" -> "box", "children" -> "child".
    The third edition also knows the plurals English forms otherwise ("cacti" -> "cactus",
    "knives" -> "knife") and leaves a singular in -us alone ("cactus"); the earlier ones made
    "cactu" of "cactus", so "5 cacti" and "another cactus" were counts of different things."""
    if word == "children":
        return "child"
    if edition >= EDITION_3:
        irregular = _IRREGULAR_PLURALS.get(word)
        if irregular is not None:
            return irregular
        if (word.endswith("us") and len(word) > 4) or word in _IRREGULAR_SINGULARS:
            return word  # "cactus", "walrus"; but "emus" is plural
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "xes", "sses")):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


# Plurals English does not form with -s (edition 3 of singular()), and their singulars.
_IRREGULAR_PLURALS: Final = {plural: one for one, plural in (
    ("cactus", "cacti"), ("fungus", "fungi"), ("octopus", "octopi"), ("alumnus", "alumni"),
    ("goose", "geese"), ("mouse", "mice"), ("tooth", "teeth"), ("foot", "feet"),
    ("man", "men"), ("woman", "women"), ("person", "people"), ("knife", "knives"),
    ("wife", "wives"), ("life", "lives"), ("wolf", "wolves"), ("leaf", "leaves"),
    ("shelf", "shelves"), ("loaf", "loaves"), ("calf", "calves"), ("half", "halves"),
    ("scarf", "scarves"), ("thief", "thieves"), ("ox", "oxen"), ("die", "dice"),
    ("index", "indices"), ("cactus", "cactuses"), ("bus", "buses"), ("lens", "lenses"),
    ("potato", "potatoes"), ("tomato", "tomatoes"), ("hero", "heroes"), ("mango", "mangoes"),
)}
_IRREGULAR_SINGULARS: Final = frozenset(_IRREGULAR_PLURALS.values()) | frozenset(
    "sheep fish deer moose bison series species aircraft news lens".split())  # noqa: SIM905


def read(text: str, edition: int = EDITION, *, held_once: bool = False) -> tuple[Fact, ...]:
    """The facts ``text`` states: for each sentence, whose they are and each attribute it
    names (in the order of :data:`_ATTRIBUTES`), without repeats. ``edition``: how (see
    :data:`EDITION`); the write gates before gate-12 read with :data:`EDITION_1`. From the
    ninth edition, what held once and holds no more states nothing ("Back when I was at SABIC
    we lived in Jubail"); ``held_once`` reads it too, as a value of the past (recall asks it of
    a question about a replaced value).

    >>> read("User moved from Turin to Valencia")
    (Fact(owner='user', attribute='residence', qualifier=None),)
    >>> read("My friend Jake still lives in Boston.")
    (Fact(owner='other', attribute='residence', qualifier=None),)
    >>> read("I just bought another bike, so I have 4 bikes now.")
    (Fact(owner='user', attribute='count', qualifier='bike'),)
    """
    found: list[Fact] = []
    names = _spelling(edition)
    opening = ""  # a correction's opening marker (edition 10: whose "it" is)
    if edition >= EDITION_2:  # "Correction: I eat keto" has no speaker called Correction
        folded = _fold(text).strip()
        unopened = _CORRECTION_OPENING.sub("", folded)
        opening, text = folded[:len(folded) - len(unopened)], unopened or text
    noted = edition >= EDITION_4 and _NOTE.match(text) is not None
    if edition >= EDITION_6:  # "Update: relocated to Porto" has no speaker called Update
        text = _NEWS_LABEL_6.sub("", text) or text
    speaker, text = _speaker(text, names)
    named: str | None = None  # the person the sentence before named (edition 2)
    last: str | None = None  # whose the sentence before was (edition 10)
    for sentence in (clause for whole in sentences(text, edition)
                     for clause in _own_clauses(whole, edition)):
        if edition >= EDITION_2:
            unopened = _CORRECTION_OPENING.sub("", sentence).strip()
            opening, sentence = opening + sentence[:len(sentence) - len(unopened)], \
                unopened or sentence
            sentence = _NOW_OPENING.sub("", sentence).strip() or sentence
        owner = owner_of(sentence, edition)
        if edition >= EDITION_10 and owner == USER and last not in (None, USER) \
                and _GOES_ON_10.match(sentence):
            owner = last  # "User's brother Cheikh graduated; now works at Hydro-Quebec"
        if edition >= EDITION_10 and owner == OTHER and _IT_IS_10.match(sentence) \
                and re.search(r"\b(?:my|our)\b", opening.lower()):
            owner = USER  # "Correction on my flight: it's the 15th, not the 14th"
        counted_only = False  # (edition 10: "There's a third cat in the house now")
        reporter = _REPORTER_10.match(sentence) if edition >= EDITION_10 else None
        if reporter is not None:  # "Dana called, she moved to Lyon": Dana's
            said_by = reporter.group(2).lower()
            owner = OTHER if reporter.group(1) or said_by in _RELATIVES else said_by
        if edition >= EDITION_10 and owner not in (None, USER, OTHER):
            reported = _REPORTED_10.match(sentence)
            if reported is not None:  # "Kenya Airways emailed, they've pushed ..."
                sentence = sentence[reported.end():]
                owner = owner_of(sentence, edition)
        if edition >= EDITION_10 and owner not in (None, USER):
            if _TALKED_ME_INTO_10.match(sentence):
                owner = USER  # "My sister talked me into going vegetarian"
            elif owner == OTHER and _THERE_IS_10.match(sentence):
                owner, counted_only = USER, True
            elif owner == OTHER and _CLEFT_10.match(sentence):
                owner = USER  # "It's actually cashews I react to, not peanuts"
        before, named = named, _last_named(sentence, edition) if edition >= EDITION_2 else None
        if edition >= EDITION_5 and named is None and owner in (None, USER):
            # A sentence of the speaker's own naming no one keeps the person talked about:
            # "Sana called earlier. Oops, I got that wrong. He moved to Sapporo, not Denver."
            named = before
        if owner is None:
            continue
        if owner == OTHER and before is not None and _PERSONAL_PRONOUN.match(sentence) \
                and not re.search(r"\b(?:my|our|me|us)\b", sentence.lower()):
            owner = before  # "Caught up with Dana. She moved to Lyon." is Dana's
            if edition >= EDITION_5:
                # And so is the next sentence opening with "she": "She moved to Lyon" names a
                # place, not the person talked about.
                named = before
        if edition >= EDITION_2 and owner not in (USER, OTHER) and _IS_MINE.match(sentence):
            owner = USER  # "Jonas is my brother", "Bergen is where I grew up"
        if owner == OTHER and edition >= EDITION_2 and _NAMES_RELATIVE.search(sentence):
            # "My sister goes by Elena" names the user's sister; "Theo's daughter is Victor"
            # Theo's daughter.
            mine, theirs = _MY.match(sentence), names.possessive_relative.match(sentence)
            if mine is not None and mine.group(1).lower() in _KIN:
                owner = USER
            elif theirs is not None:
                owner = sentence.split("'", 1)[0].lower()
        if edition >= EDITION_5 and owner != USER and _MET_NEW.search(sentence) \
                and _MET_OURS.search(sentence):
            owner = USER  # "Meet Miss Marple, our new border collie!" names no "Meet"
        if edition >= EDITION_4:
            affected = _AFFECTS.search(sentence)
            if affected is not None:  # "Shellfish gives me hives" is the speaker's allergy
                owner = USER if affected.group(1).lower() in ("me", "us") else (before or owner)
        if owner == USER and speaker is not None:
            owner = speaker  # "Caroline: I moved to Denver" is Caroline's
        last = owner  # (whom a clause going on after a semicolon is about, edition 10)
        # The vocabularies are spelled without accents: "Citroën" is the make "citroen".
        lowered = _plain(sentence.lower()) if edition >= EDITION_2 else sentence.lower()
        # Edition 4: a firm's name ("Hartley & Finch") holds no animal, nor any other thing
        # kept: the pet vocabulary reads the sentence without it.
        kept_words = _plain(_FIRM.sub(" ", sentence).lower()) if edition >= EDITION_4 \
            else lowered
        if edition >= EDITION_9 and not held_once:
            past = _PAST_10 if edition >= EDITION_10 else _PAST_9
            lowered, kept_words = past.sub(" ", lowered), past.sub(" ", kept_words)
        if edition >= EDITION_10:  # declined, supposed or unchanged: nothing new
            lowered, kept_words = _NOT_SO_10.sub(" ", lowered), _NOT_SO_10.sub(" ", kept_words)
        facts = [Fact(owner, attribute, _qualifier(attribute, lowered, edition))
                 for attribute, pattern in _COMPILED
                 if _states(attribute, pattern, kept_words if attribute == "pet" else lowered,
                            edition)]
        if edition >= EDITION_2 and _KIN_IS_NAME.search(sentence) \
                and all(f.attribute != "family" for f in facts):
            facts.append(Fact(owner, "family", _qualifier("family", lowered)))  # "... is Victor"
        if noted and owner == USER and (_JOB_AT_5 if edition >= EDITION_5 else _JOB_AT).match(
                sentence):  # "User: nurse at Mercy"
            facts += [Fact(owner, a, None) for a in ("title", "employer")
                      if all(f.attribute != a for f in facts)]
        if edition >= EDITION_7 and noted and owner == USER \
                and (_CITY_NOTE_9 if edition >= EDITION_9 else _CITY_NOTE_7).match(sentence) \
                and all(f.attribute != "residence" for f in facts):
            facts.append(Fact(owner, "residence", None))  # "User: city now Kiel"
        if edition >= EDITION_5 and _CAREER_MOVE_5.search(sentence) \
                and all(f.attribute != "title" for f in facts):
            facts.append(Fact(owner, "title", None))  # "I went from actuary to sommelier"
        joined = (_MAYBE_JOINING_9 if held_once else _FRAMES_9).sub(" ", sentence) \
            if edition >= EDITION_9 else sentence
        if edition >= EDITION_10:
            joined = _NOT_SO_10.sub(" ", joined)
        if _JOINED.search(joined) and all(f.attribute != "employer" for f in facts):
            facts.append(Fact(owner, "employer", None))  # "Sam joined Globex"
        if names.seeing.search(sentence) and all(f.attribute != "relationship" for f in facts):
            facts.append(Fact(owner, "relationship", None))  # "I'm seeing Theo"
        # "My brother Liam is coming over" names the user's brother, whatever else it says.
        if edition >= EDITION_2 and all(f.attribute not in ("pet", "family", "car", "phone")
                                 for f in facts):
            kept = _KEPT_NAMED.search(sentence)
            if kept is None and edition >= EDITION_3:
                kept = _KEPT_NAMED_3.search(sentence) or _MET_NEW.search(sentence)
            if kept is not None and not set(kept.group(1).lower().split()) & _PEOPLE:
                facts.append(Fact(owner, "pet", None))  # "User has a bearded dragon named Dottie"
        relative = names.named_relative.search(sentence)
        if relative is not None:
            facts.append(Fact(speaker or USER, "family", singular(relative.group(1).lower())))
        if edition >= EDITION_10 and _BIRTH_10.search(joined) \
                and Fact(speaker or USER, "count", "kid") not in facts:
            facts.append(Fact(speaker or USER, "count", "kid"))  # "Our son Tariq arrived"
        elif edition >= EDITION_10 and _BIRTH_THEIRS_10.search(joined) \
                and Fact(owner, "count", "kid") not in facts:
            facts.append(Fact(owner, "count", "kid"))  # "Farhan welcomed their third child"
        if counted_only:
            facts = [f for f in facts if f.attribute in ("count", "pet")]
        if edition >= EDITION_10 and _JOB_WITH_10.search(joined) \
                and all(f.attribute != "employer" for f in facts):
            facts.append(Fact(owner, "employer", None))  # "a marine biologist with Nordhaf"
        if edition >= EDITION_10 and _MOVED_UP_TO_10.search(joined):
            # "Farida moved up to Tangier": a home, not a promotion
            facts = [f for f in facts if f.attribute != "title"]
            facts += [Fact(owner, "residence", None)] if all(
                f.attribute != "residence" for f in facts) else []
        if any(f.attribute in ("appointment", "departure") for f in facts) and not (
                edition >= EDITION_10 and _LIVE_IN_10.search(lowered)):
            # "Dentist appointment moved from Friday to Tuesday" moves a date, not a home (but
            # "We live in Cochabamba, and my dentist is on the 4th" says both, edition 10).
            facts = [f for f in facts if f.attribute != "residence"]
        if any(f.attribute == "departure" for f in facts):
            # "They rescheduled my flight" is a departure, not an appointment.
            facts = [f for f in facts if f.attribute != "appointment" or f.qualifier]
        for fact in facts:
            if edition >= EDITION_4 and fact.attribute == "preference" and fact.owner == OTHER \
                    and _DUMMY_IT.match(sentence):
                fact = fact._replace(owner=speaker or USER)  # "It's tea over coffee, always."
            if fact.attribute == "count" and fact.qualifier is None:
                continue  # a number of nothing named ("6 years old") is no count
            if fact.attribute == "age":
                fact = fact._replace(qualifier=_aged(sentence, owner, names, edition))
            if fact not in found:
                found.append(fact)
    return tuple(found)


# Something one keeps that has a name of its own is a pet, whatever kind of animal it is (the
# vocabulary cannot list them all: "a bearded dragon named Dottie", "a Maine Coon called Pico");
# not when the thing is a person ("a daughter named Mia", "a friend called Ana").
_KEPT_NAMED: Final = lazy_re(
    r"\b(?i:have|has|had|got|adopted|adopt|rescued|brought home|bring home|took in)"
    r"\s+(?i:a|an|another|our|my|their|two|three|\d+)\s+((?:[A-Za-z][a-z-]*\s+){1,3})"
    rf"(?i:named|called)\s+{CAP}")
# Edition 3: the name given after the thing ("Brought home a Maine Coon, we named it Dottie"),
# and one introduced as new ("Meet Kiki, our new bearded dragon!").
_KEPT_NAMED_3: Final = lazy_re(
    r"\b(?i:have|has|had|got|adopted|adopt|rescued|brought home|bring home|took in)"
    r"\s+(?i:a|an|another|our|my|their|two|three|\d+)\s+((?:[A-Za-z][a-z-]*\s*){1,3}?)"
    rf"[,;]?\s*(?i:and\s+)?(?i:we|i|they|he|she)\s+(?i:named|called)\s+(?i:it|him|her|them)\s+{CAP}")
_MET_NEW: Final = lazy_re(
    rf"^(?i:meet|say hi to|say hello to)\s+{CAP}[\w-]*(?:\s+{CAP}[\w-]*)?,\s+"
    r"(?i:our|my|the|their|his|her)\s+(?i:new\s+)((?:[A-Za-z][a-z-]*\s*){1,3}?)[.!]*$")
# Edition 5: the one introduced as "our/my new ..." is the speaker's.
_MET_OURS: Final = lazy_re(r",\s+(?:our|my)\s+new\b", re.IGNORECASE)
_PEOPLE: Final = _RELATIVES | frozenset(
    "guy girl boy man woman lady person baby babies kids boss client neighbor".split())  # noqa: SIM905


def subject_of(text: str, edition: int = EDITION) -> str | None:
    """Whose statement ``text`` is: its first sentence's owner (USER, a name, OTHER), or, when
    that sentence says only whom the speaker met ("Caught up with Dana today.") and the next
    opens with he or she, the one met, as :func:`read` takes it; None for a text of no
    sentence."""
    parts = sentences(text, edition)
    if not parts:
        return None
    owner = owner_of(parts[0], edition)
    if owner == USER and len(parts) > 1 and _PERSONAL_PRONOUN.match(parts[1]):
        return _last_named(parts[0], edition) or owner
    return owner


def _last_named(sentence: str, edition: int = EDITION) -> str | None:
    """The last person ``sentence`` names, lower-cased ("Caught up with Dana today" -> "dana"),
    or None: its subject name, or a capitalised word after the first that is not a weekday, a
    month or another word that is never a name. From the fifth edition a modal that is a name
    counts after "with" ("Caught up with Will today")."""
    names = [w.lower() for w in _CAPITALISED.findall(sentence)[1:]
             if w.lower() not in _NOT_NAMES and w.lower() not in ("user", "i")]
    if edition >= EDITION_5 and not names:
        names = [w.lower() for w in _WITH_MODAL.findall(sentence)]
    if names:
        return names[-1]
    return _subject_name(sentence, _UNICODE_NAMES)


# Edition 5: a capitalised modal that is possessive or followed by a finite verb is a name
# anywhere in a sentence ("We celebrated Will's birthday, Will is 5 years old now"), as it is
# at its start (see _subject_name).
_MODAL_NAMED: Final = lazy_re(
    r"\b(Will|May|Can|Must|Might|Shall)(?='s\b|\s+(?:" + "|".join(sorted(_FINITE)) + r"|turned"
    r"|turns)\b)")
# Edition 5: "lunch with Will", "caught up with May": a capitalised modal after "with", not
# followed by a day's number ("with May 3rd in mind").
_WITH_MODAL: Final = lazy_re(r"\bwith\s+(Will|May|Can|Must|Might|Shall)\b(?!\s*\d)")


# A name of a firm: capitalised words joined by "&" ("Hartley & Finch", "Smith & Sons").
_FIRM: Final = lazy_re(rf"(?:{CAP}[\w'.-]*\s+)*{CAP}[\w'.-]*\s*&\s*{CAP}[\w'.-]*")
# "It's X over Y": "it" is no one; the preference is the speaker's (edition 4).
_DUMMY_IT: Final = lazy_re(r"^(?:it's|it is|its)\b", re.IGNORECASE)
_JOINED: Final = lazy_re(r"\b(?i:joined|joining|moved over to|switched to)\s+(?:the\s+)?[A-Z]")


def _aged(sentence: str, owner: str, names: _Names, edition: int = EDITION) -> str | None:
    """Whose age a sentence states: the person it names (the subject "Tessa turned 6", or
    "my daughter Tessa is 5"), else the relative ("my son is 7"), else None."""
    modal_named = set(_MODAL_NAMED.findall(sentence)) \
        if edition >= EDITION_5 and names.modal_names else set()
    numbers = _NUMBERS_8 if edition >= EDITION_8 else frozenset()  # "Forty-two today!"
    named = [w.lower() for w in re.findall(rf"\b({names.name})\b", sentence)
             if (w.lower() not in _NOT_NAMES and w.lower() not in ("user", "i")
                 and w.lower() not in numbers)
             or w in modal_named]
    if owner not in (USER, OTHER) and names.possessive_relative.match(sentence):
        if edition >= EDITION_5 and len(named) > 1 and named[0] == owner:
            return named[1]  # "Oscar's son Leo is 9": Leo's (from the fifth edition)
        return None  # "Oscar's son turned 9": someone else's child
    if named:
        return named[-1] if owner in named[:1] and len(named) > 1 else named[0]
    relative = next((singular(w) for w in _NOUN.findall(sentence.lower())
                     if singular(w) in _KIN), None)
    return relative


def read_question(text: str) -> Question | None:
    """The owner and attribute ``text`` asks about, or None when it asks about no personal
    attribute (or about a relation of the user's: "Where does my sister live?").

    >>> read_question("Where do I live now?")
    Question(owner='user', attribute='residence', qualifier=None, options=frozenset())
    >>> read_question("How many bikes does Dana own?").owner
    'dana'
    """
    asked = _read_question(text)
    if asked is None:
        # A question in the past reads as its present ("Where did I use to work?", "What was my
        # job before?"): which value it asks is recall's to tell (recall.plan.asks_former).
        present = _IN_THE_PAST.sub(lambda m: _PRESENT[m.group(0).lower()], text)
        if present != text:
            asked = _read_question(present)
    return asked


# The past forms a question's attribute is read through, and what they read as.
_PRESENT: Final = {"use to ": "", "used to ": "", "was": "is", "were": "are"}
_IN_THE_PAST: Final = lazy_re(r"\b(?:used? to |was\b|were\b)", re.IGNORECASE)


def _read_question(text: str) -> Question | None:
    folded = _fold(text).strip()
    lowered = folded.lower()
    owner = question_owner(folded)
    if owner is None:
        return None
    # A place named with "City" ("my flight to Ho Chi Minh City") asks about no city.
    asked = _NAMED_CITY.sub(" ", folded).lower()
    # The forms take a name for one word ("When was Dana born?"): so is a hyphened one ("When
    # was Ana-Sofía born?").
    one_word = _HYPHEN_IN_WORD.sub("_", asked)
    attribute = next((name for name, pattern in _QUESTION_FORMS if pattern.search(one_word)),
                     None)
    if attribute is None:
        plain = _NO_CAR.sub(" ", asked)  # "a round of golf" asks of no car
        attribute = next((name for name, pattern in _COMPILED
                          if name not in ("count", "age") and pattern.search(plain)), None)
    if attribute is None or (attribute == "phone" and re.search(r"\bnumber\b", lowered)):
        return None  # a phone number is no phone
    qualifier = None
    if attribute == "count":
        counted = re.search(r"\b(?:how many|number of) ([a-z]+)", lowered)
        qualifier = singular(counted.group(1)) if counted else None
    elif attribute in ("family", "appointment"):
        qualifier = _qualifier(attribute, lowered)
    elif attribute == "age":
        # "How old is Tessa?" asks Tessa's age; "What age is Dana's daughter?" her daughter's.
        # Not the month or day of when ("What age was Tessa on the 12th of April?").
        named = [w.lower() for w in re.findall(rf"(?<![\w-])({NAME})(?![\w-])", folded)
                 if w.lower() not in _NOT_NAMES and w.lower() not in CALENDAR
                 and w.lower() != owner]
        possessive = re.search(rf"\b{NAME}'s\b", folded)
        qualifier = named[-1] if named else (
            owner if owner != USER and possessive is None else None)
    options: frozenset[str] = frozenset()
    if attribute == "preference":
        # The alternatives, not the words of when ("... better back on March 7th?").
        whose = set(_LETTERS.findall(owner))  # "Anne-Marie" asks of neither "anne" nor "marie"
        options = frozenset(w for w in _LETTERS.findall(lowered)
                            if w not in _QUESTION_STOP and len(w) > 2 and w not in whose
                            and w not in CALENDAR and w not in _WHEN_WORDS
                            and w not in ("and", "either", "neither", "nor"))
    return Question(owner, attribute, qualifier, options)


_NO_CAR: Final = lazy_re(_NO_CAR_9)
_NAMED_CITY: Final = lazy_re(rf"\b(?!(?:Which|What|The|A|Your|My)\b)(?:{CAP}[\w'.-]*\s+)+City\b")


def options_named(text: str, question: Question) -> int:
    """How many of a preference question's alternatives (:attr:`Question.options`) ``text``
    names in a sentence stating a preference (most of any one), its words read as the
    question's are: letters alone, so "check-ins," names "check" and "ins", and a plural names
    its singular. "Jake likes aisle seats over window seats now. He told me this morning."
    names no "morning runs"."""
    def named(sentence: str) -> int:
        words = set(_LETTERS.findall(sentence.lower()))
        return sum(option in words or singular(option) in words for option in question.options)

    stating = [sentence for sentence in sentences(text)
               if _states("preference", _BY_ATTRIBUTE["preference"],
                          _plain(sentence.lower()), EDITION)]
    return max(map(named, stating or [text]), default=0)


def question_owner(question: str) -> str | None:
    """USER for a question in the first person, about "the user" or naming no one ("Which day
    is physio?"), a lower-cased name for one about someone named, None for one about a relation
    ("my sister")."""
    lowered = question.lower()
    mine = re.search(r"\b(?:my|our|(?:the )?user's)\s+([a-z]+)", lowered)
    if mine is not None and mine.group(1) in _RELATIVES and not re.search(
            r"\b(?:name|called|named|how old|what age|age of)\b", lowered) and not (
            mine.group(1) in _SPOUSES.split() and re.match(r"who(?:'s| is)\b", lowered)):
        return None  # (but "Who is my wife?" asks whom the user is with)
    if re.search(r"\b(?:i|me|my|mine|we|our|user|user's)\b", lowered):
        return USER
    for match in re.finditer(rf"\b({NAME})\b", question):
        word = match.group(1).lower()
        if _PLACE_BEFORE.search(question, 0, match.start()):
            continue  # a place, not whose ("the flight to Rome", "the Tashkent flight")
        if match.start() > 0 and word not in CALENDAR and word not in ("i", "user"):
            return word  # capitalised within the sentence: a name, even "Will" or "Hope"
        if word not in _NOT_NAMES and word not in _QUESTION_STOP \
                and word not in _COMMON_SUBJECTS_6 \
                and not re.match(r"\s+or\b", question[match.end():]):  # "Tea or coffee?"
            return word  # (not "Physio day?", "Tea or coffee?": no one named)
    # No one named: an agent asks its memory about its user ("Which day is physio?", "Tea or
    # coffee?").
    return USER


# What comes before a place rather than a person in a question: a journey's "to" or "from", or
# "the" ("When does the flight to Rome leave?", "the Tashkent flight"; but "What happened to
# Caroline?" asks about Caroline).
_PLACE_BEFORE: Final = lazy_re(r"\b(?:(?:flight|train|bus|ferry|coach|trip|journey|ride|plane"
                               r"|boat|drive|move)s? (?:to|from)|the)\s+$", re.IGNORECASE)


def _states(attribute: str, pattern: re.Pattern[str], lowered: str, edition: int) -> bool:
    """Whether the lower-cased sentence states ``attribute`` (matched by ``pattern``, its
    vocabulary) as the reader's ``edition`` reads it."""
    # Most sentences state few attributes: when the screen lets none of the attribute's
    # patterns through, nothing is cut out of the sentence and nothing can match it (but for
    # a hyphen dropped).
    if _possible(lowered).isdisjoint(_read_with(attribute, edition)) \
            and not (edition >= EDITION_5 and attribute in _HYPHENS_DROPPED_5 and "-" in lowered):
        return False
    return _reads_as_stating(attribute, pattern, lowered, edition)


@lru_cache(maxsize=1 << 16)
def _reads_as_stating(attribute: str, pattern: re.Pattern[str], lowered: str,
                      edition: int) -> bool:
    """:func:`_states` of a sentence the screen lets some of the attribute's patterns through."""
    for false_friend in _false_friends(attribute, edition):
        if false_friend in _possible(lowered):
            lowered = false_friend.sub(" ", lowered)
    if _read_as(attribute, pattern, lowered, edition):
        return True
    # A hyphened word is also read as one ("late check-outs over early check-ins", "a
    # sous-chef at X"), besides as written ("left Atelier Nord for Zephyr Bio-Systems"). (A
    # sentence without a hyphen would be read again as it is.)
    return edition >= EDITION_5 and attribute in _HYPHENS_DROPPED_5 and "-" in lowered \
        and _read_as(attribute, pattern, _HYPHEN_IN_WORD.sub("", lowered), edition)


def _read_as(attribute: str, pattern: re.Pattern[str], lowered: str, edition: int) -> bool:
    """Whether ``lowered`` matches the attribute's vocabulary (``pattern``, of
    :data:`_COMPILED`) or a phrasing of its edition. Only the patterns the screen lets through
    are searched: the others cannot match."""
    possible = _possible(lowered)
    if pattern in possible and pattern.search(lowered) is not None:
        return True
    for phrasing in _phrasings(attribute, edition):
        if phrasing in possible and phrasing.search(lowered) is not None:
            return True
    return False


@cache
def _phrasings(attribute: str, edition: int) -> tuple[re.Pattern[str], ...]:
    """The phrasings of ``attribute`` the reader's ``edition`` reads, beside its vocabulary."""
    return tuple(phrasings[attribute] for since, phrasings in _PHRASINGS_SINCE
                 if edition >= since and attribute in phrasings)


@cache
def _false_friends(attribute: str, edition: int) -> tuple[re.Pattern[str], ...]:
    """What the reader's ``edition`` cuts out of a sentence before reading ``attribute``, in
    order."""
    return tuple(false_friends[attribute] for since, false_friends in _FALSE_FRIENDS
                 if edition >= since and attribute in false_friends)


@cache
def _read_with(attribute: str, edition: int) -> frozenset[re.Pattern[str]]:
    """Every pattern the reader's ``edition`` reads ``attribute`` with: its vocabulary, its
    phrasings and its false friends."""
    return frozenset((_BY_ATTRIBUTE[attribute], *_phrasings(attribute, edition),
                      *_false_friends(attribute, edition)))


# A sentence is screened once for all its attributes (each asks _read_as of the same string).
@lru_cache(maxsize=256)
def _possible(lowered: str) -> frozenset[re.Pattern[str]]:
    return _SCREEN.possible(lowered)


# declared_name and introduces: pure, and asked of the same stored texts for every name the
# write path checks is the user's, item after item.
@lru_cache(maxsize=1 << 16)
def declared_name(text: str, edition: int = EDITION) -> str | None:
    """The name the user gives themself in ``text`` ("My name is Dana", "I'm Dana.", "User's
    name is Dana"), lower-cased, or None. ``edition`` as for :func:`owner_of`."""
    declared = _spelling(edition).declared
    for sentence in sentences(text, edition):
        match = declared.search(sentence)
        if match is not None:
            name = match.group(1) or match.group(2)
            if name.lower() not in _NOT_NAMES:
                return name.lower()
    return None


@lru_cache(maxsize=1 << 16)
def introduces(text: str, name: str) -> bool:
    """Whether ``text`` names ``name`` (lower-cased) as someone other than the user: a relation
    ("my friend Dana", "User's sister Dana") or someone's relative ("Dana's mother" is not)."""
    return _introducing(name).search(_fold(text).lower()) is not None


# A name's pattern for introduces(), compiled once: it is asked of every memory a search for the
# name finds, and building the pattern (and finding it in re's cache) cost more than searching.
@lru_cache(maxsize=1 << 12)
def _introducing(name: str) -> re.Pattern[str]:
    return re.compile(rf"\b(?:my|our|user's)\s+(?:[a-z]+\s+)?(?:{_RELATIVE_WORDS})"
                      rf"\s+{re.escape(name)}\b")


_RELATIVE_WORDS: Final = _words(" ".join(sorted(_RELATIVES)))


# Attributes with one value at a time (per qualifier): a new value replaces the old one. The
# others (pets, relatives, hobbies, allergies, preferences between different things) add up.
# (A hometown or a birthday does not change: a second one is someone else's, or a correction the
# caller makes with update.)
SINGLE_VALUED: Final = frozenset({
    "residence", "employer", "title", "diet", "car", "phone", "relationship", "count", "age",
    "departure", "appointment"})

# Attributes whose statements are plans by nature (a date to come).
DATED: Final = frozenset({"appointment", "departure"})

def says_more(old: Sequence[Fact], new: Sequence[Fact], named: frozenset[str] = frozenset()
              ) -> bool:
    """Whether a text stating ``old`` says something a text stating ``new`` does not: an
    attribute (with its qualifier) of someone it names, or the user, that ``new`` leaves out.
    "I live in Boston and work at Google" says more than "I moved to Denver": replacing it for
    the new home would lose the employer. ``named``: the names the first text says and the
    second does not (:func:`inner_names`; gate-19): with an attribute that adds up (pets,
    family), they are more too. "I have 2 cats, Pansit and Ube" says more than "We adopted a
    kitten, so 3 cats now": replacing it for the count would lose the cats' names."""
    says = {(f.attribute, f.qualifier) for f in new}
    mine = [f for f in old if f.owner != OTHER]
    return any((f.attribute, f.qualifier) not in says for f in mine) or (
        bool(named) and any(f.attribute not in SINGLE_VALUED for f in mine))


def age_said(text: str) -> int | None:
    """The age a statement of one says: its one number, in digits or words ("My son Aram is
    10, he plays the duduk", "Aram turned eleven last Tuesday", "Forty-two today!"); None when
    it says none or several ("Leo is 7 and Mia 4"). Clock times and the days of dates are no
    age.

    >>> age_said("Aram turned eleven last Tuesday."), age_said("On May 3, Leo turned 7.")
    (11, 7)
    """
    said = set()
    # (a number taken back is none said: "Noor is 7, not 6")
    lowered = _TAKEN_BACK_NUMBER.sub(" ", _fold(text).lower())
    for match in _AGE_NUMBER.finditer(lowered):
        digits, tens, units, number = match.groups()
        if digits is not None:
            before = lowered[:match.start()].split()
            if not (before and before[-1].rstrip(".") in _MONTH_WORDS):  # "May 3" is a day
                said.add(int(digits))
        elif tens is not None:
            said.add(_NUMBER_VALUES[tens] + (_NUMBER_VALUES[units] if units else 0))
        else:
            said.add(_NUMBER_VALUES[number])
    return next(iter(said)) if len(said) == 1 else None


_TAKEN_BACK_NUMBER: Final = lazy_re(rf",?\s*\bnot (?:\d{{1,3}}|{_NUMBER_WORDS_7})\b")
_NUMBER_VALUES: Final = {word: i for i, word in enumerate(
    _NUMBER_WORDS_7.split("|"), start=1)} | {
    word: 10 * i for i, word in enumerate(_TENS_8.split("|"), start=2)}
_AGE_NUMBER: Final = lazy_re(
    r"(?<![\d:./-])\b(\d{1,3})(?:st|nd|rd|th)?\b(?![:./]\d)"
    r"(?!\s*(?:am|pm|%|kg|km|cm|lbs?|kilos?|miles?|minutes?|hours?|mins?)\b)"
    rf"|\b({_TENS_8})(?:[- ](one|two|three|four|five|six|seven|eight|nine))?\b"
    rf"|\b({_NUMBER_WORDS_7})\b")


def keeps_apart(old: str, new: str, edition: int = EDITION) -> bool:
    """Whether ``old`` holds a clause of values that ``new`` leaves untouched, beside a clause
    sharing a value with ``new`` (what the new text is about): "My flight to Lagos leaves at
    08:55 and I'm in seat 23A" keeps the seat apart from "Sorry, I misread the ticket: the Lagos
    flight leaves at 09:55", and replacing it for the time would lose the seat (gate-20). The
    clauses are its sentences and what "and", "but", "while" or "whereas" join; the values the
    names and numbers they say (:func:`names_and_numbers`); a clause shares the name it opens
    with ("Chukwuemeka drives an Innoson and banks with Zenith Bank", then "Chukwuemeka now
    drives a Geely": the bank is kept apart), but a word opening a clause is no value of its
    own ("Caught up with Dana"); and a clause stating an attribute the new text states is
    what it replaces ("Priya left Dublin and moved to Turin", then "Priya moved to Santiago").

    >>> keeps_apart("My son Leo is 6 and my daughter Mia is 4.", "Leo turned 7 yesterday!")
    True
    >>> keeps_apart("My flight to Lagos leaves at 08:55.", "The Lagos flight leaves at 09:55.")
    False
    """
    said = names_and_numbers(new, edition, openings=True)
    restated = {(f.attribute, f.qualifier) for f in read(new, edition)}
    touched = untouched = False
    for clause in (part for sentence in sentences(old, edition)
                   for part in _CLAUSE_CUT.split(sentence)):
        if names_and_numbers(clause, edition, openings=True) & said \
                or {(f.attribute, f.qualifier) for f in read(clause, edition)} & restated:
            touched = True
        elif names_and_numbers(clause, edition):
            untouched = True
    return touched and untouched


_SLASH_DATE: Final = lazy_re(r"\b\d{1,2}/\d{1,2}(?:/\d{2,4})?\b")


def names_and_numbers(text: str, edition: int = EDITION, *, openings: bool = False
                      ) -> frozenset[str]:
    """The names (capitalised words; with ``openings``, a sentence's first too) and numbers of
    ``text``, lower-cased, dates aside: the values of :func:`values_of` that no vocabulary
    gives ("seat" is a make of car, and "seat 23A" no car)."""
    word = _spelling(edition).token
    found: set[str] = set()
    for sentence in sentences(_SLASH_DATE.sub(" ", text), edition):
        for i, token in enumerate(word.findall(sentence)):
            lowered = token.lower()
            if lowered.split("'")[0] in _NOT_NAMES or lowered in ("user", "i", "i'm") \
                    or _DATE_LIKE.match(lowered) or lowered in _MONTH_WORDS:
                continue  # ("I'm" opens no name)
            if any(c.isdigit() for c in token) or (token[0].isupper() and (i > 0 or openings)):
                found.add(lowered)
    return frozenset(found)


# Within a sentence, a clause after "and" has its own subject: "left Cyberdyne and joined
# Soylent Foods" is one change of job, "... at 08:55 and I'm in seat 23A" two things.
_CLAUSE_CUT: Final = lazy_re(
    r";\s+|\s+(?:and|but|while|whereas)\s+(?=(?:i|i'm|we|we're|he|she|they|you|my|our"
    rf"|his|her|their|your|the user)\b|{CAP})")


def inner_names(text: str) -> frozenset[str]:
    """The names ``text`` says inside its sentences, lower-cased: a capitalised word after
    another word ("We have two dogs, Pelle and Saga" names pelle and saga; a word opening a
    sentence may be any word)."""
    return frozenset(name.lower() for name in _INNER_NAME.findall(text))


_INNER_NAME: Final = lazy_re(rf"(?<=[\w,;:]\s)({NAME})\b")


_VALUE_WORDS: Final = frozenset(
    f"{_CAR_MAKES} {_JOBS} {_PETS} iphone pixel galaxy oneplus xperia fairphone moto nokia "
    "xiaomi huawei vegan vegetarian pescatarian pescetarian keto paleo flexitarian carnivore halal "
    "kosher single dating engaged married divorced widowed seeing".split())
# The second edition's value words also name the diets only its phrasings read.
_VALUE_WORDS_2: Final = _VALUE_WORDS | frozenset((
    "macrobiotic", "fruitarian", "atkins", "whole30", "low-fodmap", "low-sodium", "low-salt",
    "low-fat", "low-sugar", "low-histamine", "low-gi", "lacto-ovo", "ovo-lacto", "ovo-vegetarian",
    "lacto-vegetarian"))
_DATE_LIKE: Final = lazy_re(r"^\d{4}-\d\d-\d\d$|^\d{4}$|^\d{1,2}(?:st|nd|rd|th)$")


def is_statement(text: str, edition: int = EDITION) -> bool:
    """Whether ``text`` is short enough to be the statement of a fact or two (at most two
    sentences and 40 words), rather than a conversation turn saying many things: replacing a
    memory hides all it says, so only a statement is ever replaced by a new value."""
    return len(sentences(text, edition)) <= 2 and len(text.split()) <= 40


def values_of(text: str, edition: int = EDITION) -> frozenset[str]:
    """The words of ``text`` that carry values: names (capitalised, not opening a sentence),
    numbers and clock times (dates aside: they say when, not what), and the words a value of a
    personal attribute is said in (a diet, a make of car, a job, a relationship status...).
    Two statements of one attribute with different values of these say different things.
    ``edition`` :data:`EDITION`: a word may open with any letter ("Łódź"); :data:`EDITION_1`,
    with an ASCII one (gate-11 and before).

    >>> sorted(values_of("I replaced my Galaxy A54 with a Galaxy S23."))
    ['a54', 'galaxy', 's23']
    """
    found: set[str] = set()
    word = _spelling(edition).token
    for sentence in sentences(text, edition):
        tokens = word.findall(sentence)
        for i, token in enumerate(tokens):
            lowered = token.lower()
            if lowered in _WEEKDAYS:
                found.add(lowered)  # "moved from Monday to Friday": the day is the value
                continue
            if lowered in _NOT_NAMES or lowered in ("user", "i") or _DATE_LIKE.match(lowered) \
                    or lowered in _MONTH_WORDS:
                continue
            if (i > 0 and token[0].isupper()) or any(c.isdigit() for c in token) \
                    or (_plain(lowered) in _VALUE_WORDS_2 if edition >= EDITION_2
                        else lowered in _VALUE_WORDS):
                found.add(lowered)
        if edition >= EDITION_5:  # a job named by its form ("a actuary", "made me sous-chef")
            for job in _JOB_VALUE_5.findall(_plain(sentence.lower())):
                found.update(w for w in job.split() if w not in _NOT_NAMES)
        opening = (_hired_me(edition).match(sentence) or _HOME_IS_6.match(sentence)) \
            if edition >= EDITION_6 else None
        if opening is not None:  # "Initech hired me", "Porto is home now": no subject's name
            found.update(t.lower() for t in word.findall(opening.group(0))
                         if t[0].isupper() and t.lower() not in _NOT_NAMES)
    return frozenset(found)


# Edition 5: the words of a job named after a verb of being, "as" or "made me" ("I work as a
# dental hygienist", "I'm a actuary now"): values, as the job words of the vocabulary are.
_JOB_VALUE_5: Final = lazy_re(
    r"\b(?:is|am|i'm|im|was|became|become|becoming|now|as|made(?: me| him| her| them| us)?) "
    rf"(?:now )?(?:an? |the )?(?!redundant\b)({_JOB_5})\b")
_WEEKDAYS: Final = frozenset(
    "monday tuesday wednesday thursday friday saturday sunday".split())  # noqa: SIM905
_MONTH_WORDS: Final = frozenset(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september",
        "october", "november", "december", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep",
        "sept", "oct", "nov", "dec"])


def leaves_for(text: str) -> bool:
    """Whether ``text`` says one thing was left for another ("Dana left Globex Inc. for
    Initech"): a change, though it names the old value beside the new (edition 4)."""
    return _LEAVES_FOR.search(text) is not None


_LEAVES_FOR: Final = lazy_re(r"\bleft\b[^;!?]{1,60}?\bfor\b", re.IGNORECASE)


def bids_goodbye(text: str) -> bool:
    """Whether ``text`` says someone was made something new or bids the old goodbye ("They
    made me air traffic controller, so long actuary"): a change, though it names the old value
    beside the new (edition 5)."""
    return _GOODBYE.search(text) is not None


_GOODBYE: Final = lazy_re(r"\b(?:made (?:me|him|her|them|us)|(?:was|were|got|been) made) "
                          r"(?:an? |the )?[a-z]|\bso long\b"
                          r"|\bgoodbye to\b|\bbye-bye\b", re.IGNORECASE)


def taken_on_elsewhere(text: str) -> bool:
    """Whether ``text`` says one employer let the speaker go and another took them on ("Stark
    Industries let me go, but Wayne Enterprises took me on"): a change, though it names the old
    value beside the new (edition 7)."""
    return _TAKEN_ON.search(text) is not None


_TAKEN_ON: Final = lazy_re(r"\b(?:let (?:me|us) go|laid (?:me|us) off|fired (?:me|us))\b[^.!?]*"
                           r"\b(?:took|taken|brought) (?:me|us) on\b", re.IGNORECASE)


def reschedules(text: str) -> bool:
    """Whether ``text`` says a date was moved ("rescheduled to Tuesday", "postponed", "pushed
    back", "brought forward"): with the change words of :func:`eventmem.policies.values.
    announces_change`, what makes a new day of an appointment replace one already passed."""
    return _RESCHEDULE.search(text) is not None


_RESCHEDULE: Final = lazy_re(
    r"\b(?:re-?schedul\w*|postpon\w*|push(?:ed|ing)? (?:back|out)|brought forward|bumped)\b",
    re.IGNORECASE)


# A thing named as the first word of a compound is what modifies the noun after it: "the car
# registration", "car insurance", "a phone bill" name a paper, a policy, a bill, not the car or
# phone someone has. The reader still takes them for the attribute (the write gate decides on
# what it reads, and audit re-derives those decisions), so recall asks this apart.
_COMPOUND_HEADS: Final = (
    "registration insurance wash park parking service servicing loan payment payments lease "
    "rental hire tax taxes repair repairs keys key seat seats boot trunk battery tyre tyres tire "
    "tires alarm crash accident accessories charger bill bills plan contract call calls case "
    "screen number upgrade")
_COMPOUNDS: Final = {
    "car": lazy_re(rf"\bcars?\s+(?:{_words(_COMPOUND_HEADS)})\b"),
    "phone": lazy_re(rf"\bphones?\s+(?:{_words(_COMPOUND_HEADS)})\b"),
}


# Where the speaker gives a pet's name: "a dog named Rex", "a Maine Coon called Pico", "User's
# labrador Pepper", "our cat Noodle".
_PET_NAME: Final = lazy_re(
    rf"\b(?i:named|called)\s+({NAME})"
    rf"|\b(?i:my|our|user's)\s+(?:[a-z]+\s+)?(?i:{_words(_PETS)})\s+({NAME})")


def pet_names(text: str) -> frozenset[str]:
    """The lower-cased names ``text`` gives pets (or anyone: the caller reads it of a text
    stating a pet).

    >>> sorted(pet_names("I have a golden retriever named Rocket."))
    ['rocket']
    """
    return frozenset((m.group(1) or m.group(2)).lower() for m in _PET_NAME.finditer(text))


def named_in_compounds_only(text: str, attribute: str) -> bool:
    """Whether ``text`` names ``attribute`` only in compounds that name something else ("Theo
    renewed the car registration": no car of anyone's), so states no value of it.

    >>> named_in_compounds_only("Finally renewed the car registration.", "car")
    True
    >>> named_in_compounds_only("Renewed the car registration for my Subaru.", "car")
    False
    """
    compound = _COMPOUNDS.get(attribute)
    if compound is None:
        return False
    lowered = _fold(text).lower()
    if compound.search(lowered) is None:
        return False
    rest = compound.sub(" ", lowered)
    return _BY_ATTRIBUTE[attribute].search(rest) is None


_BY_ATTRIBUTE: Final = dict(_COMPILED)


def attribute_words(attribute: str, *, every_reader_word: bool = True,
                    phrasings: bool = True, sixth: bool = True, spelt: bool = False) -> str:
    """Words a memory stating ``attribute`` is likely to hold, for a lexical search of the
    namespace's candidates (the vocabulary's plain words). ``every_reader_word`` False: without
    the words gate-10 added, as the write gates before it searched; ``phrasings`` False:
    without those of the reader's second edition (gate-12), ``sixth`` False: without those of
    its sixth (gate-16), as the gates before them searched; ``spelt``: with the vocabulary's
    words as spelt beyond ASCII too (:data:`_SPELT`; recall's search, which no recorded decision
    depends on)."""
    words = _SEARCH_WORDS.get(attribute, attribute)
    added = _READER_WORDS.get(attribute) if every_reader_word else None
    more = _PHRASING_WORDS.get(attribute) if phrasings else None
    latest = _PHRASING_WORDS_6.get(attribute) if sixth else None
    spellings = _SPELT.get(attribute) if spelt else None
    return " ".join(filter(None, (words, added, more, latest, spellings)))


# The vocabulary's words that are spelt with letters beyond ASCII: the reader folds accents
# ("Citroën" is a car), but a lexical search matches a word as it is written, so "Göran got a
# Škoda Octavia" holds no word of the car's search without them.
_SPELT: Final = {"car": "citroën škoda"}


# Words of the second edition's phrasings (:data:`_PHRASINGS`) that the search lacked: "I'm on
# the payroll at Initech" shares no other word with the employer's search.
_PHRASING_WORDS: Final = {
    "residence": "place unpacking",
    "employer": "payroll role position",
    "title": "trade made",
    "preference": "favour favours favor favors choice mind",
    "count": "there keep keeps collection makes",
    "allergy": "reaction rash hives",
    "departure": "fly flies flying flew",
    "car": "dealer around",
    "relationship": "love someone",
    "family": "goes known",
    "diet": "macrobiotic fruitarian atkins whole30 ovo lacto fodmap sodium free",
}


# Words of the sixth edition's phrasings (:data:`_PHRASINGS_6`) that the search lacked: "I
# accepted an offer from Initech" or "My new address is in Porto" shares no other word with its
# attribute's words. Only words seldom said otherwise: a common one ("last", "down",
# "together") fills the search's depth with chatter, and the statements it should find fall
# below it.
_PHRASING_WORDS_6: Final = {
    "employer": "offer contract laid fired",
    "residence": "address",
    "count": "adopted",
    "departure": "bus ferry",
}


# Words the reader takes for an attribute that its search once lacked: a memory saying only
# "the user resides in Leipzig" was never a candidate (tests/policies/test_facts.py holds every
# example statement to sharing a term with its attribute's words).
_READER_WORDS: Final = {
    "residence": "reside resides residing residence",
    "employer": "employed quit first",
    "title": "occupation profession",
}
_SEARCH_WORDS: Final = {
    "residence": "live lives living moved move relocated relocating based settled city home "
                 "apartment",
    "employer": "work works working job employer company joined hired started firm",
    "title": f"job title role position promoted work working {_JOBS}",
    "diet": "diet vegan vegetarian pescatarian pescetarian keto paleo gluten dairy flexitarian "
            "carnivore halal kosher meat plant based",
    "car": f"car drive drives driving vehicle truck suv {_CAR_MAKES}",
    "phone": "phone iphone pixel galaxy smartphone oneplus xperia fairphone motorola moto nokia "
             "xiaomi huawei",
    "pet": f"{_PETS} adopted passed away died named called",
    "relationship": "single dating seeing engaged married girlfriend boyfriend fiance fiancee "
                    "divorced broke relationship proposed partner",
    "count": "own owns have bought another now left",
    "age": "years old turned birthday age",
    "departure": "flight departs departure leaves leave takes off train",
    "appointment": f"appointment rescheduled moved pushed {_APPOINTMENTS}",
    "preference": "prefer prefers rather favourite favorite over switched",
    "allergy": "allergy allergic allergies intolerant intolerance",
    "family": "name named called " + " ".join(sorted(_KIN)),
    "hobby": "hobby hobbies fun enjoy enjoys into free time passion favourite weekends spends",
    "hometown": "grew up hometown originally from born raised",
    "birthday": "birthday born",
}
