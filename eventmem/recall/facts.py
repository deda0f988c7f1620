"""The asked fact first: for a question about one attribute of the user (or of someone named),
the memories stating that attribute, the latest value on top.

Lexical and vector relevance cannot answer "Where do I live now?": "My friend Jake still lives in
Boston" shares more words with it than "Finally settled in Geneva after the move", and every
value the user ever had is as relevant as the current one. What answers it is the attribute:
:mod:`eventmem.policies.facts` reads the question's owner and attribute and each candidate's
facts; the memories that state that attribute of that owner are put first, the newest (by valid
time, else recorded time) on top. Recency decides only between memories about the same subject
and attribute, which is the one place where it means "current"; a recall at ``valid_at`` T sees
only what was valid at T (the eligibility), so the newest there is the value at T.

The candidates come from the namespace's BM25 index searched with the attribute's vocabulary and
the question's words, so a memory stating the attribute in words the question does not use is
found too ("What diet do I follow?" -> "Decided to become pescatarian"). Plans are left out
except for appointments and departures: a plan about the car is no answer to "What do I drive?".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Final, NamedTuple

from eventmem.policies import corrections, facts
from eventmem.policies.facts import OTHER, USER, Fact, Question
from eventmem.recall import channels as ch
from eventmem.recall import updates
from eventmem.recall.plan import Former, QueryPlan
from eventmem.text import hyponyms
from eventmem.text.lazyre import lazy_re
from eventmem.text.timeexpr import TimeRange
from eventmem.write import readings
from projections import Projections
from projections.state import MemoryRecord

# How many BM25 candidates the attribute's search reads; how many fact memories go on top.
_DEPTH: Final = 200
_ON_TOP: Final = 3
# How many of the namespace's newest memories a question about an attribute reads beside the
# attribute's search (see NamespaceFacts.stating).
_RECENT: Final = 100
# A name is the user's when at least this many memories state facts with it as the subject and
# none introduces it as someone else ("my friend Dana").
_NAME_EVIDENCE: Final = 3
_ALONE: Final = 0.5
# A declared name ("I'm Dana") outranks any count of memories about a name.
_DECLARED: Final = 1 << 30
# The source of the memories the dream cycle makes (clusters and category summaries).
DERIVED: Final = "consolidation"

Candidate = tuple[str, float, dict[str, float]]


Read = Callable[[Sequence[str]], list[str | None]]  # memory ids -> their texts
FactsOf = Callable[[str], tuple[Fact, ...]]  # a text -> its facts (facts.read, or a cache of it)


class SaidOf(NamedTuple):
    """What all the user said shows of one name (see :meth:`NamespaceFacts.said_of`)."""

    declared: bool  # some memory gives it as the user's own ("I'm Dana")
    introduced: bool  # some memory introduces it as someone else ("my friend Dana")
    # some memory gives it as the name of someone or something else ("My daughter is called
    # Victor", "We adopted a beagle named Sprout")
    named: bool
    facts: int  # memories stating a personal fact with it as the subject ("Dana moved to Oslo")
    subject: int  # memories with it as a sentence's subject ("Dana has to renew the passport")


class NamespaceFacts:
    """One namespace's memories read as facts, for one recall or one write: the memories a
    BM25 search for an attribute finds, and whether a name is the user's (each read once)."""

    def __init__(self, views: Projections, namespace: str, read: Read, allowed: ch.Allowed,
                 *, inferred_names: bool = True, names_from_all: bool = False,
                 recent: int = 0, successors: bool = False,
                 facts_of: FactsOf | None = None, edition: int = facts.EDITION) -> None:
        self.views, self.namespace, self.read, self.allowed = views, namespace, read, allowed
        # facts.read, remembered: every recall and every write item reads the facts of the same
        # stored texts again (whose a name is reads up to 200 memories per name).
        self.facts_of = facts_of or readings.read_with(edition)
        # The fact reader's edition names are read with (facts.owner_of): as ``facts_of`` reads
        # them; the write path reads an item recorded by gate-11 or before with the first
        # edition (ASCII names), as that gate did.
        self.edition = edition
        # Whether a name the memories only use as the user's counts (see is_user): enough to
        # order a recall, not to replace a fact (the write path takes declared names only).
        self.inferred_names = inferred_names
        # Whether is_user weighs a name by all the user said (recall), or only by the memories
        # ``allowed`` (the write path: its decisions must replay and audit as they were made).
        self.names_from_all = names_from_all
        # Recall reads more than the attribute's search finds (the write path reads what gate-12
        # read, so its decisions replay as they were made): the ``recent`` newest memories, and
        # (``successors``) the memories that replaced what the search finds (see stating()).
        self.recent, self.successors = recent, successors
        # The memories stating() added beyond the search: they answer, but are no evidence of
        # whose a name is (the names in the newest memories are whoever was talked about last).
        self.added: set[str] = set()
        self._names: dict[str, bool] = {}
        self._said: dict[str, SaidOf] = {}

    def stating(self, words: str, *, dated: bool = False
                ) -> dict[str, tuple[str, tuple[Fact, ...]]]:
        """The text and facts of the memories a BM25 search of the namespace for ``words``
        finds, by memory (in search order), leaving out what may not be returned, and plans
        unless the attribute is ``dated`` (an appointment or a departure is planned by
        nature).

        With ``recent``, the namespace's newest memories follow: an attribute is often stated
        in words no vocabulary holds ("I'm a radiographer now" is a job title by its noun
        alone), and the newest statement is the one a question about the present asks for.
        With ``successors``, a memory that replaced one the search finds and states no fact of
        its own answers for it: a correction often names only the value ("No wait, I meant
        5pm, not 8am" replaced "My flight to Lyon takes off at 8am"), and the gate that
        replaced the memory judged the two to be the same fact."""
        found = ch.lexical(self.views, self.namespace, [(words, 1.0)])
        wanted = self._wanted(dated)
        ids = [mid for mid, _ in ch.bm25(found, _DEPTH, self.allowed) if wanted(mid)]
        if self.recent:
            seen = set(ids)
            newest = [mid for mid in self._newest(found.ids) if mid not in seen and wanted(mid)]
            self.added.update(newest)
            ids += newest
        out = {mid: (text, self.facts_of(text))
               for mid, text in zip(ids, self.read(ids), strict=True) if text is not None}
        if self.successors:
            self._add_successors(found, out, wanted)
        return out

    def searched(self, words: str, *, dated: bool = False) -> dict[str, str]:
        """The texts of the memories :meth:`stating` finds by its BM25 search for ``words``
        (neither the newest nor the successors it may add), by memory in search order, without
        their facts: what a question that needs only the texts reads."""
        found = ch.lexical(self.views, self.namespace, [(words, 1.0)])
        wanted = self._wanted(dated)
        ids = [mid for mid, _ in ch.bm25(found, _DEPTH, self.allowed) if wanted(mid)]
        return {mid: text for mid, text in zip(ids, self.read(ids), strict=True)
                if text is not None}

    def _wanted(self, dated: bool) -> Callable[[str], bool]:
        """Whether a memory a search finds is read: plans only for a ``dated`` attribute."""
        memories = self.views.state.memories

        def wanted(memory_id: str) -> bool:
            return memories[memory_id].kind != "plan" or dated

        return wanted

    def _newest(self, ids: Sequence[str], allowed: ch.Allowed | None = None) -> list[str]:
        """The ``recent`` newest memories of the namespace that may be returned (or that pass
        ``allowed``; ``ids``: the namespace's in creation order), looking back at most four
        times as far."""
        allowed = allowed or self.allowed
        out: list[str] = []
        for i in range(len(ids) - 1, max(-1, len(ids) - 1 - 4 * self.recent), -1):
            if allowed(ids[i]):
                out.append(ids[i])
                if len(out) == self.recent:
                    break
        return out

    def _add_successors(self, found: ch.Lexical, out: dict[str, tuple[str, tuple[Fact, ...]]],
                        wanted: Callable[[str], bool]) -> None:
        """Add to ``out``, with the facts of the memory it replaced, each memory that may be
        returned, states no fact of anyone's and replaced a memory the search ``found`` or one
        of the ``recent`` newest replaced (the reader takes "it's Redmi Note 13, not Xperia 10
        V" for a fact of something else's; "I'm a sommelier now" holds no word of a job
        title's search)."""
        memories = self.views.state.memories

        def replaced(memory_id: str) -> bool:
            return memories[memory_id].superseded_by is not None and not self.allowed(memory_id)

        old = [mid for mid, _ in ch.bm25(found, _DEPTH, replaced) if wanted(mid)]
        if self.recent:
            searched = set(old)
            old += [mid for mid in self._newest(found.ids, replaced)
                    if mid not in searched and wanted(mid)]
        by: dict[str, str] = {}
        for mid in old:
            successor = self._successor(mid)
            if successor is not None and not _of_anyone(out.get(successor, ("", ()))[1]) \
                    and successor not in by and wanted(successor):
                by[successor] = mid
        if not by:
            return
        olds, news = list(by.values()), list(by)
        for new, new_text, old_text in zip(news, self.read(news), self.read(olds), strict=True):
            if new_text is None or old_text is None or _of_anyone(self.facts_of(new_text)):
                continue
            out[new] = (new_text, self.facts_of(old_text))
            self.added.add(new)

    def _successor(self, memory_id: str) -> str | None:
        """The memory that replaced ``memory_id`` and may be returned, following replacements
        (each replaces at most one other in turn); None if there is none."""
        memories = self.views.state.memories
        seen = {memory_id}
        record = memories.get(memory_id)
        while record is not None and record.superseded_by is not None:
            successor = record.superseded_by
            if successor in seen:
                return None
            if self.allowed(successor):
                return successor
            seen.add(successor)
            record = memories.get(successor)
        return None

    def owners(self, owner: str, found: Mapping[str, tuple[str, tuple[Fact, ...]]],
               *, one_name: bool = False, rivals: Iterable[str] = ()) -> frozenset[str]:
        """Whose facts are ``owner``'s: the user and the user's names for the user or a name
        that is the user's (looked for among the names ``found`` states facts of); the name
        alone for anyone else. ``one_name``: of several names that pass for the user's, only
        the best shown (see :meth:`evidence`), ``rivals`` (more names at hand) competing."""
        if owner == USER:
            names = [name for name in sorted(_named(found)) if self.is_user(name)]
            if one_name:
                names = self.one_name(names, rivals)
                if not names:
                    # The search found no name shown to be the user's, but a name at hand
                    # is ("Élodie is now a quantity surveyor", the subject of three things
                    # the user said and never someone else): it is the user's all the same.
                    names = self.best_shown([name for name in sorted(set(rivals) - {USER, OTHER})
                                             if self.is_user(name)])
            return frozenset({USER, *names})
        if owner != OTHER and self.is_user(owner):
            if one_name and self._outshone(owner, found):
                return frozenset({owner})
            return frozenset({USER, owner})
        return frozenset({owner})

    def one_name(self, names: Sequence[str], rivals: Iterable[str] = ()) -> list[str]:
        """Of ``names`` passing for the user's, the best shown (see :meth:`best_shown`), with
        ``rivals`` (more names at hand, such as those the newest memories state facts of)
        competing. A rival is no evidence by being at hand, but one the subject of more
        memories than any of ``names`` outshines them (only by that count: not by how many of
        those state facts)."""
        names = list(names)
        if names:
            most = max(self.evidence(name)[0] for name in names)
            names += [name for name in sorted(set(rivals) - set(names) - {USER, OTHER})
                      if self.is_user(name) and self.evidence(name)[0] > most]
        return self.best_shown(names)

    def newest_named(self) -> set[str]:
        """The names the namespace's ``recent`` newest memories (that may be returned) state
        facts of."""
        index = self.views.text.indexes.get(self.namespace)
        ids = self._newest(index.ids if index is not None else ())
        return {f.owner for text in self.read(ids) if text is not None
                for f in self.facts_of(text)} - {USER, OTHER}

    def best_shown(self, names: Sequence[str]) -> list[str]:
        """Of ``names`` passing for the user's, those best shown to be (see :meth:`evidence`).
        A user has one name. Others talked about as often pass the inference too ("Fatima is
        seeing someone new", "Fatima got a new job", ...), and their facts or plans would count
        as the user's; the user's own name is the one most stated of."""
        if len(names) < 2:
            return list(names)
        best = max(self.evidence(name) for name in names)
        return [name for name in names if self.evidence(name) == best]

    def _outshone(self, name: str, found: Mapping[str, tuple[str, tuple[Fact, ...]]]) -> bool:
        """Whether another name ``found`` states facts of passes for the user's and is better
        shown to be (the one-name rule of :meth:`owners`, for a question about ``name``): the
        subject of more memories. The name asked about wins a tie, whatever the facts count:
        the asker takes it for the user's."""
        mine = self.evidence(name)[0]
        return any(self.is_user(other) and self.evidence(other)[0] > mine
                   for other in sorted(_named(found) - {name}))

    def is_user(self, name: str) -> bool:
        """Whether the memories show ``name`` to be the user's: the user declares it ("I'm
        Dana"), or (``inferred_names``) at least :data:`_NAME_EVIDENCE` memories state facts
        with it as the subject and none introduces it as someone else's relation ("my friend
        Dana"). With ``names_from_all``, the memories are all the user said (see
        :meth:`said_of`), and any sentence with the name as its subject counts, a plan or a
        deed too ("Wes has to renew the passport", "Wes renewed the car registration")."""
        known = self._names.get(name)
        if known is None:
            known = self._names[name] = self._shows_user(name)
        return known

    def evidence(self, name: str) -> tuple[int, int]:
        """How well the memories show ``name`` to be the user's: declared outranks any count;
        else how many memories the user said (whatever their valid time or status, short of
        removed; summaries restate others) have it as a sentence's subject, a plan or a deed
        too ("Lucia has to sign the lease renewal"), then how many of those state facts."""
        said = self.said_of(name)
        return (_DECLARED, 0) if said.declared else (said.subject, said.facts)

    def said_of(self, name: str) -> SaidOf:
        """What the memories the user said (whatever their valid time or status, short of
        removed; summaries restate others) show of ``name``."""
        known = self._said.get(name)
        if known is None:
            known = self._said[name] = self._read_said(name)
        return known

    def _read_said(self, name: str) -> SaidOf:
        # Whose a name is does not change with time: a recall at a valid time T sees only the
        # memories true at T, too few of the user's own (most were replaced since) to weigh
        # against a name talked about in passing; and a recall now sees few more, when the user
        # goes by name mostly in statements since replaced or in plans.
        memories = self.views.state.memories

        def said(memory_id: str) -> bool:
            record = memories.get(memory_id)
            return (record is not None and record.namespace == self.namespace
                    and record.status not in _GONE and record.source != DERIVED)

        every = NamespaceFacts(self.views, self.namespace, self.read, said,
                               facts_of=self.facts_of, edition=self.edition)
        declared = introduced = named = False
        stating = subject = 0
        called = re.compile(rf"\b(?:called|named)\s+{re.escape(name)}\b")
        for text, stated in every.stating(name, dated=True).values():
            gives = facts.declared_name(text, self.edition) == name
            declared = declared or gives
            introduced = introduced or facts.introduces(text, name)
            named = named or (not gives and called.search(text.lower()) is not None)
            states = any(f.owner == name for f in stated)
            stating += states
            subject += states or any(facts.owner_of(sentence, self.edition) == name
                                     for sentence in facts.sentences(text, self.edition))
        return SaidOf(declared, introduced, named, stating, subject)

    def may_be_user(self, name: str, others: Iterable[str], *, asked: bool = False) -> bool:
        """Whether nothing said tells ``name`` apart from the user: no memory introduces it as
        someone else ("my friend Dana") or gives it to someone or something else ("My daughter
        is called Victor"), and none of ``others`` (the other names at hand) passes for the
        user's (a user has one name). ``asked``: ``name`` is the one a question asks about,
        itself evidence that it is the user's (agents ask about their user by name); then only
        a name the user declared ("I'm Dana") is a better claim, not one that passes by being
        the subject of a few memories (friends are talked about as often)."""
        said = self.said_of(name)
        if said.introduced or said.named:
            return False
        rivals = sorted(set(others) - {USER, OTHER, name})
        if asked:
            return not any(self.said_of(other).declared for other in rivals)
        return not any(self.is_user(other) for other in rivals)

    def _shows_user(self, name: str) -> bool:
        if self.names_from_all:
            said = self.said_of(name)
            return said.declared or (self.inferred_names and not said.introduced
                                     and said.subject >= _NAME_EVIDENCE)
        if not (self.recent or self.successors):  # (stating() reads more than the search)
            # The same answer as the loop below, reading less: the first memory (in search
            # order) that declares the name or introduces it as someone else's decides; failing
            # that, a count of memories stating facts of it, which needs their facts only until
            # it reaches _NAME_EVIDENCE, and none without inferred names (the write path's
            # gate-7). Reading those facts was most of the cost of whose a name is, asked of
            # every name a fact is stated of.
            texts = list(self.searched(name).values())
            for text in texts:
                if facts.declared_name(text, self.edition) == name:
                    return True
                if facts.introduces(text, name):
                    return False
            if not self.inferred_names:
                return False
            counted = 0
            for text in texts:
                if any(f.owner == name for f in self.facts_of(text)):
                    counted += 1
                    if counted >= _NAME_EVIDENCE:
                        return True
            return False
        subject = 0
        for text, stated in self.stating(name).values():
            if facts.declared_name(text, self.edition) == name:
                return True
            if facts.introduces(text, name):
                return False
            subject += any(f.owner == name for f in stated)
        return self.inferred_names and subject >= _NAME_EVIDENCE


