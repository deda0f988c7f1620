"""What a category word names: a small hyponym lexicon for questions about kinds of things.

"What martial arts has John done?" is answered by "I'm doing kickboxing", which shares no word
with the question; a neural embedder knows that kickboxing is a martial art, the default hashing
one and BM25 do not. :func:`members` gives the words a question's category noun stands for
("martial arts" -> karate, judo, kickboxing, ...), which recall adds to the query's lexical
search at ``Config.hyponym_weight`` (eventmem.recall.fuse.gather), as it adds the declarative
form of a question.

World knowledge, written down once, like a tiny WordNet: common categories of a personal
conversation (sports, instruments, pets, places, languages, food, hobbies, family, ...), each
with its everyday members. A category noun too vague to name members ("things", "activities",
"events") is not listed, nor one a question mostly uses to describe rather than to ask for
members ("colors and patterns in her pottery": with colours, LoCoMo dev lost two questions).
Pure data and one lookup: the same question gives the same words.
"""

from __future__ import annotations

import re
from typing import Final

from eventmem.text.lazyre import lazy_re

__all__ = ["category_of", "kinds", "members"]


def _words(text: str) -> tuple[str, ...]:
    """Members written one per comma: a member may be several words ("kung fu")."""
    return tuple(w.strip() for w in text.split(",") if w.strip())


