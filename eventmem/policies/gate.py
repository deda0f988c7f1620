"""The write gate: what a new text means against what its namespace already holds.

Two gates read the same evidence -- the nearest eligible memory, its cosine similarity, and a
contradiction with one of the nearest memories if there is one:

``tiered`` (the default), three-tier deduplication:
    exact hash of the normalized text  -> reinforce the original
    contradiction about the same subject -> the conflict strategy decides (see below)
    similarity >= 0.95                 -> reinforce (a semantic duplicate)
    0.85 <= similarity < 0.95          -> merge when the new text adds information, else skip
    otherwise                          -> create

A text that differs from its nearest memory in a value (a number, a time, a date or weekday, a
name, a negation, a change word, the order of a relation's arguments) is never a duplicate: where
either gate would reinforce, skip or merge it, it updates that memory instead.

``exact``: only the exact hash reinforces; everything else is created (no semantic gate, no
conflicts), for callers that deduplicate upstream.

``prediction_error``, the prediction-error form (PE = 1 - similarity):
    exact hash                         -> reinforce
    contradiction                      -> the conflict strategy decides
    similarity > 0.92                  -> reinforce (nothing new was predicted wrong)
    0.75 <= similarity <= 0.92         -> update: the new text becomes the memory's new version
    otherwise                          -> create

Conflict strategies (per store, or per call): ``keep_existing`` (the new claim is kept in history,
superseded by the existing one), ``use_new`` (the new one supersedes the existing one), ``merge``
(one memory carries both, superseding the existing one), ``ask`` (both kept, the conflict left open
for :meth:`Engine.resolve`), ``temporal`` (the one whose valid time begins later wins). Resolution
supersedes; nothing is deleted.

An immutable memory is never merged, updated or superseded by the gate: input it would absorb is
skipped, and a contradiction of it is kept as the losing side.
"""

from __future__ import annotations

from typing import Final, Literal, NamedTuple

import msgspec

from eventmem.errors import InvalidInputError