# Attributes with one value for life: no value of theirs is replaced ("Where is Theo from
# originally?" asks the hometown there is).
_NEVER_CHANGES: Final = frozenset({"hometown", "birthday"})


def former_asked(plan: QueryPlan) -> Former | None:
    """The replaced value ``plan``'s question asks, if it asks one of a personal attribute
    (:func:`eventmem.recall.plan.asks_former`): ``"first"`` or ``"before"``. A value someone
    left is the one before the current (but "When does my flight leave?" asks a departure)."""
    if plan.former is None or plan.intent == "todo":
        return None
    question = facts.read_question(plan.text)
    if question is None and facts.relation_asked(plan.text) is not None:
        # "Where did my brother use to live?" asks a replaced home whoever the brother is
        question = facts.read_question(facts.naming_the_relation(plan.text, "someone"))
    if question is None or question.attribute in _NEVER_CHANGES:
        return None
    if plan.former == "left":
        return None if question.attribute in facts.DATED else "before"
    return plan.former


def asks_of_a_value(plan: QueryPlan) -> bool:
    """Whether ``plan``'s question asks, in the past tense, about a personal attribute where
    it held a value it names: "Which neighbourhood did I live in in Casablanca?" asks about the
    home in Casablanca, though Rabat has replaced it since. Recall then finds the values
    replaced since too, and ranks them by relevance (which the name decides)."""
    if not plan.past or plan.intent == "todo":
        return False
    question = facts.read_question(plan.text)
    if question is None:
        return False
    return any(name.lower() not in (question.owner, USER) and name.lower() not in facts.CALENDAR
               for name in _NAMED_VALUE.findall(plan.text))