_EUROPE = _words("""
albania, andorra, austria, belarus, belgium, bosnia, bulgaria, croatia, cyprus, czechia,
czech republic, denmark, england, estonia, finland, france, germany, greece, hungary, iceland,
ireland, italy, kosovo, latvia, liechtenstein, lithuania, luxembourg, malta, moldova, monaco,
montenegro, netherlands, holland, north macedonia, norway, poland, portugal, romania, russia,
san marino, scotland, serbia, slovakia, slovenia, spain, sweden, switzerland, ukraine,
united kingdom, uk, britain, wales, vatican
""")
_ASIA = _words("""
afghanistan, bangladesh, bhutan, cambodia, china, india, indonesia, iran, iraq, israel, japan,
jordan, kazakhstan, korea, south korea, north korea, kuwait, laos, lebanon, malaysia,
maldives, mongolia, myanmar, nepal, oman, pakistan, philippines, qatar, saudi arabia,
singapore, sri lanka, syria, taiwan, thailand, turkey, united arab emirates, uae, uzbekistan,
vietnam, yemen, hong kong
""")
_AFRICA = _words("""
algeria, angola, botswana, cameroon, congo, egypt, ethiopia, ghana, ivory coast, kenya,
libya, madagascar, mali, morocco, mozambique, namibia, nigeria, rwanda, senegal, somalia,
south africa, sudan, tanzania, tunisia, uganda, zambia, zimbabwe
""")
_AMERICAS = _words("""
argentina, bahamas, barbados, belize, bolivia, brazil, canada, chile, colombia, costa rica,
cuba, dominican republic, ecuador, el salvador, guatemala, haiti, honduras, jamaica, mexico,
nicaragua, panama, paraguay, peru, puerto rico, trinidad, united states, usa, america,
uruguay, venezuela
""")
_OCEANIA = _words("australia, new zealand, fiji, papua new guinea, samoa, tonga")
_US_STATES = _words("""
alabama, alaska, arizona, arkansas, california, colorado, connecticut, delaware, florida,
georgia, hawaii, idaho, illinois, indiana, iowa, kansas, kentucky, louisiana, maine, maryland,
massachusetts, michigan, minnesota, mississippi, missouri, montana, nebraska, nevada,
new hampshire, new jersey, new mexico, new york, north carolina, north dakota, ohio, oklahoma,
oregon, pennsylvania, rhode island, south carolina, south dakota, tennessee, texas, utah,
vermont, virginia, washington, west virginia, wisconsin, wyoming
""")
_MARTIAL_ARTS = _words("""
karate, judo, kickboxing, taekwondo, tae kwon do, jiu-jitsu, jiu jitsu, jujitsu, aikido,
kung fu, boxing, muay thai, wrestling, mma, krav maga, capoeira, kendo, tai chi, wing chun,
fencing, sambo, hapkido
""")
_SPORTS = _words("""
soccer, football, basketball, baseball, softball, tennis, golf, hockey, volleyball, rugby,
cricket, badminton, table tennis, ping pong, lacrosse, swimming, running, cycling, skiing,
snowboarding, surfing, skateboarding, climbing, bouldering, rowing, kayaking, sailing,
gymnastics, track, marathon, triathlon, boxing, wrestling, karate, judo, fencing, archery,
bowling, squash, handball, water polo, skating, ice skating, diving, horse riding,
equestrian, pickleball, frisbee, dodgeball
""")
_INSTRUMENTS = _words("""
piano, keyboard, guitar, bass, violin, viola, cello, double bass, clarinet, flute, piccolo,
oboe, bassoon, saxophone, sax, trumpet, trombone, tuba, french horn, horn, drums, drum kit,
percussion, xylophone, harp, ukulele, banjo, mandolin, harmonica, accordion, bagpipes, organ,
synthesizer, recorder, sitar, tabla
""")
_PETS = _words("""
dog, dogs, puppy, puppies, pup, cat, cats, kitten, kittens, hamster, gerbil, guinea pig,
rabbit, bunny, parrot, budgie, bird, fish, goldfish, turtle, tortoise, lizard, gecko, snake,
ferret, horse, pony, chinchilla, hedgehog, rat, mouse
""")
_BIRDS = _words("""
parrot, budgie, budgerigar, canary, cockatiel, cockatoo, macaw, lovebird, finch, parakeet,
chicken, hen, rooster, duck, goose, quail, pigeon, dove, owl
""")
_ANIMALS = _PETS + _words("""
lion, tiger, bear, wolf, fox, deer, elephant, giraffe, zebra, monkey, gorilla, dolphin,
whale, shark, eagle, owl, penguin, kangaroo, koala, panda, cow, pig, sheep, goat, chicken,
duck, dinosaur, dinosaurs, butterfly, bee, frog, squirrel, raccoon, otter, seal
""")
_LANGUAGES = _words("""
english, spanish, french, german, italian, portuguese, dutch, swedish, norwegian, danish,
finnish, polish, russian, ukrainian, greek, turkish, arabic, hebrew, persian, farsi, hindi,
urdu, bengali, punjabi, tamil, mandarin, cantonese, chinese, japanese, korean, vietnamese,
thai, indonesian, malay, tagalog, swahili, latin, sign language, asl
""")
_GENRES = _words("""
rock, pop, jazz, blues, classical, country, folk, hip hop, hip-hop, rap, r&b, soul, funk,
metal, punk, indie, electronic, edm, techno, house, reggae, gospel, opera, disco, k-pop,
latin, salsa, orchestral, symphony
""")
_CUISINE = _words("""
pizza, pasta, spaghetti, lasagna, sushi, ramen, noodles, rice, curry, tacos, burrito,
burger, hamburger, sandwich, salad, soup, stew, chili, steak, chicken, fish, seafood, bbq,
barbecue, dumplings, pancakes, waffles, bread, cake, cakes, cookies, pie, cupcakes, brownies,
ice cream, chocolate, cheese, eggs, bacon, fries, pho, paella, kebab, falafel, hummus,
enchiladas, quesadilla, lasagne, risotto, omelette, muffins, donuts
""")
_DRINKS = _words("""
coffee, tea, espresso, latte, cappuccino, juice, water, soda, lemonade, milk, smoothie, wine,
beer, cocktail, whiskey, vodka, rum, gin, cider, kombucha, hot chocolate, matcha
""")
_CRAFTS = _words("""
painting, drawing, sketching, sculpture, sculpting, pottery, ceramics, photography,
knitting, crochet, sewing, quilting, embroidery, woodworking, carving, calligraphy,
origami, scrapbooking, jewelry making, weaving, collage, printmaking, watercolor,
watercolour, oil painting, acrylic
""")
_HOBBIES = _CRAFTS + _words("""
reading, writing, poetry, journaling, gardening, cooking, baking, hiking, camping, fishing,
birdwatching, dancing, singing, gaming, video games, board games, chess, puzzles, yoga,
running, cycling, swimming, travelling, traveling, collecting, stamps, coins, volunteering,
meditation, music, guitar, piano, skating, surfing, climbing
""")
_OUTDOORS = _words("""
hiking, camping, fishing, kayaking, canoeing, rafting, climbing, rock climbing,
mountaineering, biking, cycling, mountain biking, skiing, snowboarding, surfing, swimming,
sailing, picnic, birdwatching, running, walking, trail, beach, gardening, hunting, horseback
riding, stargazing, paddleboarding, snorkeling, scuba diving, road trip, roadtrip
""")
_EXERCISE = _words("""
running, jogging, walking, weightlifting, weight lifting, weight training, strength training,
lifting, yoga, pilates, circuit training, crossfit, cardio, spinning, aerobics, zumba,
kickboxing, boxing, swimming, cycling, rowing, hiit, calisthenics, push-ups, squats,
stretching, gym, workout, workouts, treadmill, elliptical, dance, dancing, martial arts,
karate, climbing, hiking
""")
_FAMILY = _words("""
mother, mom, mum, father, dad, parents, sister, brother, siblings, son, daughter, kids,
children, wife, husband, spouse, partner, grandmother, grandma, grandfather, grandpa,
grandparents, aunt, uncle, cousin, niece, nephew, in-laws, stepmother, stepfather, twin
""")
_CHILDREN = _words("""
son, sons, daughter, daughters, kids, kid, children, child, baby, toddler, teenager, boy,
boys, girl, girls, twins, stepson, stepdaughter
""")
_SIBLINGS = _words("brother, brothers, sister, sisters, twin, siblings, sibling")
_PARENTS = _words("mother, mom, mum, father, dad, parents, stepmother, stepfather")
_RELATIONSHIP = _words("""
single, married, engaged, dating, divorced, widowed, separated, boyfriend, girlfriend,
partner, husband, wife, fiance, fiancee, spouse, relationship, breakup, broke up
""")
_VEHICLES = _words("""
car, truck, van, suv, bike, bicycle, motorcycle, motorbike, scooter, bus, train, boat,
yacht, kayak, canoe, jeep, pickup, sedan, convertible, rv, camper, tesla
""")
_HOLIDAYS = _words("""
christmas, thanksgiving, easter, halloween, new year, new year's, independence day,
fourth of july, july 4th, memorial day, labor day, valentine's day, valentine's,
hanukkah, diwali, ramadan, eid, passover, lunar new year, chinese new year, st. patrick's day,
mother's day, father's day, veterans day, boxing day, kwanzaa
""")
_JOBS = _words("""
teacher, nurse, doctor, engineer, developer, programmer, designer, lawyer, accountant,
banker, chef, cook, waiter, barista, manager, consultant, scientist, researcher, professor,
artist, writer, author, musician, photographer, pilot, firefighter, police officer, soldier,
mechanic, electrician, plumber, carpenter, farmer, dentist, pharmacist, therapist,
counselor, social worker, architect, journalist, editor, salesperson, cashier, driver,
entrepreneur, ceo, founder, intern, veterinarian, vet, paramedic, librarian, coach
""")
_SUBJECTS = _words("""
math, mathematics, science, physics, chemistry, biology, history, geography, english,
literature, art, music, economics, psychology, sociology, philosophy, computer science,
engineering, law, medicine, business, political science, statistics, spanish, french
""")
_PLACES_TO_VISIT = _words("""
museum, park, national park, zoo, aquarium, beach, lake, mountains, forest, gallery, library,
theater, theatre, cinema, concert, festival, fair, market, castle, cathedral, church,
temple, garden, botanical garden, waterfall, island, canyon
""")
_CITIES = _words("""
new york, los angeles, chicago, houston, phoenix, philadelphia, san antonio, san diego,
dallas, austin, san francisco, seattle, portland, denver, boston, miami, atlanta, nashville,
new orleans, las vegas, detroit, minneapolis, washington, baltimore, orlando, honolulu,
toronto, vancouver, montreal, mexico city, rio de janeiro, sao paulo, buenos aires, lima,
bogota, santiago, havana, london, paris, rome, madrid, barcelona, lisbon, berlin, munich,
amsterdam, brussels, vienna, prague, budapest, warsaw, copenhagen, stockholm, oslo, helsinki,
dublin, edinburgh, zurich, geneva, milan, venice, florence, naples, athens, istanbul, moscow,
kyiv, cairo, marrakech, cape town, johannesburg, nairobi, lagos, dubai, tel aviv, jerusalem,
mumbai, delhi, new delhi, bangalore, bangkok, singapore, hong kong, shanghai, beijing, seoul,
tokyo, kyoto, osaka, taipei, manila, jakarta, bali, hanoi, sydney, melbourne, auckland
""")
_GAMES = _words("""
chess, checkers, monopoly, scrabble, poker, cards, card games, board games, video games,
charades, scavenger hunt, trivia, puzzles, bingo, uno, catan, minecraft, fortnite, mario,
zelda, pokemon, dungeons and dragons, tag, hide and seek, crossword, sudoku
""")
_WEATHER = _words("rain, snow, storm, sunny, heat, cold, wind, fog, hail, thunderstorm, flood")