# gate-3: the exact text of a memory whose valid time expired (invalidated) is new again, as a
# near duplicate of it already was; gate-2 reinforced the expired memory, which recall leaves
# out, so the restated fact was lost. Every other decision is gate-2's.
# gate-4: a text that differs from its nearest memory in a value (policies.values: a number, a
# time, a date, a name replaced, a negation, a change word, swapped arguments) is never a
# duplicate: it updates that memory (or is created beside an immutable one) where gate-3
# reinforced, skipped or merged it, so the new value was lost or mixed with the old; and a merge
# keeps one text without repeats (policies.merge). Every other decision is gate-3's.
# gate-5: a memory given no valid_from is valid from the day its text states (policies.stated) or
# from when it was recorded; gate-4 and before left its valid time open. Every other decision is
# gate-4's.
# gate-6: a text reporting done what an open plan of its namespace intends ("Renewed my passport
# today" / "I need to renew my passport by March 3", policies.plans) supersedes the plan, whose
# valid time ends; gate-5 and before left the plan open, so recall kept offering finished tasks.
# Every other decision is gate-5's.
# gate-7: a text stating a new value of a single-valued attribute of the user (or of someone
# named) that the namespace's latest memory of that attribute states otherwise supersedes it
# (policies.facts: "We just moved to Denver" / "User lives in Boston", "Decided to become
# vegetarian" / "I'm keto"), the conflict strategy deciding as for any contradiction; and the
# exact text of an older value restated after it changed is news, not a repeat. gate-6 and
# before left both active (only a contradiction the clause grammar parsed superseded). Every
# other decision is gate-6's.
GATE_7: Final = "gate-7"
# gate-8: a correction ("actually", "should be", "was wrong": policies.category) that the gate
# would store as new supersedes the nearest memory it corrects: at least
# ``correction_similarity`` similar and differing from it in a value (policies.values).
# gate-7 and before kept both. Every other decision is gate-7's.
GATE_8: Final = "gate-8"
# gate-9: a reschedule ("... is now on Wednesday", "was rescheduled to Tuesday") of an
# appointment or departure supersedes its latest value even once that value's day has passed
# (expired): the earlier day was moved, not kept, and belongs in history as replaced, until its
# own end; gate-8 and before left it expired, so no valid_at recall could return it. Whose the
# passed appointment is reads names the memories show to be the user's (as recall does): it
# is no longer current, so replacing it hides nothing a current question asks for. (Inferred
# names for every gate-7 supersession were measured and not taken: mc-dev current acc@1 fell
# 0.817 -> 0.793.) Every other decision is gate-8's.
GATE_9: Final = "gate-9"
# gate-10: the search for the memories stating an attribute uses every word the fact reader
# takes for it ("the user resides in Leipzig" is a residence, and is now found as one, so "I
# moved to Osaka" replaces it; gate-9 and before searched without "reside", "employed",
# "occupation"..., and kept both). Every other decision is gate-9's.
GATE_10: Final = "gate-10"
# gate-11: a report closes a plan only on words of its own sentence matching the plan's object
# in the plan's own sentence (policies.plans.completes, one_sentence): gate-10 and before read
# both to the end of the text, so "... Jonas thinks it's way too long" closed "I want to save
# 1500 dollars for yoga gear by January. Quentin thinks it's way too long". Every other decision
# is gate-10's.
GATE_11: Final = "gate-11"
# gate-12: the write gate reads what a text says about whom with the fact reader's second
# edition (policies.facts.EDITION): a statement behind a correction marker ("Sorry, I misspoke
# earlier, I work at Globex"), a he/she sentence as about the person the sentence before names
# ("Caught up with Dana. She moved to Lyon."), and each attribute in more of the words English
# says it in ("Home for me is Lyon", "on the payroll at Globex", "X over Y any day"); so such a
# new value supersedes the old one where gate-11 kept both. The same edition takes a name in
# any Latin, Greek or Cyrillic spelling ("Zoë", "Joaquín", "Ana-Sofía"; policies.facts.NAME) as
# a name: gate-11 read "Joaquín moved to Lyon" as a sentence with no subject, so as the user's
# own move, which superseded the user's residence; a modal that is also a name, before a finite
# verb ("Will moved to Oslo"), is a name; a value word may open with any letter ("Łódź",
# policies.facts.values_of); an attribute's vocabulary is matched without accents ("I bought a
# Citroën C3" is a car); and something kept with a name of its own is a pet ("a bearded dragon
# named Dottie"). A correction that names the value it takes back ("it's Friday, not Monday")
# supersedes the latest memory stating that value (policies.corrections); a report of a plan
# done in the passive or the causative ("The passport is renewed", "Got the car registration
# renewed") closes it (policies.plans); and a report of a plan done that the gate would make an
# update of the plan ("Theo renewed the car registration" after "Theo has to renew the car
# registration by March 22", a close neighbour under a semantic embedder) is created and closes
# the plan, as a repeat or a merge of it already was (an update carried the plan on, kind and
# all, so a to-do question got the report as an open plan). Every other decision is gate-11's,
# and an item recorded by gate-11 or before is read as it was decided (facts.EDITION_1: names in
# ASCII letters, none of the second edition's readings).
GATE_12: Final = "gate-12"
# gate-13: a correction that supersedes what it corrects (gate-8's value difference, gate-12's
# value taken back) is created as a new version of it: with its kind, and at least its
# importance and stability, as an update is. "No wait, I meant 5pm, not 8am" says nothing of
# what 5pm is; the classifier filed it as short-lived context, which decayed away within weeks
# while the slip it replaced had been a lasting fact. It reads with the fact reader's third
# edition (policies.facts.EDITION: a job left by giving notice, "Handed in my notice at Globex,
# I'm with Hooli now", is a change of employer; "5 cacti" and "another cactus" count one thing;
# "Had to push the podiatrist to Friday" moves the podiatrist appointment; a residence permit is
# no residence) and classifies with classify-5, which reads that edition. Every other decision
# is gate-12's, and an item recorded by gate-12 is read with the second edition, as decided.
GATE_13: Final = "gate-13"
# gate-14: reads with the fact reader's fourth edition (policies.facts.EDITION: "left Globex for
# Initech Inc." is a change of employer, "I'm a air traffic controller at X" names the
# employer, an abbreviation's full stop ends no sentence, "Shellfish gives me hives" is the
# speaker's allergy) and classifies with classify-6, which reads that edition; a correction
# may take back a value spelled in any letters or with "&" ("it's Windhoek, not Łódź", "not
# Ironwood & Co.": policies.corrections). Every other decision is gate-13's, and an item
# recorded by gate-13 is read with the third edition, as decided.
GATE_14: Final = "gate-14"
# gate-15: reads with the fact reader's fifth edition (policies.facts.EDITION: "I'm a actuary
# now" and "They made me air traffic controller" name a title, "Oscar's son Leo is 9" is Leo's
# age, "Meet Miss Marple, our new border collie!" the speaker's pet, "Caught up with Will. He
# eats macrobiotic." Will's diet, "Sana called. Oops, I got that wrong. He moved to Sapporo"
# Sana's home) and classifies with classify-7, which reads that edition; a correction may take
# back a time with its minutes ("No wait, I meant 9:10am, not 13:50": policies.corrections),
# which gate-14 read as no value, so the slip stood beside its correction; a plan's "he" or
# "she" after a sentence naming whom the speaker met is that person ("Had lunch with Olga. He
# has to submit the abstract", which "User submitted their abstract" closes: policies.plans),
# where gate-14 took it for someone else's, never closed by the user; and a plan's date without
# a year passed less than a month ago is this year's, a deadline missed ("by March 27" said on
# April 1: policies.timebound), where gate-14 took it for next year's and kept the plan open a
# year. Every other decision is gate-14's, and an item recorded by gate-14 is read with the
# fourth edition, as decided.
GATE_15: Final = "gate-15"
# gate-16: reads with the fact reader's sixth edition (policies.facts.EDITION: "I accepted an
# offer from Initech" and "Initech hired me" name the user's employer, "I got the paramedic job"
# a title, "My new address is in Porto" and "Home is Porto now" a home, "I'm down to one bike" a
# count, "Physio is now Friday instead of Tuesday" the physio's day) and classifies with
# classify-8, which reads that edition; hears a correction after an interjection ("Oh wait,
# it's Initech, not Globex": policies.corrections); and closes a plan the speaker said they
# were going to do ("I'm planning to repaint the bedroom": policies.plans), which gate-15 took
# for someone else's. Every other decision is gate-15's, and an item recorded by gate-15 is
# read with the fifth edition, as decided.
GATE_16: Final = "gate-16"
# gate-17: reads with the fact reader's seventh edition (policies.facts.EDITION: "User moved
# house to Nantes" a home, "Lately I like rock more than jazz" a preference, "X let me go, but Y
# took me on" the speaker's employer, "Isla turned three" an age, "They've changed the Leeds
# train to 8:25" the speaker's departure, "I bought a gravel bike, so I have 3 bikes now" a
# count of bikes, "Finn is a teenager now" no job) and classifies with classify-9, which reads
# that edition; and closes a plan to get something done by its participle ("I need to get the
# car serviced", then "The car's been serviced": policies.plans). Every other decision is
# gate-16's, and an item recorded by gate-16 is read with the sixth edition, as decided.
GATE_17: Final = "gate-17"
# gate-18: a new text never replaces a memory for part of what that memory says. Where a
# contradiction would supersede it for the new text (the strategy picking the new side), or
# an update would make the new text its next version, and the memory states an attribute the
# new text restates and another the new text leaves out (policies.facts.says_more: "I live in
# Boston and work at Google", then "I moved to Denver"), the new text is created beside it
# (rule ``says_more``): recall puts the newest value of the restated attribute first, and the
# rest stays current. gate-17 superseded it, and "Where do I work?" found nothing. Every other
# decision is gate-17's; it reads as gate-17 does.
GATE_18: Final = "gate-18"
# gate-19: reads with the fact reader's eighth edition (policies.facts.EDITION: "Bosch onboarded
# me" the speaker's employer, "Paper books have won me back" the speaker's preference, "signed
# the separation papers" a relationship, "Tariq celebrated turning fifteen" and "Forty-two as of
# this morning" ages, "SBB shifted my Lucerne train to 15:35" a departure, "The dental surgery
# had a cancellation, so I'm going in Monday instead" the dentist appointment) and classifies
# with classify-10, which reads that edition; and a memory naming what adds up (pets, family)
# says more than a new text that does not name them (policies.facts.says_more: "I have 2 cats,
# Pansit and Ube", then "We adopted a kitten, so 3 cats now": gate-18 replaced the first for the
# count, and the names were lost). Every other decision is gate-18's, and an item recorded by
# gate-18 is read with the seventh edition, as decided.
GATE_19: Final = "gate-19"
# gate-20: reads with the fact reader's ninth edition (policies.facts.EDITION: "Dangote bumped
# me up to finance manager" a title, "I'm on the 7:48 instead" a departure, "We moved south to
# Bodo" a home, "The hospital moved my blood test to Thursday" an appointment; "I miss the
# stalls from when I lived in Kampala" and "I used to work at Initech" no current home or job,
# where gate-19 replaced the current one with them) and classifies with classify-11, which
# reads that edition; and a memory with a clause holding values the new text leaves untouched
# says more than it (policies.facts.keeps_apart: "My flight to Lagos leaves at 08:55 and I'm
# in seat 23A", then "Sorry, I misread the ticket: the Lagos flight leaves at 09:55": gate-19
# replaced the first for the time, and the seat was lost). Every other decision is gate-19's,
# and an item recorded by gate-19 is read with the eighth edition, as decided.
GATE_20: Final = "gate-20"
# gate-21: reads with the fact reader's tenth edition (policies.facts.EDITION: "I didn't take the
# job at Saffron Pay after all" and "If I got the job at Nordlys I'd ..." no job, where gate-20
# replaced the current one with them; "Perth's been great but we're Adelaide-based now" the
# speaker's home, "Our son Tariq arrived on Sunday" one child more) and classifies with
# classify-12, which reads that edition. Every other decision is gate-20's, and an item recorded
# by gate-20 is read with the ninth edition, as decided.
GATE_VERSION: Final = "gate-21"
GATE_6: Final = "gate-6"
GATE_5: Final = "gate-5"
GATE_4: Final = "gate-4"
GATE_3: Final = "gate-3"
GATE_2: Final = "gate-2"
# The versions before gate-4, which neither look for a value difference nor merge without repeats.
BEFORE_VALUES: Final = frozenset({GATE_2, GATE_3})
# The versions that left a memory's valid time open when the caller gave none.
OPEN_VALID_FROM: Final = frozenset({GATE_2, GATE_3, GATE_4})
# The versions before gate-6, which close no plan.
BEFORE_PLANS: Final = frozenset({GATE_2, GATE_3, GATE_4, GATE_5})
# The versions before gate-7, which read no attribute of a person.
BEFORE_FACTS: Final = frozenset({GATE_2, GATE_3, GATE_4, GATE_5, GATE_6})
# The versions before gate-8, which let no correction supersede what it corrects.
BEFORE_CORRECTIONS: Final = frozenset({GATE_2, GATE_3, GATE_4, GATE_5, GATE_6, GATE_7})
# The versions before gate-9: declared names only, and no reschedule of a passed appointment.
BEFORE_RESCHEDULES: Final = BEFORE_CORRECTIONS | {GATE_8}
# The versions before gate-10, which searched for an attribute with fewer of its words.
BEFORE_READER_WORDS: Final = BEFORE_RESCHEDULES | {GATE_9}
# The versions before gate-11, which matched a plan's object across sentences.
BEFORE_PLAN_SENTENCES: Final = BEFORE_READER_WORDS | {GATE_10}
# The versions before gate-12, which read a text with the fact reader's first edition...
BEFORE_PHRASINGS: Final = BEFORE_PLAN_SENTENCES | {GATE_11}
# ... and let a report of a plan done update the plan.
BEFORE_DONE_UPDATES: Final = BEFORE_PHRASINGS
# The versions before gate-13, which classified a correction on its own words.
BEFORE_CORRECTION_KINDS: Final = BEFORE_PHRASINGS | {GATE_12}
# The versions before gate-15, which read a plan's date without a year, passed days ago, as next
# year's (policies.timebound).
BEFORE_OVERDUE: Final = BEFORE_CORRECTION_KINDS | {GATE_13, GATE_14}
# The versions before gate-18, which replaced a memory for part of what it says.
BEFORE_PARTS: Final = BEFORE_OVERDUE | {GATE_15, GATE_16, GATE_17}
# The versions before gate-19, for which names said of what adds up were nothing more.
BEFORE_NAMES: Final = BEFORE_PARTS | {GATE_18}
# The versions before gate-20, for which only attributes were what a memory says more.
BEFORE_CLAUSES: Final = BEFORE_NAMES | {GATE_19}