# A name inside a question, not its first word ("... in Casablanca?", "... at Globex?").
_NAMED_VALUE: Final = lazy_re(rf"(?<=[\w,] )(?:in|at|for|with|from) ({facts.NAME})\b")


def asked_first(hits: list[Candidate], views: Projections, plan: QueryPlan, read: Read,
                *, namespace: str, k: int, allowed: ch.Allowed, latest: bool = True,
                passed_by: int | None = None, former: Former | None = None
                ) -> list[Candidate]:
    """``hits`` with the memories that state the asked attribute of the asked owner on top
    (at most three, newest first; each marked ``signals["fact"] = 1.0``). With ``latest``
    False (a "when" question that admits replaced values: it asks about one of them, not the
    current one), those among ``hits`` keep their order there, ahead of the rest. The scores
    stay where they were in the list, so they never rise down it. ``passed_by`` (a question
    about a time T, given as T): when no memory ``allowed`` states the asked appointment or
    departure, the latest one whose day had passed by T is the answer (see
    :func:`_last_occasion`). ``former`` (see :func:`former_asked`; ``allowed`` admitting the
    values replaced since): the values in the order the question asks them (see
    :func:`_former_first`). ``hits`` unchanged when the question asks about no personal
    attribute or no memory states it."""
    if plan.intent == "todo":
        return hits
    namespace_facts = NamespaceFacts(views, namespace, read, allowed, names_from_all=True,
                                     recent=_RECENT, successors=True)
    question = facts.read_question(plan.text) or _asked_of_a_relation(plan.text,
                                                                        namespace_facts)
    if question is None:
        return hits
    memories = views.state.memories
    dated = question.attribute in facts.DATED
    found = namespace_facts.stating(_search_words(question), dated=dated)
    # The hits themselves are candidates too: "I'm really into pottery" states a hobby in words
    # the index does not keep ("into"), yet relevance found it.
    unread = [mid for mid, _, _ in hits
              if mid not in found and (dated or memories[mid].kind != "plan")]
    for mid, text in zip(unread, read(unread), strict=True):
        if text is not None:
            found[mid] = (text, namespace_facts.facts_of(text))
    namespace_facts.added.difference_update(mid for mid, _, _ in hits)  # relevance found them
    chosen = _stating(namespace_facts, found, question)
    if latest and not dated and chosen:
        chosen += _restated(found, chosen, memories, question.attribute)
    if dated and passed_by is not None:
        chosen = _later_occasions(chosen, _last_occasion(namespace_facts, question, passed_by),
                                  memories)
    if not chosen:
        return hits
    # What the user said comes before what the dream cycle derived from it: a summary restates
    # several memories (made later than any of them, it would otherwise look newest) and may quote
    # a value its sources have since replaced; the statement answers the question by itself.
    chosen.sort(key=lambda mid: (memories[mid].source == DERIVED, newest_first(memories[mid])))
    by_age = _oldest_age_first(chosen, found) if question.attribute == "age" else None
    chosen = by_age or chosen
    if dated:
        # "What day is my MRI?" is answered by a statement naming a day, "What time ...?" by
        # one naming an hour: a correction of the time alone ("the MRI is at 8:40, everything
        # else is right") leaves the day to the statement it corrects.
        chosen = _naming_what_is_asked(chosen, plan.text, read)
    if _ASKS_NAME.search(plan.text) is not None:
        # "What are my dogs called?": a statement naming them answers, not the newest count
        # ("We got another dog, so three now"), though it states the same pets.
        chosen.sort(key=lambda mid: not facts.inner_names(found[mid][0]))
    if question.attribute == "pet" and any(question.owner in facts.pet_names(found[mid][0])
                                           for mid in chosen):
        # "What kind of cat is Biscuit?", Biscuit being a pet: a statement naming Biscuit,
        # before the newest pet (but "What is Sana's pet called?" asks the newest).
        chosen.sort(key=lambda mid: question.owner not in _words(found[mid][0]))
    if not latest:
        chosen = _corrected(chosen, memories, read, allowed)
        position = {mid: i for i, (mid, _, _) in enumerate(hits)}
        chosen.sort(key=lambda mid: position.get(mid, len(position)))  # stable: newest next
        when = plan.time
        if isinstance(when, TimeRange):
            # "Which day was it set for on April 24?": what held then, before what was
            # replaced by then or said only after; of two values held then that nothing tied
            # together, the one said later ("it's Sunday", then "Caught up with Felix today.
            # His physio appointment was pushed to Wednesday": Felix being the user).
            chosen = _replaced_by_then(chosen, memories, when)
            chosen.sort(key=lambda mid: (not _held(memories, mid, when),
                                         -_start(memories[mid])))
    if former is not None:
        past = _held_once(found, chosen, question)
        chosen = _former_first(chosen + past, memories, read, plan.text, question.owner, former,
                               by_age=by_age is not None, held_once=frozenset(past))
    top = chosen[:_ON_TOP]
    signals_of = {mid: signals for mid, _, signals in hits}
    order = top + [mid for mid, _, _ in hits if mid not in top]
    scores = [score for _, score, _ in hits]
    out: list[Candidate] = []
    for i, mid in enumerate(order[:k]):
        signals = signals_of.get(mid, {})
        if mid in top:
            signals["fact"] = 1.0
        # Scores stay in place down the list; one past its end repeats the last (with no
        # other hit, a stated fact scores as half the best possible relevance).
        score = scores[i] if i < len(scores) else (scores[-1] if scores else _ALONE)
        signals.setdefault("score", score)
        out.append((mid, score, signals))
    return out


