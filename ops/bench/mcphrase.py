"""A rephrased copy of the mc-dev split: the same personas, facts and timelines, worded otherwise.

    python -m ops.bench.mcphrase --out DIR [--seed N] [--data DIR]

The memory-correctness benchmark (``ops/bench/mc.py``) is scored on a held-out split with "partly
other phrasings"; this copy measures how much of the dev figure rests on dev's own templates.
Every statement about a fact, and every recall question, is written anew from its structured
fields (``kind``, ``fact_type``, ``value``, the fact's ``params``, the persona's name, the dates),
never by editing dev's sentence, with paraphrase families chosen per statement from ``--seed``:

- **corrections** of what was just said: a slip naming a wrong value (``kind: "retracted"``, no
  fact: the value it names was never true) said seconds before the true statement, which is then
  worded as a correction ("Sorry, I misspoke earlier, I work at X", "Correction: ...", "No
  wait, ..., not Y", "Actually, scratch that: it's Friday, not Monday");
- **changes stated indirectly** ("We finally settled into our new place in Lyon", "Started a new
  role at X last week", "Gave up meat, I'm vegetarian now", "Got rid of the Civic, driving a Model
  3 now");
- **third person with pronouns**: the fact said of the name and followed by a pronoun sentence,
  or said of a pronoun after a sentence that names the person ("Caught up with Dana. She moved to
  Denver.");
- **extraction-style variants** ("The user's current city is Denver", "User: lives in Denver");
- **dates in other forms**, only where dev's statement names one and always the same day as its
  ``valid_from`` ("on 3/5", "on the 5th of March", "yesterday", "two days ago", "last Tuesday",
  "since Monday");
- **questions worded otherwise** ("Which city am I living in these days?", "Remind me where I
  work", "Where did I live back in March?" when the answer held all March, "Anything left on my
  plate?").

The gold stays consistent: every value appears verbatim in the texts that assert it (and the
values an ``also`` lists), facts and their versions are dev's, and a slip's wrong value is one no
fact of the persona ever takes. Distractors, assistant turns and the ``lost`` checks are kept as
they are. Deterministic: the same data and seed give the same files (``random.Random`` seeded
with a string per statement). Uses only the standard library and the benchmark helpers.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from ops.bench.common import read_jsonl, utc_time
from ops.bench.mc import resolve_data_dir

# A statement kind for the slip a correction takes back: it asserts no fact.
RETRACTED = "retracted"
# How often a statement that can be corrected is said as a slip and its correction.
CORRECTION_RATE = 0.25
# Fact types whose wrong value can be any other value of the type without being one of the
# fact's own versions (a count or an age would often be an earlier or later version).
CORRECTABLE = frozenset({"residence", "employer", "title", "diet", "car", "phone", "appointment",
                         "departure", "hobby", "hometown", "allergy"})
STATE_KINDS = frozenset({"initial", "restate", "stable"})
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December")
NUMBER_WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}

# -- statement families ---------------------------------------------------------------------------
# (fact_type, mode) -> style -> templates. Modes: "state" (what holds), "change" (a new value),
# "end" (a pet's death), "plan" and "done". Slots: {v} the value, {old} the value before it, {S}
# the subject in the third person (a name or a pronoun) and {Ss} its possessive, and the fact's
# params ({a}, {b}, {obj}, {objs}, {c}, {crel}, {appt}, {dest}, {mode}, {rel}, {species},
# {species2}, {verb}, {verbed}, {due}, {title}). Third-person verbs agree with a singular subject.

S = dict[str, tuple[str, ...]]

FAMILIES: dict[tuple[str, str], S] = {
    ("residence", "state"): {
        "first": ("Home for me is {v} these days.", "I've been living in {v} for a while now.",
                  "These days I call {v} home."),
        "third": ("{S} is living in {v} these days.", "{S} calls {v} home now."),
        "extract": ("The user's current city is {v}", "User: lives in {v}",
                    "User's city of residence: {v}")},
    ("residence", "change"): {
        "first": ("We finally settled into our new place in {v}.",
                  "Just finished unpacking in {v}, it's home now.",
                  "Packed up and relocated from {old} to {v}."),
        "third": ("{S} packed up and relocated to {v}.",
                  "{S} has settled into a new place in {v}."),
        "extract": ("User relocated to {v}", "User: now based in {v}",
                    "The user's city of residence changed to {v}")},
    ("employer", "state"): {
        "first": ("I'm on the payroll at {v}.", "My employer is {v}.", "I'm employed by {v}."),
        "third": ("{S} is employed by {v}.", "{Ss} employer is {v}."),
        "extract": ("The user's employer is {v}", "User: works for {v}",
                    "User is employed at {v}")},
    ("employer", "change"): {
        "first": ("Started a new role at {v} last week.", "First week at {v} done!",
                  "Handed in my notice at {old}, I'm with {v} now."),
        "third": ("{S} started a new job at {v}.", "{S} left {old} for {v}."),
        "extract": ("User started working at {v}", "User: employer changed to {v}",
                    "The user's new employer is {v}")},
    ("employer+title", "state"): {
        "first": ("I'm a {title} at {v}.", "My job: {title}, at {v}."),
        "third": ("{S} is a {title} at {v}.",),
        "extract": ("User is employed at {v} as a {title}", "User: {title} at {v}")},
    ("title", "state"): {
        "first": ("My role is {v}.", "I'm a {v} by trade.", "By day I'm a {v}."),
        "third": ("{S} is a {v} by trade.", "{Ss} role is {v}."),
        "extract": ("The user's occupation is {v}", "User: job title {v}",
                    "User is employed as a {v}")},
    ("title", "change"): {
        "first": ("I'm a {v} now.", "Moved up to {v} this week.",
                  "They made me {v}, so long {old}."),
        "third": ("{S} was made {v}.", "{S} is a {v} now."),
        "extract": ("User was promoted to {v}", "User: role changed to {v}",
                    "The user's occupation is now {v}")},
    ("pref", "state"): {
        "first": ("Given the choice, {v} for me.", "Honestly it's {v}, always.",
                  "I'd take {v} any day."),
        "third": ("{S} would take {v} any day.", "{S} likes {v}."),
        "extract": ("User favours {v}", "User preference: {v}")},
    ("pref", "change"): {
        "first": ("I've come around: {v} for me these days.",
                  "Changed my mind, I'd take {v} now."),
        "third": ("{S} changed {Sp} mind and likes {v} now.",),
        "extract": ("User now favours {v}", "User preference changed: {v}")},
    ("count", "state"): {
        "first": ("There are {v} in my garage.", "I've collected {v} so far.",
                  "I have {v} at home."),
        "third": ("{S} has {v} at home.", "{S} keeps {v} in the garage."),
        "extract": ("User has {v}", "User: owns {v}", "The user's collection: {v}")},
    ("count", "change"): {
        "first": ("Counted again, I'm at {v} now.", "The collection is up to {v} these days."),
        "third": ("{S} is up to {v} now.",),
        "extract": ("User now has {v}", "User: owns {v} now")},
    ("child_age", "state"): {
        "first": ("{c}, my {crel}, is {v}.", "Our {crel} {c} is {v}."),
        "third": ("{Ss} {crel} {c} is {v}.",),
        "extract": ("The user's {crel} {c} is {v}", "User: {crel} {c}, {v}")},
    ("child_age", "change"): {
        "first": ("Big day, {c} is {v} as of today!", "My {crel} {c} just turned {v}."),
        "third": ("{Ss} {crel} {c} just turned {v}.",),
        "extract": ("User's {crel} {c} is now {v}", "User: {crel} {c} turned {v}")},
    ("appointment", "state"): {
        "first": ("I'm seeing the {appt} on {v}.", "Booked the {appt} for {v}."),
        "third": ("{S} is seeing the {appt} on {v}.",),
        "extract": ("User: {appt} appointment on {v}", "The user's {appt} appointment is {v}")},
    ("appointment", "change"): {
        "first": ("The {appt} pushed me to {v}.", "Had to move the {appt} to {v}.",
                  "The {appt} switched my slot from {old} to {v}."),
        "third": ("{Ss} {appt} appointment was pushed to {v}.",),
        "extract": ("User's {appt} appointment rescheduled to {v}",
                    "User: {appt} appointment now {v}")},
    ("departure", "state"): {
        "first": ("My {mode} to {dest} takes off at {v}.", "I fly out to {dest} at {v}."),
        "third": ("{Ss} {mode} to {dest} takes off at {v}.",),
        "extract": ("User: {mode} to {dest} at {v}", "The user's {mode} to {dest} leaves at {v}")},
    ("departure", "change"): {
        "first": ("The airline changed my {mode} to {dest}, I now leave at {v}.",
                  "New departure time for {dest}: {v}."),
        "third": ("{Ss} {mode} to {dest} now leaves at {v}.",),
        "extract": ("User's {mode} to {dest} rescheduled to {v}",
                    "User: {mode} to {dest} now at {v}")},
    ("relationship", "state"): {
        "first": ("I'm {v} right now.", "Right now I'm {v}."),
        "third": ("{S} is {v} right now.",),
        "extract": ("User relationship status: {v}", "User: {v}")},
    ("relationship", "change"): {
        "first": ("Update on my love life: I'm {v} now.", "Things are different now, I'm {v}."),
        "third": ("{S} is {v} now.",),
        "extract": ("User's relationship status changed: {v}", "User: now {v}")},
    ("pet", "state"): {
        "first": ("Our {species} is called {v}.", "My {species}, {v}, keeps me busy."),
        "third": ("{Ss} {species} is called {v}.",),
        "extract": ("The user's pet is a {species} called {v}", "User: pet {species} named {v}")},
    ("pet", "change"): {
        "first": ("Brought home a {species2}, we named it {v}.",
                  "Meet {v}, our new {species2}!"),
        "third": ("{S} brought home a {species2} called {v}.",),
        "extract": ("User got a new {species2} named {v}", "User: new pet {species2} {v}")},
    ("pet", "end"): {
        "first": ("We lost {old} this week. Miss that {species} so much.",),
        "third": ("{Ss} {species} {old} died this week.",),
        "extract": ("User's pet {old} died",)},
    ("diet", "state"): {
        "first": ("I eat {v}.", "My diet is {v}."),
        "third": ("{S} eats {v}.", "{Ss} diet is {v}."),
        "extract": ("The user's diet is {v}", "User: diet {v}")},
    ("diet", "change"): {
        "first": ("Gave up my old habits, I'm {v} now.", "Switched to a {v} diet this month.",
                  "Went {v}, no looking back."),
        "third": ("{S} went {v}.", "{S} switched to a {v} diet."),
        "extract": ("User switched to a {v} diet", "User: diet changed to {v}")},
    ("car", "state"): {
        "first": ("My car is a {v}.", "I get around in a {v}."),
        "third": ("{S} gets around in a {v}.", "{Ss} car is a {v}."),
        "extract": ("The user's car is a {v}", "User: car {v}")},
    ("car", "change"): {
        "first": ("Got rid of the {old}, driving a {v} now.", "Traded in my car for a {v}.",
                  "Picked up a {v} from the dealer."),
        "third": ("{S} traded in the {old} for a {v}.", "{S} is driving a {v} now."),
        "extract": ("User replaced their car with a {v}", "User: new car {v}")},
    ("phone", "state"): {
        "first": ("I use a {v}.", "My phone's a {v}."),
        "third": ("{S} uses a {v}.", "{Ss} phone is a {v}."),
        "extract": ("The user's phone is a {v}", "User: phone {v}")},
    ("phone", "change"): {
        "first": ("Upgraded my phone to a {v}.", "Switched from the {old} to a {v}.",
                  "Finally replaced my phone, it's a {v} now."),
        "third": ("{S} upgraded to a {v}.",),
        "extract": ("User upgraded their phone to a {v}", "User: phone now {v}")},
    ("hobby", "state"): {
        "first": ("In my free time I do {v}.", "Weekends are for {v}."),
        "third": ("{S} spends free time on {v}.",),
        "extract": ("The user's hobby is {v}", "User: hobby {v}")},
    ("hometown", "state"): {
        "first": ("I'm originally from {v}.", "{v} is where I was raised."),
        "third": ("{S} was raised in {v}.",),
        "extract": ("The user's hometown is {v}", "User: from {v} originally")},
    ("family", "state"): {
        "first": ("{v} is my {rel}.", "My {rel} goes by {v}."),
        "third": ("{Ss} {rel} is {v}.",),
        "extract": ("The user's {rel} is {v}", "User: {rel} named {v}")},
    ("allergy", "state"): {
        "first": ("I can't have {v}, I'm allergic.", "{v} give me a bad reaction."),
        "third": ("{S} is allergic to {v}.",),
        "extract": ("The user has an allergy to {v}", "User: allergic to {v}")},
    ("birthday", "state"): {
        "first": ("I was born on {v}.", "{v} is my birthday."),
        "third": ("{S} was born on {v}.",),
        "extract": ("The user's birthday is {v}", "User: born {v}")},
    ("plan", "plan"): {
        "first": ("Have to {verb} my {v} before {due}.",
                  "Don't let me forget: {verb} the {v} by {due}."),
        "third": ("{S} has to {verb} the {v} before {due}.",),
        "extract": ("User must {verb} their {v} by {due}", "User: to do, {verb} {v} by {due}")},
    ("plan", "done"): {
        "first": ("The {v} is {verbed}, finally.", "Got the {v} {verbed} today."),
        "third": ("{S} got the {v} {verbed}.",),
        "extract": ("User {verbed} their {v}", "User: {v} {verbed}")},
}

# Correction markers in front of a statement, and bare corrections that name only the value.
CORRECTION_LEADS = ("Sorry, I misspoke earlier, ", "Correction: ", "No wait, ",
                    "Actually, scratch that: ", "Oops, I got that wrong. ")
BARE_CORRECTIONS = ("Actually, scratch that: it's {v}, not {wrong}.",
                    "No wait, I meant {v}, not {wrong}.")
# After a third-person statement, a sentence about the same person by pronoun.
PRONOUN_AFTER = ("{P} seems happy about it.", "{P} told me this morning.",
                 "{P} is pleased.")
# Before a third-person statement said with a pronoun: a sentence that names the person.
NAME_BEFORE = ("Caught up with {N} today.", "{N} called earlier.", "Had lunch with {N}.")

# -- question families ----------------------------------------------------------------------------
# (type, fact_type) -> style -> templates; {N} the name, {D} a date phrase (past questions).

QUESTIONS: dict[tuple[str, str], S] = {
    ("current", "residence"): {
        "first": ("Which city am I living in these days?", "Remind me where I live.",
                  "Where am I based now?"),
        "third": ("Which city is {N} living in these days?", "Where is {N} based now?"),
        "extract": ("What is the user's current city?", "Where is the user based?")},
    ("current", "employer"): {
        "first": ("Remind me where I work.", "Who am I working for these days?"),
        "third": ("Who does {N} work for now?", "Which company is {N} at these days?"),
        "extract": ("What is the user's current employer?",)},
    ("current", "title"): {
        "first": ("What's my role at work these days?", "What's my current job title?"),
        "third": ("What is {N}'s role at work?", "What job does {N} have now?"),
        "extract": ("What is the user's current occupation?",)},
    ("current", "pref"): {
        "first": ("{q1} or {q2}: which do I like more these days?",),
        "third": ("Would {N} rather have {q1} or {q2}?",),
        "extract": ("Between {q1} and {q2}, which does the user favour?",)},
    ("current", "count"): {
        "first": ("How many {objs} have I got now?",),
        "third": ("How many {objs} does {N} own these days?",),
        "extract": ("What is the number of {objs} the user owns?",)},
    ("current", "child_age"): {
        "first": ("What age is my {crel} {c} now?", "How old's {c} these days?"),
        "third": ("How old is {N}'s {crel} {c} now?",),
        "extract": ("What is the age of the user's {crel} {c}?",)},
    ("current", "appointment"): {
        "first": ("What day did my {appt} appointment end up on?",
                  "When am I seeing the {appt}?"),
        "third": ("Which day is {N}'s {appt} appointment?",),
        "extract": ("On which day is the user's {appt} appointment?",)},
    ("current", "departure"): {
        "first": ("When do I leave for {dest}?", "What time does my {mode} to {dest} take off?"),
        "third": ("What time does {N}'s {mode} to {dest} take off?",),
        "extract": ("What is the departure time of the user's {mode} to {dest}?",)},
    ("current", "relationship"): {
        "first": ("Am I with anyone at the moment?", "Who am I dating these days?"),
        "third": ("Is {N} with someone right now?",),
        "extract": ("What is the user's relationship status now?",)},
    ("current", "pet"): {
        "first": ("What's the name of my pet now?", "What do I call my pet?"),
        "third": ("What's the name of {N}'s pet?",),
        "extract": ("What is the name of the user's pet?",)},
    ("current", "diet"): {
        "first": ("Which diet am I on these days?", "What am I eating these days, diet-wise?"),
        "third": ("Which diet is {N} on now?",),
        "extract": ("What diet does the user currently follow?",)},
    ("current", "car"): {
        "first": ("Which car do I have now?", "What am I driving these days?"),
        "third": ("What car is {N} driving these days?",),
        "extract": ("Which car does the user currently drive?",)},
    ("current", "phone"): {
        "first": ("What phone am I using now?", "Which phone do I have these days?"),
        "third": ("What phone has {N} got now?",),
        "extract": ("Which phone does the user currently use?",)},
    ("stable", "hobby"): {
        "first": ("What do I like doing in my free time?",),
        "third": ("How does {N} spend free time?",),
        "extract": ("What is the user's pastime?",)},
    ("stable", "hometown"): {
        "first": ("Where am I originally from?", "Which city did I grow up in?"),
        "third": ("Which city is {N} from?",),
        "extract": ("Where is the user's hometown?",)},
    ("stable", "family"): {
        "first": ("What's my {rel} called?", "Remind me of my {rel}'s name."),
        "third": ("What's the name of {N}'s {rel}?",),
        "extract": ("What is the name of the user's {rel}?",)},
    ("stable", "allergy"): {
        "first": ("Is there anything I'm allergic to?",),
        "third": ("Is {N} allergic to anything?",),
        "extract": ("What allergies does the user have?",)},
    ("stable", "birthday"): {
        "first": ("When's my birthday again?",),
        "third": ("When is {N}'s birthday?",),
        "extract": ("What is the user's date of birth?",)},
    ("plan", "plan"): {
        "first": ("Anything left on my plate?", "What's still on my to-do list?",
                  "Do I have anything due soon?"),
        "third": ("What does {N} still have to do?",),
        "extract": ("What tasks does the user still have open?",)},
    ("past", "residence"): {
        "first": ("Where did I live {D}?", "Which city was I living in {D}?"),
        "third": ("Where was {N} living {D}?",), "extract": ("Where was the user based {D}?",)},
    ("past", "employer"): {
        "first": ("Who was I working for {D}?",), "third": ("Who employed {N} {D}?",),
        "extract": ("What was the user's employer {D}?",)},
    ("past", "title"): {
        "first": ("What was my job title {D}?",), "third": ("What was {N}'s role {D}?",),
        "extract": ("What was the user's occupation {D}?",)},
    ("past", "pref"): {
        "first": ("Did I like {q1} or {q2} better {D}?",),
        "third": ("Did {N} like {q1} or {q2} better {D}?",),
        "extract": ("Which did the user favour {D}, {q1} or {q2}?",)},
    ("past", "count"): {
        "first": ("How many {objs} did I have {D}?",),
        "third": ("How many {objs} did {N} have {D}?",),
        "extract": ("What number of {objs} did the user own {D}?",)},
    ("past", "child_age"): {
        "first": ("What age was {c} {D}?",), "third": ("How old was {N}'s {crel} {c} {D}?",),
        "extract": ("What was the age of the user's {crel} {c} {D}?",)},
    ("past", "appointment"): {
        "first": ("Which day was my {appt} appointment set for {D}?",),
        "third": ("Which day was {N}'s {appt} appointment {D}?",),
        "extract": ("What day was the user's {appt} appointment {D}?",)},
    ("past", "departure"): {
        "first": ("What time was my {mode} to {dest} leaving {D}?",),
        "third": ("When was {N}'s {mode} to {dest} leaving {D}?",),
        "extract": ("What was the departure time of the user's {mode} {D}?",)},
    ("past", "relationship"): {
        "first": ("Was I with anyone {D}?",), "third": ("Was {N} with anyone {D}?",),
        "extract": ("What was the user's relationship status {D}?",)},
    ("past", "pet"): {
        "first": ("What was my pet's name {D}?",), "third": ("What was {N}'s pet called {D}?",),
        "extract": ("What was the name of the user's pet {D}?",)},
    ("past", "diet"): {
        "first": ("Which diet was I on {D}?",), "third": ("Which diet was {N} on {D}?",),
        "extract": ("What diet did the user follow {D}?",)},
    ("past", "car"): {
        "first": ("What was I driving {D}?",), "third": ("What was {N} driving {D}?",),
        "extract": ("Which car did the user drive {D}?",)},
    ("past", "phone"): {
        "first": ("Which phone was I using {D}?",), "third": ("Which phone did {N} use {D}?",),
        "extract": ("What phone did the user have {D}?",)},
}


@dataclass
class Persona:
    """What the rewriting of one persona needs: its name and pronoun, its facts by id, and the
    values a slip may name (values of the fact's type that none of the persona's facts takes)."""

    name: str
    pronoun: str  # "She" or "He", chosen per persona and seed
    facts: dict[str, dict[str, Any]]
    question_times: list[datetime]
    pools: dict[str, list[str]] = field(default_factory=dict)

    @property
    def possessive(self) -> str:
        return "Her" if self.pronoun == "She" else "His"


def rng_for(seed: int, key: str) -> random.Random:
    # A string seed is hashed with SHA-512 by random.seed: the same on every run and platform.
    return random.Random(f"mcphrase:{seed}:{key}")


def _ordinal(day: int) -> str:
    suffix = "th" if 11 <= day % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    return f"{day}{suffix}"


def date_phrase(at: datetime, day: datetime, mode: str, rng: random.Random) -> str:
    """A phrase naming the calendar day ``day`` as said at ``at``: absolute ("on 3/5", "on the 5th
    of March") or relative to ``at`` ("yesterday", "two days ago", "last Tuesday"); "since ..."
    or "as of ..." for a state, "on ..." for a change."""
    delta = (at.date() - day.date()).days
    weekday = WEEKDAYS[day.weekday()]
    month = MONTHS[day.month - 1]
    on = ("since" if rng.random() < 0.5 else "as of") if mode == "state" else "on"
    forms = [f"{on} {day.month}/{day.day}", f"{on} the {_ordinal(day.day)} of {month}",
             f"{on} {month} {_ordinal(day.day)}"]
    if delta == 0:
        forms.append("as of today" if mode == "state" else "earlier today")
    elif delta == 1:
        forms.append("since yesterday" if mode == "state" else "yesterday")
    elif 2 <= delta <= 6:
        if delta in NUMBER_WORDS and mode != "state":
            forms.append(f"{NUMBER_WORDS[delta]} days ago")
        forms.append(f"since {weekday}" if mode == "state" else f"last {weekday}")
    return rng.choice(forms)


def question_date(valid_at: datetime, month_whole: bool, rng: random.Random) -> str:
    """The date of a past question in another form; "back in March" only when the answer held
    the whole month (``month_whole``), so the month names one answer."""
    month = MONTHS[valid_at.month - 1]
    forms = [f"on the {_ordinal(valid_at.day)} of {month} {valid_at.year}",
             f"back on {month} {_ordinal(valid_at.day)}",
             f"on {valid_at.month}/{valid_at.day}/{valid_at.year}"]
    if month_whole:
        forms.append(f"back in {month}")
    return rng.choice(forms)


def month_whole(fact: Mapping[str, Any], valid_at: datetime) -> bool:
    """Whether no version of ``fact`` begins in ``valid_at``'s month, nor did the first begin
    after the month started (the answer was the same all month)."""
    starts = [utc_time(v["valid_from"]) for v in fact["versions"] if v.get("valid_from")]
    month_start = valid_at.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    return bool(starts) and min(starts) < month_start and not any(
        (s.year, s.month) == (valid_at.year, valid_at.month) for s in starts)


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _inner(text: str, template: str) -> str:
    """``text`` continuing a sentence: its first letter lower-cased unless it is a value, a name
    or "I"."""
    if text.startswith(("She ", "He ", "Her ", "His ")) or not (
            template.startswith("{") or text.startswith(("I ", "I'"))):
        return text[:1].lower() + text[1:]
    return text


def _slots(st: Mapping[str, Any], fact: Mapping[str, Any] | None, old: str | None,
           persona: Persona, subject: str) -> dict[str, str]:
    params = dict(fact["params"]) if fact else {}
    slots = {k: str(v) for k, v in params.items()}
    slots.update(v=str(st.get("value")), old=str(old), N=persona.name, P=persona.pronoun,
                 S=subject, Ss=f"{subject}'s" if subject == persona.name else persona.possessive,
                 Sp="her" if persona.pronoun == "She" else "his")
    if fact and fact["fact_type"] == "pet" and fact["versions"] \
            and st.get("value") not in (None, fact["versions"][0]["value"]):
        slots["species"] = slots.get("species2", "pet")  # the pet adopted after the first
    for also in st.get("also") or ():
        if also.get("fact_id") == "title":
            slots["title"] = str(also["value"])
    if fact and fact.get("deadline"):
        deadline = utc_time(fact["deadline"])
        slots["due"] = f"{MONTHS[deadline.month - 1]} {deadline.day}"
    return slots


def _mode(st: Mapping[str, Any]) -> str:
    kind = st["kind"]
    if kind in STATE_KINDS:
        return "state"
    return {"update": "change", "end": "end", "plan": "plan", "plan_done": "done"}[kind]


def _family(st: Mapping[str, Any], mode: str) -> S:
    fact_type = st["fact_type"]
    if fact_type == "employer" and mode == "state" and st.get("also"):
        fact_type = "employer+title"  # the sentence also states the title
    if fact_type == "child_age" and not st.get("also"):
        raise ValueError(f"{st['id']}: a child's age without the child's name")
    if mode == "change" and (fact_type, "change") not in FAMILIES:
        mode = "state"  # a stable fact restated as new: said as a state
    return FAMILIES[(fact_type, mode)]


def _say(template: str, slots: Mapping[str, str]) -> str:
    return _capital(template.format(**slots))


def rewrite_statement(st: dict[str, Any], persona: Persona, old: str | None, prev_at: datetime,
                      seed: int) -> list[dict[str, Any]]:
    """The statement(s) that replace ``st``: a distractor as it was; a fact worded from a family
    of its type and mode (its date, if dev named one, in another form; in the third person a
    pronoun before or after), or, now and then, a slip and its correction."""
    if st.get("fact_type") is None:
        return [st]
    rng = rng_for(seed, st["id"])
    mode = _mode(st)
    fact = persona.facts.get(st["fact_id"]) if st.get("fact_id") else None
    style = st["style"] if st["style"] in ("first", "third", "extract") else "first"
    family = _family(st, mode)
    by_pronoun = style == "third" and rng.random() < 0.5
    subject = persona.pronoun if by_pronoun else persona.name
    slots = _slots(st, fact, old, persona, subject)
    template = rng.choice(family[style])
    if "{old}" in template and old is None:
        template = family[style][0] if "{old}" not in family[style][0] else template
        if "{old}" in template:
            template = rng.choice(FAMILIES[(st["fact_type"], "state")][style])
    text = _say(template, slots)
    if st.get("valid_from"):
        day = date_phrase(utc_time(st["at"]), utc_time(st["valid_from"]), mode, rng)
        # An extraction-style memory carries its date at the end, a sentence at the start.
        text = f"{text.rstrip('.')} {day}" if style == "extract" else \
            f"{_capital(day)}, {_inner(text, template)}"
    before = after = ""
    if style == "third":
        if by_pronoun:
            before = f"{_say(rng.choice(NAME_BEFORE), slots)} "
        elif rng.random() < 0.5:
            after = f" {_say(rng.choice(PRONOUN_AFTER), slots)}"
    out = dict(st, text=f"{before}{text.rstrip('.')}.{after}" if after else f"{before}{text}")
    slip = _slip(st, persona, old, prev_at, mode, family, style, slots, rng)
    if slip is None:
        return [out]
    if "{old}" in template:  # a correction names the wrong value, not the one before
        template = rng.choice([t for t in family[style] if "{old}" not in t])
        text = _say(template, slots)
    wrong_text, wrong = slip
    at = utc_time(st["at"])
    retracted = {"id": f"{st['id']}-slip", "at": (at - timedelta(seconds=30)).isoformat(),
                 "text": wrong_text, "style": style, "fact_id": None, "value": None,
                 "kind": RETRACTED, "valid_from": None}
    if style == "first" and rng.random() < 0.3:
        corrected = rng.choice(BARE_CORRECTIONS).format(v=st["value"], wrong=wrong)
    else:
        lead = rng.choice(CORRECTION_LEADS)
        body = text.rstrip(".")
        if not lead.endswith(". ") and style != "extract":
            body = _inner(body, template)
        corrected = f"{before}{lead}{body}, not {wrong}."
    return [retracted, dict(out, text=corrected)]


def _slip(st: Mapping[str, Any], persona: Persona, old: str | None, prev_at: datetime,
          mode: str, family: S, style: str, slots: Mapping[str, str],
          rng: random.Random) -> tuple[str, str] | None:
    """A slip said just before ``st`` (its text and the wrong value it names), or None: only for
    an undated initial value or change of a correctable type whose slip would not fall before
    the previous statement or after a question of the persona."""
    draw = rng.random()
    if (st["kind"] not in ("initial", "update") or st["fact_type"] not in CORRECTABLE
            or st.get("valid_from") or st.get("also") or mode not in ("state", "change")
            or draw >= CORRECTION_RATE):
        return None
    at = utc_time(st["at"])
    slip_at = at - timedelta(seconds=30)
    if slip_at <= prev_at or any(slip_at <= t < at for t in persona.question_times):
        return None
    pool = persona.pools.get(st["fact_type"], [])
    if not pool:
        return None
    wrong = rng.choice(pool)
    templates = [t for t in family[style] if "{old}" not in t]
    # A slip said of a person names them: it has no sentence before it to take a pronoun from.
    name = persona.name
    text = _say(rng.choice(templates), dict(slots, v=wrong, S=name, Ss=f"{name}'s"))
    return text, wrong


def rewrite_question(q: dict[str, Any], persona: Persona, seed: int) -> dict[str, Any]:
    """``q`` worded from a family of its type and fact type (a past question's date in another
    form); a lost check, or a type with no family, as it was."""
    family = QUESTIONS.get((q["type"], q["fact_type"]))
    if family is None:
        return q
    rng = rng_for(seed, q["qid"])
    style = q["style"] if q["style"] in family else "first"
    fact = persona.facts.get(q["fact_id"])
    slots = {k: str(v) for k, v in (fact["params"] if fact else {}).items()}
    slots["N"] = persona.name
    if q["type"] == "past":
        valid_at = utc_time(q["valid_at"])
        slots["D"] = question_date(valid_at, fact is not None and month_whole(fact, valid_at), rng)
    try:
        text = _say(rng.choice(family[style]), slots)
    except KeyError:  # a slot this fact does not fill
        return q
    return dict(q, question=text)


def _pools(personas: Sequence[Mapping[str, Any]]) -> dict[str, list[str]]:
    values: dict[str, set[str]] = {}
    for p in personas:
        for fact in p["facts"]:
            for version in fact["versions"]:
                if version.get("value"):
                    values.setdefault(fact["fact_type"], set()).add(version["value"])
    return {k: sorted(v) for k, v in values.items()}


def _persona(p: Mapping[str, Any], questions: Sequence[Mapping[str, Any]],
             pools: Mapping[str, list[str]], seed: int) -> Persona:
    facts = {f["fact_id"]: f for f in p["facts"]}
    own = {str(v["value"]).lower() for f in p["facts"] for v in f["versions"] if v.get("value")}
    texts = " ".join(st["text"].lower() for st in p["statements"])
    # A slip names a value that no fact of the persona takes and no statement mentions, so it
    # is never gold and never matched by a question's expected or outdated value.
    persona_pools = {k: [v for v in vs if v.lower() not in own and v.lower() not in texts]
                     for k, vs in pools.items()}
    times = sorted(utc_time(q["at"]) for q in questions if q["namespace"] == p["namespace"])
    pronoun = "She" if rng_for(seed, p["namespace"]).random() < 0.5 else "He"
    return Persona(name=p["name"], pronoun=pronoun, facts=facts, question_times=times,
                   pools=persona_pools)


def rephrase(personas: Sequence[dict[str, Any]], questions: Sequence[dict[str, Any]],
             seed: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The rephrased personas and questions (same order, same ids; slips added beside the
    statements they precede)."""
    pools = _pools(personas)
    out_personas, out_questions = [], []
    by_ns: dict[str, Persona] = {}
    for p in personas:
        persona = _persona(p, questions, pools, seed)
        by_ns[p["namespace"]] = persona
        last: dict[str, str | None] = {}
        statements: list[dict[str, Any]] = []
        prev_at = datetime.min.replace(tzinfo=utc_time(p["start"]).tzinfo)
        for st in p["statements"]:
            fact_id = st.get("fact_id")
            old = last.get(fact_id) if fact_id else None
            statements.extend(rewrite_statement(st, persona, old, prev_at, seed))
            prev_at = utc_time(st["at"])
            if fact_id and st["kind"] in ("initial", "update", "end"):
                last[fact_id] = st.get("value")
        out_personas.append(dict(p, statements=statements))
    for q in questions:
        out_questions.append(rewrite_question(q, by_ns[q["namespace"]], seed))
    return out_personas, out_questions


README = """# Memory correctness over time: the dev split rephrased (seed {seed})

Written by `python -m ops.bench.mcphrase --seed {seed}` from `{source}`: the same 30 personas,
facts, timelines and questions as mc-dev, every statement about a fact and every recall question
worded anew from its structured fields with other paraphrase families (see the module's
docstring): corrections of a slip said just before ({slips} slips, `kind: "{retracted}"`, no
fact), changes stated indirectly, third person with pronouns, extraction-style variants, dates
in other forms (same day as dev's `valid_from`, only where dev had one), questions worded
otherwise. Distractors, assistant turns and lost checks are dev's. The files have dev's format
(see mc-dev's README) and run with `python -m ops.bench.mc --data THIS_FOLDER`.

{statements} statements, {questions} questions.
"""


def write(out: Path, personas: Sequence[Mapping[str, Any]],
          questions: Sequence[Mapping[str, Any]], *, seed: int, source: Path) -> None:
    """The rephrased split into ``out``: scenarios.jsonl, questions.jsonl and README.md."""
    out.mkdir(parents=True, exist_ok=True)
    for name, rows in (("scenarios.jsonl", personas), ("questions.jsonl", questions)):
        with open(out / name, "w", encoding="utf-8") as f:
            for row in rows:
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
    n_statements = sum(len(p["statements"]) for p in personas)
    slips = sum(st["kind"] == RETRACTED for p in personas for st in p["statements"])
    (out / "README.md").write_text(README.format(
        seed=seed, source=source, slips=slips, retracted=RETRACTED, statements=n_statements,
        questions=len(questions)), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ops.bench.mcphrase",
                                     description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--out", required=True, help="the folder to write the rephrased split to")
    parser.add_argument("--seed", type=int, default=1, help="which paraphrases (default 1)")
    parser.add_argument("--data", default=None, help="the dev split (default: mc's data folder)")
    args = parser.parse_args(argv)
    source = resolve_data_dir(args.data)
    personas = read_jsonl(source / "scenarios.jsonl")
    questions = read_jsonl(source / "questions.jsonl")
    new_personas, new_questions = rephrase(personas, questions, args.seed)
    write(Path(args.out), new_personas, new_questions, seed=args.seed, source=source)
    print(f"wrote {args.out} (seed {args.seed})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