GateMode = Literal["tiered", "prediction_error", "exact"]
Strategy = Literal["keep_existing", "use_new", "merge", "ask", "temporal"]
STRATEGIES: Final[tuple[str, ...]] = Strategy.__args__  # type: ignore[attr-defined]
GateAction = Literal["create", "reinforce", "merge", "skip", "update", "conflict"]


class GateParams(msgspec.Struct, frozen=True, kw_only=True):
    """The gate's mode and thresholds, the default conflict strategy, and how candidate
    neighbours and links are found; an unknown mode or strategy is refused."""

    mode: GateMode = "tiered"
    duplicate: float = 0.95  # tiered: at or above, a semantic duplicate
    near_duplicate: float = 0.85  # tiered: at or above (below duplicate), a near duplicate
    pe_reinforce: float = 0.92  # prediction_error: above, reinforce
    pe_update: float = 0.75  # prediction_error: at or above (up to pe_reinforce), update
    # A contradiction is only looked for among neighbours at least this similar: below it the two
    # texts are rarely about the same thing, and the check costs time on every write.
    conflict_similarity: float = 0.2
    conflict_neighbours: int = 5  # how many of the nearest memories are checked for one
    strategy: Strategy = "temporal"
    # Candidate neighbours: the namespace's most recent memories, plus those sharing the text's
    # rarest terms. A term in more than ``max_term_df`` memories is not rare: it finds no
    # candidates, which bounds the work per write to rare_terms x max_term_df rows.
    window: int = 1_024
    rare_terms: int = 4
    max_term_df: int = 64
    # Links: a created memory is related_to its nearest few memories at least this similar.
    link_similarity: float = 0.5
    max_links: int = 3
    elaborates_similarity: float = 0.7  # below it, holding the other's words is a coincidence
    # gate-8: a correction supersedes its nearest neighbour this similar that it differs from
    # in a value (below it the two are rarely about the same thing).
    correction_similarity: float = 0.5
    correction_neighbours: int = 3  # how many of the nearest memories a correction looks at
    # gate-12: a correction naming the value it takes back ("..., not Monday") looks for it in
    # this many of the namespace's latest memories (what was just said, not last month's).
    correction_recent: int = 5

    def __post_init__(self) -> None:
        if self.strategy not in STRATEGIES:
            raise InvalidInputError(f"conflict strategy {self.strategy!r} is not one of "
                                    f"{', '.join(STRATEGIES)}")
        if self.mode not in ("tiered", "prediction_error", "exact"):
            raise InvalidInputError(f"gate mode {self.mode!r} is not tiered, prediction_error "
                                    "or exact")