def _asked_of_a_relation(text: str, namespace_facts: NamespaceFacts) -> Question | None:
    """"Which city does my brother live in?": the same question of the one name the namespace
    gives that relation ("My brother Obinna lives in Manchester"), or None (no name, or more
    than one: two sisters)."""
    relation = facts.relation_asked(text)
    if relation is None:
        return None
    names = {name for said in namespace_facts.searched(relation).values()
             for of, name in facts.relations_named(said) if of == relation}
    if len(names) != 1:
        return None
    return facts.read_question(facts.naming_the_relation(text, names.pop()))


def _naming_what_is_asked(chosen: list[str], asked: str, read: Read) -> list[str]:
    """``chosen`` (statements of an appointment or departure) with those naming a day first
    when ``asked`` asks a day, and those naming an hour first when it asks a time."""
    for asks, names in ((_ASKS_DAY, _NAMES_DAY), (_ASKS_TIME, _NAMES_TIME)):
        if asks.search(asked) is not None:
            said = dict(zip(chosen, read(chosen), strict=True))
            chosen = sorted(chosen, key=lambda mid: names.search(said[mid] or "") is None)
    return chosen


def _oldest_age_first(chosen: list[str], found: Mapping[str, tuple[str, tuple[Fact, ...]]]
                      ) -> list[str] | None:
    """``chosen`` (statements of one person's age, newest first) with the greatest age first,
    when each says one (:func:`eventmem.policies.facts.age_said`): no one gets younger, so
    "Aram turned eleven last Tuesday" is the age now though an earlier day than "My son Aram
    is 10", said since; the newest first among equal ones. None when one says none."""
    ages = [facts.age_said(found[mid][0]) if mid in found else None for mid in chosen]
    if not chosen or any(age is None for age in ages):
        return None
    order = {mid: (-age, i) for i, (mid, age) in enumerate(zip(chosen, ages, strict=True))
             if age is not None}
    return sorted(chosen, key=order.__getitem__)