# A category noun (singular and plural, and a few two-word forms) -> the words it stands for.
# Longer keys are matched first, so "European countries" is not read as "countries".
_CATEGORIES: Final[dict[str, tuple[str, ...]]] = {
    "european countries": _EUROPE,
    "european country": _EUROPE,
    "asian countries": _ASIA,
    "asian country": _ASIA,
    "african countries": _AFRICA,
    "african country": _AFRICA,
    "countries": _EUROPE + _ASIA + _AFRICA + _AMERICAS + _OCEANIA,
    "country": _EUROPE + _ASIA + _AFRICA + _AMERICAS + _OCEANIA,
    "states": _US_STATES,
    "state": _US_STATES,
    "martial arts": _MARTIAL_ARTS,
    "martial art": _MARTIAL_ARTS,
    "sports": _SPORTS,
    "sport": _SPORTS,
    "instruments": _INSTRUMENTS,
    "instrument": _INSTRUMENTS,
    "pets": _PETS,
    "pet": _PETS,
    "birds": _BIRDS,
    "bird": _BIRDS,
    "animals": _ANIMALS,
    "animal": _ANIMALS,
    "languages": _LANGUAGES,
    "language": _LANGUAGES,
    "genres": _GENRES,
    "genre": _GENRES,
    "music": _GENRES,
    "food": _CUISINE,
    "foods": _CUISINE,
    "dishes": _CUISINE,
    "dish": _CUISINE,
    "meals": _CUISINE,
    "cuisine": _CUISINE,
    "desserts": _CUISINE,
    "drinks": _DRINKS,
    "drink": _DRINKS,
    "beverages": _DRINKS,
    "art": _CRAFTS,
    "arts": _CRAFTS,
    "crafts": _CRAFTS,
    "hobbies": _HOBBIES,
    "hobby": _HOBBIES,
    "outdoor activities": _OUTDOORS,
    "outdoor activity": _OUTDOORS,
    "exercises": _EXERCISE,
    "exercise": _EXERCISE,
    "workouts": _EXERCISE,
    "workout": _EXERCISE,
    "family members": _FAMILY,
    "family member": _FAMILY,
    "relatives": _FAMILY,
    "children": _CHILDREN,
    "kids": _CHILDREN,
    "siblings": _SIBLINGS,
    "parents": _PARENTS,
    "relationship status": _RELATIONSHIP,
    "marital status": _RELATIONSHIP,
    "vehicles": _VEHICLES,
    "vehicle": _VEHICLES,
    "holidays": _HOLIDAYS,
    "holiday": _HOLIDAYS,
    "jobs": _JOBS,
    "job": _JOBS,
    "professions": _JOBS,
    "profession": _JOBS,
    "careers": _JOBS,
    "occupation": _JOBS,
    "subjects": _SUBJECTS,
    "subject": _SUBJECTS,
    "courses": _SUBJECTS,
    "places": _PLACES_TO_VISIT,
    "attractions": _PLACES_TO_VISIT,
    "weather": _WEATHER,
    "cities": _CITIES,
    "city": _CITIES,
    "games": _GAMES,
}

_KEY = lazy_re(
    r"\b(" + "|".join(re.escape(k) for k in sorted(_CATEGORIES, key=lambda k: (-len(k), k)))
    + r")\b", re.IGNORECASE)


def category_of(question: str) -> str | None:
    """The first category noun ``question`` names ("martial arts"), lowercased, or None."""
    found = _KEY.search(question)
    return None if found is None else found[1].lower()


def members(question: str) -> str:
    """The words the question's category noun stands for, those it does not already say, as one
    text ("" when it names none): ``"karate, judo, kickboxing, ..."`` for "What martial arts has
    John done?"."""
    category = category_of(question)
    if category is None:
        return ""
    said = question.lower()
    return ", ".join(m for m in dict.fromkeys(_CATEGORIES[category])
                     if re.search(rf"\b{re.escape(m)}\b", said) is None)


def kinds(noun: str) -> frozenset[str]:
    """What a category noun, singular or plural, stands for ("bird" -> parrot, hen, ...): an
    empty set for a noun that names no category. "How many birds do I have?" counts parrots."""
    members = _CATEGORIES.get(noun.lower()) or _CATEGORIES.get(noun.lower() + "s") or ()
    return frozenset(members)