class Neighbour(NamedTuple):
    """A memory a new text is compared with: its cosine similarity to the text, and whether it is
    immutable (never merged into or updated)."""

    memory_id: str
    similarity: float
    immutable: bool = False


class GateDecision(NamedTuple):
    """The gate's decision for one text: the action, the rule that chose it, the neighbour it
    concerns (if any) with its similarity, and the gate version that decided."""

    action: GateAction
    rule: str
    neighbour: str | None = None
    similarity: float = 0.0
    policy: str = GATE_VERSION


def decide(
    exact: str | None,
    nearest: Neighbour | None,
    *,
    adds_information: bool,
    contradicted: Neighbour | None,
    params: GateParams,
    value: str | None = None,
) -> GateDecision:
    """The gate's decision for one new text.

    ``exact``: the memory holding the same normalized text, if any. ``nearest``: the most similar
    eligible memory. ``adds_information``: whether the new text says something ``nearest`` does
    not (only read for near duplicates). ``contradicted``: the neighbour it contradicts, if any.
    ``value``: the kind of value in which the new text differs from ``nearest``
    (:func:`eventmem.policies.values.value_difference`), if any: such a text is news, never a
    duplicate, so where it would be reinforced, skipped or merged it updates ``nearest`` (the old
    value stays in history, valid until the new one begins), or is created beside an immutable
    one; the rule names the value (``value_number``...).
    """
    decision = _decide(exact, nearest, adds_information=adds_information,
                       contradicted=contradicted, params=params)
    if value is None or decision.rule == "exact_hash" or nearest is None \
            or decision.action not in ("reinforce", "skip", "merge"):
        return decision
    if nearest.immutable:
        return GateDecision("create", f"value_{value}", nearest.memory_id, nearest.similarity)
    return GateDecision("update", f"value_{value}", nearest.memory_id, nearest.similarity)