def _held_once(found: Mapping[str, tuple[str, tuple[Fact, ...]]], chosen: list[str],
               question: Question) -> list[str]:
    """The memories of ``found`` (not ``chosen``) that state the asked attribute of the asked
    owner as held once and no more ("I used to work at Initech", "Back when I was at SABIC we
    lived in Jubail": :func:`eventmem.policies.facts.read` ``held_once``): values a question
    about a replaced value asks, though they never were the current one."""
    owners = frozenset({question.owner, USER} if question.owner == USER else {question.owner})
    held = {mid: (text, facts.read(text, held_once=True)) for mid, (text, _) in found.items()
            if mid not in chosen}
    return _stating_of(held, question, owners)


def _former_first(chosen: list[str], memories: Mapping[str, MemoryRecord], read: Read,
                  asked: str, owner: str, former: Former, *, by_age: bool = False,
                  held_once: frozenset[str] = frozenset()) -> list[str]:
    """``chosen`` (the memories stating the asked attribute, replaced ones among them) in the
    order a question about a replaced value asks: the oldest first ("What was the original time
    of the flight?"); else the ones said before the value the question names ("What car did I
    have before the Camry?") or, naming none, before the newest ("Where did I use to live?"),
    newest first, then the rest. A value never replaced is its own former value: it stays.
    ``by_age``: ``chosen`` is in the order of the ages said, the greatest first (see
    :func:`_oldest_age_first`), which is the order of time. ``held_once``: memories of values
    held before any other (:func:`_held_once`), whenever said."""
    by_start = list(dict.fromkeys(chosen)) if by_age else \
        sorted(dict.fromkeys(chosen),
               key=lambda mid: (mid in held_once, -_start(memories[mid]), mid))
    if former == "first":
        return by_start[::-1]
    named = readings.values_in(asked) - {owner}
    pivot = by_start[0]
    if named:
        texts = dict(zip(by_start, read(by_start), strict=True))
        naming = [mid for mid in by_start
                  if texts[mid] is not None and readings.values_in(texts[mid]) & named]
        pivot = naming[0] if naming else pivot
    began = _start(memories[pivot])
    earlier = by_start[by_start.index(pivot) + 1:] if by_age else \
        [mid for mid in by_start if mid != pivot
         and (_start(memories[mid]) <= began or mid in held_once)]
    return earlier + [mid for mid in by_start if mid not in earlier]


def _corrected(chosen: list[str], memories: Mapping[str, MemoryRecord], read: Read,
               allowed: ch.Allowed) -> list[str]:
    """``chosen`` with each slip a correction took back replaced by the correction (once): a
    question about a time admits replaced values, which were true once, but a slip ("Booked
    the physio for Monday", then "No wait, I meant Wednesday, not Monday") never was."""
    successors = {mid: memories[mid].superseded_by for mid in chosen}
    candidates = sorted({s for s in successors.values() if s is not None and allowed(s)})
    correcting = {mid for mid, text in zip(candidates, read(candidates), strict=True)
                  if text is not None and corrections.takes_back(text)}
    out: list[str] = []
    for mid in chosen:
        successor = successors[mid]
        answer = successor if successor in correcting else mid
        if answer not in out:
            out.append(answer)
    return out