def _decide(
    exact: str | None,
    nearest: Neighbour | None,
    *,
    adds_information: bool,
    contradicted: Neighbour | None,
    params: GateParams,
) -> GateDecision:
    if exact is not None:
        return GateDecision("reinforce", "exact_hash", exact, 1.0)
    if params.mode == "exact":
        sim = 0.0 if nearest is None else nearest.similarity
        return GateDecision("create", "new", None if nearest is None else nearest.memory_id, sim)
    if contradicted is not None:
        return GateDecision("conflict", "contradiction", contradicted.memory_id,
                            contradicted.similarity)
    if nearest is None:
        return GateDecision("create", "new")
    sim, neighbour = nearest.similarity, nearest.memory_id
    if params.mode == "tiered":
        if sim >= params.duplicate:
            return GateDecision("reinforce", "semantic_duplicate", neighbour, sim)
        if sim >= params.near_duplicate:
            if adds_information and not nearest.immutable:
                return GateDecision("merge", "near_duplicate_merge", neighbour, sim)
            rule = "near_duplicate_skip" if not adds_information else "immutable_neighbour"
            return GateDecision("skip", rule, neighbour, sim)
    else:
        if sim > params.pe_reinforce:
            return GateDecision("reinforce", "pe_reinforce", neighbour, sim)
        if sim >= params.pe_update:
            if nearest.immutable:
                return GateDecision("skip", "immutable_neighbour", neighbour, sim)
            return GateDecision("update", "pe_update", neighbour, sim)
    return GateDecision("create", "new", neighbour, sim)


class Resolution(NamedTuple):
    """The side of a conflict a strategy keeps (``none``: both, the conflict left open), and the
    rule that decided."""

    winner: Literal["existing", "new", "merged", "none"]  # "none": both kept, left open
    rule: str


def resolve(strategy: Strategy, *, existing_valid_from: int, new_valid_from: int,
            existing_immutable: bool) -> Resolution:
    """Which side of a conflict wins under ``strategy``. Valid-from times default to when each
    was recorded; ``temporal`` keeps the existing memory only when the new one's valid time
    begins strictly earlier (a late report of an older fact)."""
    if existing_immutable:
        return Resolution("existing", "conflict_immutable")
    if strategy == "ask":
        return Resolution("none", "conflict_ask")
    if strategy == "keep_existing":
        return Resolution("existing", "conflict_keep_existing")
    if strategy == "use_new":
        return Resolution("new", "conflict_use_new")
    if strategy == "merge":
        return Resolution("merged", "conflict_merge")
    if new_valid_from < existing_valid_from:
        return Resolution("existing", "conflict_temporal")
    return Resolution("new", "conflict_temporal")