def _stating(namespace_facts: NamespaceFacts, found: Mapping[str, tuple[str, tuple[Fact, ...]]],
             question: Question) -> list[str]:
    """The memories of ``found`` that state the asked attribute of the asked owner."""
    if not found:
        return []
    # Whose a name is weighs the names the search found, not whoever the newest memories name.
    searched = {mid: read for mid, read in found.items() if mid not in namespace_facts.added}
    owners = namespace_facts.owners(question.owner, searched, one_name=True,
                                    rivals=_named(found))
    chosen = _stating_of(found, question, owners)
    if not chosen and USER not in owners and question.owner != OTHER and \
            namespace_facts.may_be_user(question.owner, _named(searched), asked=True):
        # Nothing states the attribute of the name asked about, and nothing tells the name
        # apart from the user's: agents ask about their user by name ("Where does Wes live?")
        # long before the memories show whose name it is. The user's own statement of the
        # attribute is then the best evidence at hand; never a fact of someone else named.
        chosen = _stating_of(found, question, frozenset({USER}))
    if not chosen and question.owner == USER:
        # Nothing states the user's attribute, and no name passes for the user's: a user
        # spoken of by name in few memories yet ("Had lunch with Brennan. He is an engineer at
        # Nordlys.") is told apart from everyone else by nothing but that. One name the
        # attribute is stated of, that nothing says is someone else, is the best evidence at
        # hand; of several, the one the subject of more memories than any other.
        stated_of = sorted({f.owner for _, stated in found.values() for f in stated
                            if f.attribute == question.attribute} - {USER, OTHER})
        candidates = [name for name in stated_of if namespace_facts.may_be_user(name, ())]
        best = namespace_facts.best_shown(candidates)
        if len(best) == 1:
            chosen = _stating_of(found, question, frozenset(best))
    elif chosen and question.owner == USER:
        chosen += _carried_on_by_name(namespace_facts, found, question, owners, chosen)
        if question.attribute == "pet":
            chosen += _of_the_users_pets(found, chosen)
    return chosen


def _restated(found: Mapping[str, tuple[str, tuple[Fact, ...]]], chosen: list[str],
              memories: Mapping[str, MemoryRecord], attribute: str) -> list[str]:
    """The memories of ``found`` said after the latest chosen one that restate its value in its
    frame or give it up, and state no fact the reader knows ("I'm at Initech now" after "I work
    at Globex", "Sold the Forester" after "I drive a Subaru Forester": see
    :func:`eventmem.recall.updates.restates` and :func:`~eventmem.recall.updates.gives_up`)."""
    latest = min(chosen, key=lambda mid: newest_first(memories[mid]))
    since = newest_first(memories[latest])
    text = found[latest][0]
    return [mid for mid, (said, stated) in found.items()
            if mid not in chosen and not stated and memories[mid].kind != "plan"
            and newest_first(memories[mid]) < since
            and (updates.restates(said, text, attribute)
                 or updates.gives_up(said, text, attribute))]


def _of_the_users_pets(found: Mapping[str, tuple[str, tuple[Fact, ...]]],
                       chosen: list[str]) -> list[str]:
    """The memories stating a pet fact of a pet the chosen memories name as the user's: "Rex
    passed away" after "I have a dog named Rex" is news of the user's pet, though Rex is its
    subject."""
    pets = {name for mid in chosen for name in facts.pet_names(found[mid][0])}
    return [mid for mid, (_, stated) in found.items() if mid not in chosen
            and any(f.attribute == "pet" and f.owner in pets for f in stated)]


def _carried_on_by_name(namespace_facts: NamespaceFacts,
                        found: Mapping[str, tuple[str, tuple[Fact, ...]]], question: Question,
                        owners: frozenset[str], chosen: list[str]) -> list[str]:
    """The later statements of the asked attribute, of a name nothing tells apart from the
    user's, that carry on from the user's latest value: "Priya left Umbrella Health for
    Initech" after "I'm employed by Umbrella Health", "Hugo is engaged to Yara now" after "I'm
    seeing Yara now". Only the user leaves the user's employer for another, or gets engaged to
    whom the user is seeing; a name said too seldom to pass for the user's is shown to be the
    user's by that."""
    memories = namespace_facts.views.state.memories
    latest = min(chosen, key=lambda mid: newest_first(memories[mid]))
    text = found[latest][0]
    if question.options:
        # A preference between two things is carried on in their words, whichever comes
        # first ("Lucia changed her mind and likes paper books over ebooks now").
        held = frozenset(w for w in question.options if w in _words(text))
        if len(held) < 2:
            return []

        def holds(other: str) -> bool:
            return held <= _words(other)
    else:
        # The names in it ("Umbrella Health", "Yara"), not the words of how ("seeing"), nor a
        # value it takes back ("The user's new employer is Umbrella Health, not Vandelay").
        wrong = corrections.taken_back(text, namespace_facts.edition) \
            if corrections.takes_back(text, namespace_facts.edition) else None
        held = facts.values_of(text, namespace_facts.edition) & {
            word.lower() for word in _LETTER_WORD.findall(text) if word[0].isupper()}
        held -= {word.lower() for word in _LETTER_WORD.findall(wrong or "")}
        if not held:
            return []

        def holds(other: str) -> bool:
            return held <= facts.values_of(other, namespace_facts.edition)
    since = _start(memories[latest])
    out = []
    for mid, (text, stated) in found.items():
        names = {f.owner for f in stated if f.attribute == question.attribute} - owners - {OTHER}
        if names and _start(memories[mid]) > since and mid not in chosen and holds(text) \
                and all(namespace_facts.may_be_user(name, ()) for name in names):
            out.append(mid)
    return out


# A question asking what someone or something is called.
_ASKS_NAME: Final = lazy_re(r"\b(?:called|named|names?)\b", re.IGNORECASE)
_ASKS_DAY: Final = lazy_re(r"\b(?:what|which) (?:day|date)\b", re.IGNORECASE)
_NAMES_DAY: Final = lazy_re(r"\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b"
                            r"|\b\d{1,2}(?:st|nd|rd|th)\b|\b(?:today|tomorrow)\b", re.IGNORECASE)
_ASKS_TIME: Final = lazy_re(r"\bwhat time\b", re.IGNORECASE)
_NAMES_TIME: Final = lazy_re(r"\b\d{1,2}(?::\d\d|\s*[ap]\.?m\b)|\b(?:noon|midnight|o'clock)\b"
                             r"|\b(?:quarter|half) (?:past|to)\b", re.IGNORECASE)
# A word opening with a letter of any alphabet ("Umbrella", "Zürich", "O'Malley", "Bio-Systems").
_LETTER_WORD: Final = lazy_re(r"[^\W\d_][\w'-]*")


def _words(text: str) -> frozenset[str]:
    """The lower-cased words of ``text``."""
    return frozenset(re.findall(r"[a-z]+", text.lower()))


def _of_anyone(stated: Iterable[Fact]) -> bool:
    """Whether ``stated`` holds a fact of the user's or of someone named."""
    return any(f.owner != OTHER for f in stated)


def _named(found: Mapping[str, tuple[str, tuple[Fact, ...]]]) -> set[str]:
    """The names ``found`` states facts of."""
    return {f.owner for _, stated in found.values() for f in stated} - {USER, OTHER}


def _stating_of(found: Mapping[str, tuple[str, tuple[Fact, ...]]], question: Question,
                owners: frozenset[str]) -> list[str]:
    return [mid for mid, (text, stated) in found.items()
            if any(_answers(fact, question, _whose(text, question, owners)) for fact in stated)
            and _names_an_option(text, question)
            and not facts.named_in_compounds_only(text, question.attribute)]


def _whose(text: str, question: Question, owners: frozenset[str]) -> frozenset[str]:
    """``owners``, and a relation's facts when ``text`` names the relation as the one asked
    about: "My sister Dima lives in Zarqa" states Dima's home ("Where did Dima live before
    she moved?")."""
    if question.owner in (USER, OTHER) or facts.relative_named(text) != question.owner:
        return owners
    return owners | {OTHER}


def _last_occasion(namespace_facts: NamespaceFacts, question: Question, at: int) -> list[str]:
    """The memories stating the asked appointment or departure whose day had passed by ``at``
    and that nothing moved before it, newest first: "On June 30, which day was my physio
    appointment?" asks the last day it was on. The sweep ends such a memory's valid time on its
    day (it has taken place), so no recall at June 30, nor a view as of then, finds it as
    true; but nothing replaced it by then, so it is still the day the user would have named."""
    views, namespace = namespace_facts.views, namespace_facts.namespace
    memories = views.state.memories

    def passed(memory_id: str) -> bool:
        record = memories.get(memory_id)
        if record is None or record.namespace != namespace or record.status in _GONE:
            return False
        if record.valid_until is None or record.valid_until > at or _start(record) > at:
            return False  # still to come at ``at`` (or not yet said): not a passed occasion
        # Moved before ``at``: the later day is the answer, whether or not it has passed too.
        later = memories.get(record.superseded_by or "")
        return later is None or _start(later) > at

    # Passed memories are few: a search of their own. Whose a name is reads the memories
    # eligible as usual (``namespace_facts``), not only the passed ones.
    search = NamespaceFacts(views, namespace, namespace_facts.read, passed,
                            facts_of=namespace_facts.facts_of)
    found = search.stating(_search_words(question), dated=True)
    return _stating(namespace_facts, found, question)


def _later_occasions(chosen: list[str], passed: list[str],
                     memories: Mapping[str, MemoryRecord]) -> list[str]:
    """``chosen`` with the passed occasions said after every memory of it first: the day the
    user was told last is the answer though it has passed, before any day said earlier. "Had
    to move the dentist to Saturday", then (the user, by name) "Caught up with Clara today.
    Her dentist appointment was pushed to Wednesday": once Wednesday has passed, the write
    path's bound on the second ends it, while nothing bounds the first (an event, not a plan);
    Saturday is the older word, not the current one. With nothing chosen, every passed one."""
    newest = max((_start(memories[mid]) for mid in chosen), default=None)
    later = [mid for mid in passed
             if mid not in chosen and (newest is None or _start(memories[mid]) > newest)]
    return later + chosen


def _replaced_by_then(chosen: list[str], memories: Mapping[str, MemoryRecord],
                      when: TimeRange) -> list[str]:
    """``chosen`` with each memory replaced before ``when`` began followed to what replaced it
    (down the chain, while each was replaced before then): the value that held then. The write
    gate judged the two the same fact, though the replacement may say it in words the asked
    owner's facts are not read from ("My physio appointment is on Sunday", then "Felix's physio
    appointment is now on Wednesday", Felix being the user). What replaced it need not be valid
    at the time asked itself: an appointment whose day has passed held until its day."""
    out: list[str] = []
    for memory_id in chosen:
        answer, seen = memory_id, {memory_id}
        while True:
            later = memories[answer].superseded_by
            record = memories.get(later) if later is not None else None
            if later is None or record is None or later in seen \
                    or record.status in _GONE or _start(record) > when.start:
                break
            answer = later
            seen.add(later)
        if answer not in out:
            out.append(answer)
    return out


def _held(memories: Mapping[str, MemoryRecord], memory_id: str, when: TimeRange) -> bool:
    """Whether the memory's value held at some time in ``when``: it began before the span
    ended, and what replaced it (if anything) only after the span began."""
    record = memories[memory_id]
    if _start(record) >= when.end:
        return False
    later = memories.get(record.superseded_by) if record.superseded_by else None
    return later is None or _start(later) > when.start


def _start(record: MemoryRecord) -> int:
    """When a memory's value began: its valid start, else when it was recorded."""
    return record.valid_from if record.valid_from is not None else record.created_at


# Statuses whose memories no recall returns in any view: removed, not replaced.
_GONE: Final = frozenset({"deleted", "purged", "erased"})


def own_plans_first(hits: list[Candidate], views: Projections, plan: QueryPlan, read: Read,
                    *, namespace: str, allowed: ch.Allowed) -> list[Candidate]:
    """For a to-do question about the user ("What do I still need to get done?", or about a name
    the memories show to be the user's), ``hits`` with the user's own plans first, then the
    plans of someone named ("Kofi needs to sort out their wedding venue soon": the user's,
    should the name be theirs, else someone else's), then the rest, each group in its order
    with what was said before the dream cycle's summaries of it, and tasks before
    appointments and departures;
    the scores stay where they were in the list. For a name not shown to be the user's, its
    plans and the user's come first while nothing tells it apart from the user's (see
    :meth:`NamespaceFacts.may_be_user`). Unchanged for any other question."""
    owner = facts.question_owner(plan.text)
    if plan.intent != "todo" or owner is None or owner == OTHER:
        return hits
    memories = views.state.memories
    namespace_facts = NamespaceFacts(views, namespace, read, allowed, names_from_all=True,
                                     recent=_RECENT)
    planned = [mid for mid, _, _ in hits if memories[mid].kind == "plan"]
    texts = read(planned)
    whose = dict(zip(planned, (facts.subject_of(text) if text else None for text in texts),
                     strict=True))
    # A to-do list is what there is to get done ("I need to file my tax return by May 12"); an
    # occasion in the calendar ("My physio appointment is on Wednesday", a flight) is only to be
    # attended: within each group, tasks come before occasions.
    occasions = {mid for mid, text in zip(planned, texts, strict=True)
                 if text and any(f.attribute in facts.DATED
                                 for f in namespace_facts.facts_of(text))}
    if owner != USER and not namespace_facts.is_user(owner):
        # A name the memories do not show to be the user's: its own plans and, as long as
        # nothing tells the name apart from the user's (see _stating), the user's.
        if not namespace_facts.may_be_user(owner, filter(None, whose.values()), asked=True):
            return hits
        mine = {USER, owner}
    else:
        mine = {USER}
    # A user has one name: of several names passing for the user's, only the best shown has
    # its plans among the user's; a name the newest memories show better (the user's, whose
    # own plans are done) outshines a friend's that passes too.
    named = sorted({who for who in whose.values()
                    if who not in (None, USER, OTHER) and namespace_facts.is_user(who)})
    if named:
        mine |= set(namespace_facts.one_name(named, namespace_facts.newest_named()))

    def group(memory_id: str) -> int:
        who = whose.get(memory_id)
        if who is None or who == OTHER:
            return 2
        return 0 if who in mine else 1

    # What the user said comes before what the dream cycle derived from it (as for attribute
    # questions, see asked_first): a summary restates several plans, done ones among them.
    order = sorted(range(len(hits)),
                   key=lambda i: (group(hits[i][0]), memories[hits[i][0]].source == DERIVED,
                                  hits[i][0] in occasions, i))
    return [(hits[j][0], hits[i][1], hits[j][2]) for i, j in enumerate(order)]


def _search_words(question: Question) -> str:
    return " ".join(filter(None, (facts.attribute_words(question.attribute, spelt=True),
                                  question.qualifier,
                                  " ".join(sorted(question.options)),
                                  question.owner if question.owner != USER else None)))


def _names_an_option(text: str, question: Question) -> bool:
    """A preference answers a question about its alternatives only if it names one of them: two
    of their words when they are of several words ("city breaks or camping trips", four words,
    is not answered by "road trips over train journeys", which shares one)."""
    if not question.options:
        return True
    if facts.options_named(text, question) >= (2 if len(question.options) >= 4 else 1):
        return True
    # "Which hot drink do I prefer?" names a kind, not alternatives: a preference naming one of
    # its members answers ("a good rooibos beats coffee for me now").
    members = frozenset(member for option in question.options
                        for member in hyponyms.kinds(option))
    return bool(members) and not members.isdisjoint(_words(text))


def _answers(fact: Fact, question: Question, owners: frozenset[str]) -> bool:
    if fact.attribute != question.attribute:
        return False
    if question.attribute == "age":
        # An age is stated of the person it names: the question's name, else (a question about
        # the user's child) any age the user states or someone named states of themself.
        if question.qualifier is not None:
            # (the asked name being the user's, the user's own age: "I'm 33 now!")
            return (fact.qualifier == question.qualifier and fact.owner != OTHER) or (
                fact.qualifier is None and question.qualifier in owners
                and fact.owner in owners)
        return fact.owner in owners or (fact.owner not in (USER, OTHER)
                                        and fact.qualifier == fact.owner)
    if fact.owner not in owners:
        return False
    if question.attribute in ("count", "family", "appointment") and question.qualifier:
        # "How many birds do I have?" counts the parrots: a kind counts for its category.
        return _same_thing(fact.qualifier) == _same_thing(question.qualifier) or (
            question.attribute == "count" and fact.qualifier in hyponyms.kinds(question.qualifier))
    return True


# One thing by two everyday names ("How many bicycles do I have?" after "I have 2 bikes").
_SAME_THINGS: Final = {"bicycle": "bike", "motorcycle": "motorbike", "automobile": "car",
                       "television": "tv", "telly": "tv", "cellphone": "phone", "child": "kid",
                       "hen": "chicken"}


def _same_thing(qualifier: str | None) -> str | None:
    return _SAME_THINGS.get(qualifier, qualifier) if qualifier is not None else None


def newest_first(record: MemoryRecord) -> tuple[int, int, str]:
    """A sort key: the latest valid start (the recorded time where none was given) first."""
    return -_start(record), -record.created_seq, record.memory_id
