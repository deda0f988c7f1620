"""The read path: candidates from every channel, fused by weighted reciprocal rank fusion, scored
by profile, diversified by MMR.

1. the query plan (:mod:`eventmem.recall.plan`) names the intent, the time, the expansion and
   the parts of a compound question;
2. each channel (:mod:`eventmem.recall.channels`: BM25, neighbouring context, vectors, time, and
   any plugged-in channel such as the graph's) ranks the memories a recall may return, for the
   query and for each part;
3. RRF (k = 60) fuses the ranked lists, each with its weight (the intent's route times the
   configured one); relevance is the fused score over the best a memory could get;
4. the composite (:mod:`eventmem.recall.score`) scales relevance by the profile's priors, lifecycle,
   utility, ACT-R activation and the intent's cue;
5. MMR (lambda 0.7) over the candidates' vectors picks the ``k`` hits.

Every hit keeps its per-channel raw scores, ranks and weights and every per-signal score in its
signals, so a caller can see why it is there.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from functools import cache, partial
from typing import NamedTuple

import numpy as np

from eventmem.config import Config
from eventmem.events import session_key
from eventmem.metadata import Filter
from eventmem.policies.classify import user_in_first_person
from eventmem.policies.conflict import detect as conflict
from eventmem.policies.extract.relations import SELF_KEY, extract, speaker_key
from eventmem.policies.routing import RoutingParams, boost
from eventmem.recall import channels as ch
from eventmem.recall import plasticity
from eventmem.recall.compounds import compound_forms
from eventmem.recall.facts import asked_first, asks_of_a_value, former_asked, own_plans_first
from eventmem.recall.plan import QueryPlan, without_frame
from eventmem.recall.score import PROFILES, Params, composite, mmr
from eventmem.recall.updates import latest_update_first
from eventmem.text.blas import single_thread
from eventmem.text.lazyre import lazy_re
from eventmem.text.normalize import STOPWORDS, tokenize
from eventmem.text.timeexpr import Anchored, mentions_time, states_duration
from projections import Projections
from projections import graph as graph_view
from projections import temporal as temporal_view
from projections.state import HIDDEN_STATUSES, MemoryRecord
from projections.temporal import valid_at as interval_valid_at

Candidate = tuple[str, float, dict[str, float]]  # memory id, score, signals


class Access(NamedTuple):
    """What the search needs from the store besides the projections."""

    embed: Callable[[list[str]], np.ndarray]  # the store's embedder
    texts: Callable[[Sequence[str]], list[str | None]]  # content hashes -> texts
    vectors: Callable[[Sequence[str]], list[bytes | None]]  # content hashes -> float32 rows
    lexical_embedder: bool  # its vectors see words, as BM25 does (the hashing embedder)
    vector_floor: float = 0.0  # a cosine below it is no evidence of relevance on its own


def eligibility(
    views: Projections, namespace: str, *, valid_at: int | None, include_hidden: bool,
    now: int | None = None, matches: Filter | None = None, superseded: bool = False,
) -> Callable[[str], bool]:
    """Which memories a recall may return: this namespace; whose metadata ``matches`` the
    caller's filters, when given; not hidden (deleted, archived...)
    unless asked; true at ``valid_at`` when given (superseded facts included: they were true
    until replaced), else not invalidated, and, given ``now`` (a to-do question), no plan
    whose deadline is past at ``now``. ``superseded``: superseded memories too (a "when"
    question asks about a time, and a replaced value was true once).

    Like the lifecycle, expiry counts once a sweep has recorded it (``consolidate`` invalidates
    memories whose valid time has ended): what a recall leaves out changes when maintenance
    runs and says so in the log. A to-do question is the exception: a task whose deadline has
    passed is no longer to be done, and the answer cannot wait for the next consolidation to
    stop offering it (a pure function of the state and ``now``). Other questions still find
    such a plan until the sweep expires it: a plan's inferred deadline is a guess ("going to
    Paris next week" is still the answer to "where did she go?"), and LoCoMo R@10 fell from
    0.763 to 0.735 when every question left them out.
    """
    memories = views.state.memories
    intervals = views.temporal.intervals

    def carried_on(record: MemoryRecord, at: int) -> bool:
        """Whether a later version of a superseded memory holds at ``valid_at`` too: a merge
        leaves the merged-away memory's valid time open (its facts carry on in the merge), and
        the version that answers then is the later one, not both."""
        seen = {record.memory_id}
        later = record.superseded_by
        while later is not None and later not in seen:
            seen.add(later)
            successor = memories.get(later)
            if successor is None or (successor.status != "superseded"
                                     and successor.status in HIDDEN_STATUSES):
                return False
            if interval_valid_at(intervals[later], at):
                return True
            later = successor.superseded_by
        return False

    def allowed(memory_id: str) -> bool:
        record = memories.get(memory_id)
        if record is None or record.namespace != namespace:
            return False
        if matches is not None and not matches(record.metadata):
            return False
        if include_hidden:
            return valid_at is None or interval_valid_at(intervals[memory_id], valid_at)
        if valid_at is not None:
            # "What was true at T": a superseded fact was, until its successor began.
            hidden = record.status != "superseded" and record.status in HIDDEN_STATUSES
            if hidden or not interval_valid_at(intervals[memory_id], valid_at):
                return False
            return record.status != "superseded" or not carried_on(record, valid_at)
        if record.status in HIDDEN_STATUSES:
            return superseded and record.status == "superseded"
        if now is not None and record.kind == "plan" and record.valid_until is not None \
                and record.valid_until <= now:
            return False
        return record.invalidated_at is None

    return allowed


def rrf(lists: Mapping[str, Sequence[tuple[str, float]]], weights: Mapping[str, float],
        k_rrf: int) -> dict[str, dict[str, float]]:
    """Weighted reciprocal rank fusion: ``rrf`` = sum over lists of ``w / (k + rank)``, rank from
    1, equal scores sharing the better rank. Each memory's signals get, per list, its raw score,
    rank and the list's weight.

    ``support`` is the same sum with each term scaled by the memory's score over the list's
    best: rank alone says the second of two is nearly as good as the first (1/62 against 1/61)
    even when it matched half as well, and the composite's bounded factors must not be able to
    swap such a pair. A list weighted 0 adds no memory; it only annotates the ones others found
    (its rank still explains them).
    """
    fused: dict[str, dict[str, float]] = {}
    for name in sorted(lists, key=lambda name: weights[name] == 0):  # weighted lists first
        ranked, weight = lists[name], weights[name]
        top = ranked[0][1] if ranked else 0.0
        rank, previous = 0, math.nan
        for position, (memory_id, score) in enumerate(ranked, start=1):
            if score != previous:  # equal scores share a rank: the evidence is the same
                rank, previous = position, score
            signals = fused.get(memory_id)
            if signals is None:
                if weight == 0:
                    continue
                signals = fused[memory_id] = {"rrf": 0.0, "support": 0.0}
            signals["rrf"] += weight / (k_rrf + rank)
            strength = score / top if top > 0 else 1.0
            signals["support"] += weight / (k_rrf + rank) * min(1.0, max(0.0, strength))
            signals[name] = score
            signals[f"{name}_rank"] = float(rank)
            signals[f"{name}_weight"] = weight
    return fused


CUES: dict[str, re.Pattern[str]] = {
    "preference": lazy_re(r"\b(favou?rite|prefer\w*|love[sd]?|like[sd]?|enjoy\w*|hate[sd]?|"
                             r"can't stand|into)\b", re.I),
    "cause": lazy_re(r"\b(because|since|so that|reason|due to|thanks to|inspired|motivat\w*|"
                        r"made me|led (me|us|to))\b", re.I),
}


def _cue(name: str | None, text: str | None, kind: str, signals: Mapping[str, float],
         plan: QueryPlan, dated: bool) -> bool:
    if name is None or text is None:
        return False
    if name == "time":
        # A question naming its time ("what did she do on May 3?") is answered by what is tied
        # to that time (the time channel's list); one asking how long, by what states a length
        # or a start; one asking when, by what says a time.
        if dated:
            return "time" in signals
        return states_duration(text) if plan.duration else mentions_time(text)
    if name == "preference" and kind == "preference":
        return True
    if name == "plan":  # only open plans are eligible: a done or expired one never gets here
        return kind == "plan"
    return bool(CUES[name].search(text))


def open_plans(views: Projections, namespace: str, n: int, allowed: ch.Allowed
               ) -> list[tuple[str, float]]:
    """The to-do channel: the namespace's eligible plans (open: neither done nor past their
    deadline), the nearest deadline first, then the latest stated. A scan of the memories,
    run only for a to-do question."""
    found = [r for r in views.state.memories.values()
             if r.kind == "plan" and r.namespace == namespace and allowed(r.memory_id)]
    found.sort(key=lambda r: (r.valid_until is None, r.valid_until or 0, -r.created_seq,
                              r.memory_id))
    return [(r.memory_id, 1.0) for r in found[:n]]


class Gathered(NamedTuple):
    """The channels' ranked lists for one query, their RRF weights, and each candidate's own
    BM25 score (for the explain, when plain BM25 is not fused)."""

    lists: dict[str, list[tuple[str, float]]]
    weights: dict[str, float]
    own_bm25: dict[str, float]


def asked_texts(plan: QueryPlan, config: Config) -> list[str]:
    """What the channels match: the query's content and its parts; for an inference question
    ("Would John be considered a patriotic person?") without its frame words, which in a
    memory speak of other guesses ("might be interested", "considering adopting")."""
    texts = [plan.content, *plan.parts]
    if plan.hypothetical and config.routing.inference_frame:
        return [without_frame(text) for text in texts]
    return texts


def gather(views: Projections, plan: QueryPlan, access: Access, query_vectors: np.ndarray, *,
           namespace: str, n: int, allowed: ch.Allowed, config: Config, now: int,
           extra_channels: Mapping[str, ch.Channel]) -> Gathered:
    """Run every channel for the query and each of its parts (a part's lists are named
    ``channel@i``). A lexical channel weighted 0 still runs (its scores are computed anyway, and
    its ranks explain the hits others found); the vector search runs only when it counts."""
    memories = views.state.memories
    route = plan.route
    kernel = ch.kernel(config.context_radius, config.context_decay)
    gap = config.context_gap_s
    configured = {"bm25": config.bm25_weight, "context": config.context_weight,
                  "vector": config.vector_weight, "time": config.time_weight,
                  "graph": config.graph_weight, "answer": config.answer_weight}

    def weight(channel: str) -> float:
        return configured.get(channel, 1.0) * route.weights.get(channel, 1.0)

    lists: dict[str, list[tuple[str, float]]] = {}
    weights: dict[str, float] = {}
    own: dict[str, float] = {}
    main: ch.Lexical | None = None
    expansion = plan.expansion
    if expansion and plan.hypothetical and config.routing.inference_frame:
        expansion = without_frame(expansion)
    index = views.text.indexes.get(namespace)
    if index is not None and config.compound_weight > 0:
        index.seal()  # its postings are the words the namespace's memories hold
    for i, text in enumerate(asked_texts(plan, config)):
        suffix = "" if i == 0 else f"@{i}"
        groups = [(text, 1.0)]
        if index is not None and config.compound_weight > 0:
            compounds = compound_forms(text, index.postings)
            if compounds:
                groups.append((compounds, config.compound_weight))
        if i == 0 and expansion:
            groups.append((expansion, config.expansion_weight))
        if i == 0 and plan.hyponyms:
            groups.append((plan.hyponyms, config.hyponym_weight))
        if i == 0 and config.routing.template_weight > 0:
            groups.extend((variant, config.routing.template_weight)
                          for variant in plan.variants)
        found = ch.lexical(views, namespace, groups)
        if main is None:
            main = found
        lists["bm25" + suffix] = ch.bm25(found, n, allowed)
        lists["context" + suffix] = ch.context(found, n, allowed, memories, kernel, gap, own=own)
        vector_weight = weight("vector")
        if access.lexical_embedder:
            # A lexical embedder's vectors repeat what BM25 sees, only blurrier: they count for
            # what BM25 cannot see, the query's words no memory holds (typos, other forms).
            vector_weight *= config.lexical_vector_share * _unknown_share(views, namespace, text)
        else:
            vector_weight *= config.semantic_vector_share
        lists["vector" + suffix] = []
        if vector_weight > 0:
            # The vector search is the costliest channel, and a list weighted 0 would only
            # annotate hits the others found: every hit gets its cosine to the query anyway
            # (see _diversify). Approximate where a namespace has ANN indexes (recall is not a
            # decision an audit re-derives; the write gate keeps exact search).
            with single_thread():
                lists["vector" + suffix] = views.vectors.search(namespace, query_vectors[i], n,
                                                                allowed, exact=False)
        weights["bm25" + suffix] = weight("bm25")
        weights["context" + suffix] = weight("context")
        weights["vector" + suffix] = vector_weight
    assert main is not None
    if config.answer_weight > 0:
        lists["answer"] = answers(main, n, allowed, memories, access, gap,
                                  seeds=config.answer_seeds)
        weights["answer"] = weight("answer")
    if plan.hypothetical and config.routing.own_words_weight > 0:
        lists["own"] = own_words(views, namespace, plan.text, main, n, allowed, access,
                                 kernel, gap)
        weights["own"] = config.routing.own_words_weight
    span = _span(views, namespace, plan, allowed, kernel, gap)
    if span is not None:
        # A query of nothing but its time ("what happened yesterday") takes every memory then;
        # one with other words, the memories then that match them.
        # Tied to the span besides their creation: the memories speaking of it (the index),
        # and the other channels' candidates whose valid time meets it (there is no
        # valid-time index to search).
        spoken = dict(temporal_view.speaking_of(views.temporal, namespace, *span))
        for name in sorted(lists):
            for memory_id, _ in lists[name]:
                if memory_id not in spoken and ch.overlaps(memories[memory_id], *span):
                    spoken[memory_id] = 1.0
        lists["time"] = ch.time_channel(main, n, allowed, memories, *span, kernel, gap,
                                        match=plan.content != plan.text,
                                        spoken=list(spoken.items()))
        weights["time"] = weight("time")
    # The graph reads names, so it takes the query as written (capitals and all).
    lists["graph"] = ch.graph_channel(views, namespace, plan.text, n, allowed, now, main)
    weights["graph"] = weight("graph")
    if plan.intent == "todo":
        lists["plans"] = open_plans(views, namespace, n, allowed)
        weights["plans"] = weight("plans")
    for name, channel in sorted(extra_channels.items()):
        lists[name] = channel(views, namespace, plan.content, n, allowed)
        weights[name] = weight(name)
    # Weights are never negative: a misconfigured weight must not push memories down.
    weights = {name: max(0.0, w) for name, w in weights.items()}
    return Gathered(lists, weights, own)


def own_words(views: Projections, namespace: str, query: str, found: ch.Lexical, n: int,
              allowed: ch.Allowed, access: Access, weights: Sequence[float], gap_s: float
              ) -> list[tuple[str, float]]:
    """The own-words channel of an inference question ("Would Caroline pursue writing as a
    career?"): what the people it names said themselves (lines labelled with their name, as in
    "Caroline: I'm still looking into counseling jobs"), ranked by the context channel's
    score. The guess is made from what someone says of themselves, and what others say to or
    of them ("Melanie: Caroline, you're so brave") matches the name as well. Reads the texts of
    the ``4 n`` best context matches only; at most ``n``."""
    named = {e.key for e in extract(query)[0] if e.key != SELF_KEY}
    if not named or not len(found.ids):
        return []
    memories = views.state.memories
    ranked = ch.context(found, 4 * n, allowed, memories, weights, gap_s)
    texts = access.texts([memories[mid].content_hash for mid, _ in ranked])
    return [(mid, score) for (mid, score), text in zip(ranked, texts, strict=True)
            if text is not None and speaker_key(text) in named][:n]


# A turn that asks ends with a question mark (after any closing quote or bracket).
_ASKS = lazy_re(r"\?[\s\"')\]]*$")


def answers(found: ch.Lexical, n: int, allowed: ch.Allowed, memories: Mapping[str, MemoryRecord],
            access: Access, gap_s: float, *, seeds: int) -> list[tuple[str, float]]:
    """The answer channel: the turn after a matching question. "How often do you work out with
    your family?" shares the query's words; "Three times a week; it keeps us on track", the
    next turn of the conversation, holds the answer and none of them. Of the ``seeds`` best BM25
    matches the recall may return, each that ends with a question lends its score to the memory
    created next in its session (one the recall may return too): best first, ties by id, at
    most ``n``."""
    ids = found.ids
    # Only a question the recall may return lends its words (a forgotten one says nothing).
    rows = [row for row in ch.top_rows(found.scores, 4 * seeds)
            if row + 1 < len(ids) and allowed(ids[row])][:seeds]
    if not rows:
        return []
    texts = access.texts([memories[ids[row]].content_hash for row in rows])
    lent: dict[str, float] = {}
    for row, text in zip(rows, texts, strict=True):
        after = ids[row + 1]
        if text is None or _ASKS.search(text) is None or not allowed(after) \
                or not ch.same_session(memories[ids[row]], memories[after], gap_s):
            continue
        lent[after] = max(lent.get(after, 0.0), float(found.scores[row]))
    return sorted(lent.items(), key=lambda item: (-item[1], item[0]))[:n]


def search(
    views: Projections,
    plan: QueryPlan,
    access: Access,
    *,
    namespace: str,
    k: int,
    now: int,
    config: Config,
    valid_at: int | None = None,
    include_hidden: bool = False,
    profile: str = "default",
    extra_channels: Mapping[str, ch.Channel] | None = None,
    matches: Filter | None = None,
    session: str | None = None,
) -> list[Candidate]:
    """The top ``k`` memories for ``plan`` in ``namespace``, best first, with their signals.
    ``session``: the caller's session, whose memories are boosted (see :func:`apply_boosts`).

    The composite and MMR look at a pool of the ``pool_factor * k`` most relevant fused
    candidates: the composite's factors are bounded, so it reorders the top of the fusion rather
    than reaching deep into it, and the per-query Python work stays proportional to ``k``.
    """
    if plan.chitchat:
        return []
    routing = config.routing
    # "When did Bob live in Oslo?" after "Bob moved to Paris": a question about a time also
    # finds the values replaced since (weighed below the current ones, see apply_boosts).
    # Only in the past tense: "When is Theo seeing the dentist?" asks the current value, and an
    # appointment moved since must not come back (mc-dev current stale>top rose 0.063 -> 0.118).
    # "Where did I use to live?": a question about a replaced value of a personal attribute
    # finds the values replaced since too, and asked_first puts the one asked on top.
    former = former_asked(plan) if valid_at is None and not include_hidden else None
    past = former is not None or (plan.intent == "temporal" and plan.past and valid_at is None
                                  and not include_hidden and routing.temporal_include_superseded)
    if valid_at is None and not include_hidden and not past \
            and routing.temporal_include_superseded and asks_of_a_value(plan):
        past = True  # "Which neighbourhood did I live in in Casablanca?" (since replaced)
    # (functools.cache: channels ask about the same ids; the answers last for this query)
    allowed = cache(eligibility(views, namespace, valid_at=valid_at,
                                include_hidden=include_hidden,
                                now=now if plan.intent == "todo" else None, matches=matches,
                                superseded=past))
    memories = views.state.memories
    n = max(math.ceil(config.candidates_per_channel * plan.route.depth), k)
    asked = asked_texts(plan, config)
    query_vectors = access.embed(asked)
    got = gather(views, plan, access, query_vectors, namespace=namespace, n=n, allowed=allowed,
                 config=config, now=now, extra_channels=extra_channels or {})
    if plan.intent == "causal" and routing.causal_hops > 0:
        # "Why did she quit?": the reason is often a memory the write path linked to the
        # event (causes, elaborates), not one sharing its words.
        seeds = [mid for mid, _ in (got.lists.get("context") or got.lists.get("vector") or [])]
        got.lists["links"] = causal_links(views, namespace, seeds[:routing.causal_seeds], n,
                                          allowed, routing.causal_hops, routing.causal_hop_decay)
        got.weights["links"] = max(0.0, config.graph_weight)
    if plan.intent == "entity" and routing.entity_hub:
        # "Who is Alice?": the memories that say most about her, whatever words they use.
        got.lists["hub"] = entity_hub(views, namespace, plan.text, n, allowed)
        got.weights["hub"] = max(0.0, config.graph_weight)
    fused = rrf(got.lists, got.weights, config.rrf_k)
    if not fused:  # no channel matched, but a memory may still state the asked attribute
        return asked_first([], views, plan, _reader(views, access), namespace=namespace, k=k,
                           allowed=allowed, latest=not past,
                           passed_by=_asked_time(valid_at, now), former=former)
    # Only what some evidence ties to the query is returned (and so reinforced): a shared word,
    # a vector close enough to mean something, a match of the asked time, a graph path, a
    # neighbouring turn of a match. Padding would be recorded as accessed and never fade.
    forms = word_forms(" ".join(asked)) if access.lexical_embedder \
        else None

    def shares_form(memory_id: str) -> bool:
        if forms is None:
            return True
        text = access.texts([memories[memory_id].content_hash])[0]
        return text is not None and shares_a_form(forms, word_forms(text))

    fused = {mid: signals for mid, signals in fused.items()
             if _evident(signals, got.own_bm25.get(mid, 0.0), access.vector_floor,
                         partial(shares_form, mid))}
    if not fused:
        return asked_first([], views, plan, _reader(views, access), namespace=namespace, k=k,
                           allowed=allowed, latest=not past,
                           passed_by=_asked_time(valid_at, now), former=former)
    best_possible = sum(got.weights[name] for name, ranked in got.lists.items() if ranked) / (
        config.rrf_k + 1)
    by_relevance = sorted(fused.items(), key=lambda item: (-item[1]["support"], item[0]))
    params = Params(config.prior_lift, config.recency_half_life_days,
                    config.activation_weight, config.decay)
    chosen = PROFILES[profile]
    pool: list[tuple[float, str, dict[str, float]]] = []
    for memory_id, signals in by_relevance[: max(k * config.pool_factor, k + 10)]:
        relevance = min(1.0, signals["support"] / best_possible)
        record = memories[memory_id]
        # "What was true at T": a fact superseded since was the answer then, not a hidden
        # memory (eligibility admits it only when valid at T and not carried on by a successor).
        # A "when" question's replaced values weigh as routing.superseded_weight says.
        status = "active" if (valid_at is not None or past) and record.status == "superseded" \
            else None
        signals.update(composite(relevance, record, now, chosen, params, status=status))
        if "bm25" not in signals:
            signals["bm25"] = got.own_bm25.get(memory_id, 0.0)
        pool.append((-signals["score"], memory_id, signals))
    pool.sort(key=lambda item: (item[0], item[1]))  # ties break by id
    if plan.route.cue is not None:
        pool = _apply_cue(pool, plan, memories, access, config.cue_boost,
                          dated="time" in got.lists)
    pool = apply_boosts(pool, views, plan, access, namespace=namespace, session=session,
                        params=routing, past=past)
    # Co-retrieval and mood: reorder only hits of no higher relevance (recall.plasticity).
    pool = plasticity.boosted(pool, views.state, plan.text, k, config.plasticity)
    if plan.listing and config.session_spread < 1.0:
        pool = spread_sessions(pool, memories, config.session_spread, config.context_gap_s)
    hits = _diversify(pool, k, memories, access, config, query_vectors[0])
    # "What is true now": of two hits stating values of one attribute of one subject, the later
    # is the current one, whether or not the write path recognised the update. (At a valid time
    # T, eligibility already keeps only what was true then.)
    if valid_at is None and not past:
        hits = newer_values_first(hits, memories, access)
        # ... and of two statements on a topic the reader knows no attribute of ("My gym is
        # PureGym", "I switched gyms"), the later update (see recall.updates).
        hits = latest_update_first(hits, views, plan, _reader(views, access),
                                   namespace=namespace, allowed=allowed, k=k)
    # The asked attribute's memories first, the latest value on top (at valid_at T, the latest
    # of those valid at T).
    hits = asked_first(hits, views, plan, _reader(views, access), namespace=namespace, k=k,
                       allowed=allowed, latest=not past, passed_by=_asked_time(valid_at, now),
                       former=former)
    # "What do I still need to get done?": the user's plans, not a friend's.
    hits = own_plans_first(hits, views, plan, _reader(views, access), namespace=namespace,
                           allowed=allowed)
    if routing.temporal_order and plan.intent == "temporal" and "time" in got.lists:
        # "What did I do last week?": what happened then, as it happened (the hits are chosen
        # by relevance, then told in valid-time order; ties keep their rank).
        hits = sorted(hits, key=lambda hit: ch.valid_time(memories[hit[0]]))
    return hits


def _asked_time(valid_at: int | None, now: int) -> int:
    """The time a question asks about: ``valid_at``, else now. An appointment or departure
    whose day has passed is the answer when none is to come: asked on Thursday "When is my vet
    appointment?" after being told on Friday "My vet appointment is on Tuesday", the Tuesday
    appointment is what the user was told, and the day shows it has passed; nothing at all, or
    another memory, would be no answer."""
    return valid_at if valid_at is not None else now


CAUSAL_LINKS = ("causes", "elaborates")


def causal_links(views: Projections, namespace: str, seeds: Sequence[str], n: int,
                 allowed: ch.Allowed, hops: int, decay: float) -> list[tuple[str, float]]:
    """The causal channel: memories reached from ``seeds`` (the best matches, best first) by
    ``causes`` and ``elaborates`` links in either direction, up to ``hops`` hops; a memory
    scores the link's weight, times ``decay`` per hop after the first, times ``1 / (1 + i)``
    for the ``i``-th seed it comes from (the best match's links count most). Best first, ties
    by id; at most ``n``."""
    graph = views.graph.namespaces.get(namespace)
    if graph is None or not seeds or hops <= 0:
        return []
    scores: dict[str, float] = {}
    seen = set(seeds)
    frontier = [(mid, 1.0 / (1 + i)) for i, mid in enumerate(seeds)]
    for hop in range(hops):
        reached: dict[str, float] = {}
        for mid, strength in frontier:
            for other, relation, weight, _ in graph.links.view(mid):
                if relation not in CAUSAL_LINKS or other in seen:
                    continue
                score = strength * max(0.0, min(1.0, weight)) * (decay if hop else 1.0)
                if score > reached.get(other, 0.0):
                    reached[other] = score
        seen.update(reached)
        frontier = sorted(reached.items())
        for mid, score in frontier:
            if score > 0 and allowed(mid):
                scores[mid] = max(score, scores.get(mid, 0.0))
    return sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:n]


def entity_hub(views: Projections, namespace: str, query: str, n: int, allowed: ch.Allowed
               ) -> list[tuple[str, float]]:
    """The entity channel: the hub of each entity the query names (the speaker aside), the
    memories that state its relations, scoring 1 + how many of them each states, then the
    latest that name it, scoring 1. Best first, then the latest; at most ``n``."""
    graph = views.graph.namespaces.get(namespace)
    if graph is None:
        return []
    memories = views.state.memories
    scores: dict[str, float] = {}
    for key in sorted({e.key for e in extract(query)[0] if e.key != SELF_KEY}):
        node = graph.entities.get(key)
        if node is None:
            continue
        stated: dict[str, float] = {}
        for edge_key in node.edges:
            edge = graph.edges.get(edge_key)
            for mid in set(edge.memory_ids) if edge is not None else ():
                stated[mid] = stated.get(mid, 1.0) + 1.0
        for mid in graph_view.latest_memories(views.graph, namespace, key, n)[1]:
            stated.setdefault(mid, 1.0)
        for mid, score in stated.items():
            if score > scores.get(mid, 0.0) and allowed(mid):
                scores[mid] = score
    ranked = sorted(scores.items(), key=lambda item: (-item[1], -memories[item[0]].created_seq,
                                                      item[0]))
    return ranked[:n]


def apply_boosts(pool: list[tuple[float, str, dict[str, float]]], views: Projections,
                 plan: QueryPlan, access: Access, *, namespace: str, session: str | None,
                 params: RoutingParams, past: bool
                 ) -> list[tuple[float, str, dict[str, float]]]:
    """Multiply each pooled score by its boosts (:func:`eventmem.policies.routing.boost`: the
    recall's session, the query's entities it names, its sub-tier, an open conflict), and by
    ``params.superseded_weight`` for a replaced value a "when" question (``past``) admitted;
    then re-sort. Every factor is in the hit's signals.

    A boost reorders hits of comparable relevance only: a hit never ends above one that
    ranked above it before the boosts and is at least ``params.relevance_margin`` times as
    relevant (ARCHITECTURE.md section 11).
    """
    if not pool:
        return pool
    memories = views.state.memories
    records = [memories[mid] for _, mid, _ in pool]
    texts = access.texts([r.content_hash for r in records])
    sessions = {session_key(namespace, session), session} if session is not None else set()
    named = _query_entity_memories(views, namespace, plan.text)
    ids = {mid for _, mid, _ in pool}
    disputed = {mid for c in views.state.conflicts.values()
                if c.status == "open" and c.namespace == namespace
                for mid in (c.memory_id, c.other_id) if mid in ids}
    before = {mid: position for position, (_, mid, _) in enumerate(pool)}
    out = []
    for (_, mid, signals), record, text in zip(pool, records, texts, strict=True):
        got = boost(record, text, same_session=bool(sessions) and record.session in sessions,
                    entities_named=sum(1 for found in named if mid in found),
                    in_open_conflict=mid in disputed, params=params)
        factor = got.weight
        if past and record.status == "superseded":
            signals["superseded_weight"] = params.superseded_weight
            factor *= params.superseded_weight
        signals["session_boost"] = got.session
        signals["entity_boost"] = got.entity
        signals["subtier_weight"] = got.subtier_weight
        signals["conflict_weight"] = got.conflict_weight
        signals["boost_weight"] = factor
        signals["score"] *= factor
        out.append((-signals["score"], mid, signals))
    out.sort(key=lambda item: (item[0], item[1]))
    return keep_clearly_better_first(out, before, params.relevance_margin)


def keep_clearly_better_first(pool: list[tuple[float, str, dict[str, float]]],
                               before: Mapping[str, int], margin: float
                               ) -> list[tuple[float, str, dict[str, float]]]:
    """``pool`` (sorted by boosted score) with every hit that a boost lifted above one it
    ranked below before, and that is at least ``margin`` times as relevant, moved back below
    it. Each moved hit takes the score of the one it now follows (scores never rise down the
    list)."""
    order = list(pool)
    for _ in range(len(order) ** 2):  # each pass fixes one pair; a pair never re-inverts
        fixed = False
        for i, (_, lifted, lifted_signals) in enumerate(order):
            for j in range(i + 1, len(order)):
                _, better, better_signals = order[j]
                if before[better] < before[lifted] and better_signals["relevance"] >= \
                        margin * lifted_signals["relevance"]:
                    moved = order.pop(i)
                    order.insert(j, moved)
                    fixed = True
                    break
            if fixed:
                break
        if not fixed:
            break
    out = []
    ceiling = math.inf
    for neg, mid, signals in order:
        if signals["score"] > ceiling:
            signals["score"] = ceiling
            neg = -ceiling
        ceiling = signals["score"]
        out.append((neg, mid, signals))
    return out


def _query_entity_memories(views: Projections, namespace: str, query: str
                           ) -> list[frozenset[str]]:
    """For each entity the query names (the speaker aside), the memories naming it."""
    graph = views.graph.namespaces.get(namespace)
    if graph is None:
        return []
    out = []
    for key in sorted({e.key for e in extract(query)[0] if e.key != SELF_KEY}):
        node = graph.entities.get(key)
        if node is not None:
            out.append(frozenset(node.memory_ids))
    return out


def word_forms(text: str) -> list[frozenset[str]]:
    """The character 4-grams of each content word of a text (padded with spaces)."""
    out = []
    for word in tokenize(text):
        if word not in STOPWORDS:
            padded = f" {word} "
            out.append(frozenset(padded[i:i + 4] for i in range(len(padded) - 3)))
    return out


def shares_a_form(query: Sequence[frozenset[str]], text: Sequence[frozenset[str]]) -> bool:
    """Whether a word of the query and a word of the text are forms of one word: they share at
    least half the 4-grams of the shorter (and two or more), as a misspelling or an inflection
    does ("printr" / "printer") and a shared ending does not ("juniper" / "copper")."""
    return any(len(q & t) >= max(2, min(len(q), len(t)) / 2) for q in query for t in text)


def _evident(signals: Mapping[str, float], own_bm25: float, floor: float,
             shares_form: Callable[[], bool]) -> bool:
    """Whether a fused candidate has evidence of relevance: a shared word (BM25, or the
    neighbouring-turn context of one), a place in a list tied to the query otherwise (the
    asked time, a graph path, the open plans, a plugged-in channel), or a vector match: at or
    above ``floor`` for a semantic embedder; for a lexical one (whose hashed features of
    unrelated short texts collide), also a word form it shares with the query
    (``shares_form``, read only when nothing else counts)."""
    if own_bm25 > 0:
        return True
    vector = False
    for name, value in signals.items():
        if name in ("rrf", "support") or name.endswith(("_rank", "_weight")):
            continue
        channel = name.partition("@")[0]
        if channel == "vector":
            vector = vector or value >= floor
        elif channel not in ("bm25", "context") or value > 0:
            return True
    return vector and shares_form()


def _reader(views: Projections, access: Access) -> Callable[[Sequence[str]], list[str | None]]:
    """Memory ids -> their texts."""
    memories = views.state.memories
    return lambda ids: access.texts([memories[mid].content_hash for mid in ids])


def _unknown_share(views: Projections, namespace: str, text: str) -> float:
    """The share of the query's content words that no memory of the namespace contains."""
    index = views.text.indexes.get(namespace)
    terms = ch.query_terms(text)
    if index is None or not terms:
        return 1.0
    index.seal()
    return sum(1 for t in terms if t not in index.postings) / len(terms)


def _span(views: Projections, namespace: str, plan: QueryPlan, allowed: ch.Allowed,
          weights: Sequence[float], gap: float) -> tuple[int, int] | None:
    """The query's time span ``[start, end)``; an anchored one ("two weeks before the trip")
    around the time of the memory that best matches its anchor (valid time, else creation)."""
    time = plan.time
    if time is None:
        return None
    if not isinstance(time, Anchored):
        return time.start, time.end
    memories = views.state.memories
    found = ch.lexical(views, namespace, [(time.anchor, 1.0)])
    top = ch.context(found, 1, allowed, memories, weights, gap)
    if not top:
        return None
    record = memories[top[0][0]]
    at = (record.valid_from if record.valid_from is not None else record.created_at) + time.offset
    return at - time.width, at + time.width


def _apply_cue(pool: list[tuple[float, str, dict[str, float]]], plan: QueryPlan,
               memories: Mapping[str, MemoryRecord], access: Access,
               boost: float, *, dated: bool = False
               ) -> list[tuple[float, str, dict[str, float]]]:
    """Favour the pool's memories that carry the intent's cue (a time for "when", the asked
    time when the query names one (``dated``), a length or a start for "how long", a reason for
    "why", a liking for a preference) by ``boost``, and re-sort."""
    records = [memories[mid] for _, mid, _ in pool]
    texts = access.texts([r.content_hash for r in records])
    out = []
    for (neg, mid, signals), record, text in zip(pool, records, texts, strict=True):
        if _cue(plan.route.cue, text, record.kind, signals, plan, dated):
            signals["cue_weight"] = boost
            signals["score"] *= boost
            neg = -signals["score"]
        out.append((neg, mid, signals))
    out.sort(key=lambda item: (item[0], item[1]))
    return out


def newer_values_first(hits: list[Candidate], memories: Mapping[str, MemoryRecord],
                       access: Access) -> list[Candidate]:
    """``hits`` with each one that states a newer value of an attribute an earlier-ranked hit
    states of the same subject (a contradiction of the claims, as the write path reads them)
    moved just above that hit. Scores stay where they were in the list, so they never rise down
    it; a moved hit is marked with ``signals["newer_value"] = 1.0``.

    Newer is by valid time (the recorded time where none was given), then by the order written.
    Deterministic: the order depends only on the hits, their records and their texts.
    """
    if len(hits) < 2:
        return hits
    records = [memories[mid] for mid, _, _ in hits]
    texts = access.texts([r.content_hash for r in records])
    # "User lives in Boston" and "I moved to Denver" are about one subject.
    parsed = {mid: conflict.claims(user_in_first_person(text))
              for (mid, _, _), text in zip(hits, texts, strict=True) if text is not None}

    def when(record: MemoryRecord) -> tuple[int, int]:
        start = record.valid_from if record.valid_from is not None else record.created_at
        return start, record.created_seq

    order = [mid for mid, _, _ in hits]
    moved: set[str] = set()
    # Each pass moves at most one hit up; a hit moves only above older hits, so it ends.
    for _ in range(len(order)):
        swap = _first_outdated(order, parsed, when, memories)
        if swap is None:
            break
        older, newer = swap
        order.remove(newer)
        order.insert(order.index(older), newer)
        moved.add(newer)
    if not moved:
        return hits
    by_id = {mid: signals for mid, _, signals in hits}
    out = []
    for (_, score, _), mid in zip(hits, order, strict=True):
        signals = by_id[mid]
        if mid in moved:
            signals["newer_value"] = 1.0
        out.append((mid, score, signals))
    return out


def _first_outdated(order: list[str], parsed: Mapping[str, conflict.Claims],
                    when: Callable[[MemoryRecord], tuple[int, int]],
                    memories: Mapping[str, MemoryRecord]) -> tuple[str, str] | None:
    """The first (older, newer) pair where a lower-ranked newer hit contradicts a higher-ranked
    older one, or None."""
    for i, older in enumerate(order):
        if older not in parsed:
            continue
        for newer in order[i + 1:]:
            if newer in parsed and when(memories[newer]) > when(memories[older]) \
                    and conflict.detect(parsed[newer], parsed[older]) is not None:
                return older, newer
    return None


def spread_sessions(pool: list[tuple[float, str, dict[str, float]]],
                    memories: Mapping[str, MemoryRecord], factor: float, gap_s: float
                    ) -> list[tuple[float, str, dict[str, float]]]:
    """A question asking for a list ("What activities has Melanie done?") is answered across
    conversations: each pool hit's score times ``factor`` for every better hit of its session
    (signals["session_spread"]), re-sorted. A penalty, like MMR's: it lifts no hit."""
    seen: list[MemoryRecord] = []
    out = []
    for neg, mid, signals in pool:
        record = memories[mid]
        before = sum(1 for other in seen if ch.same_session(record, other, gap_s))
        seen.append(record)
        if before:
            signals["session_spread"] = factor**before
            signals["score"] *= factor**before
            neg = -signals["score"]
        out.append((neg, mid, signals))
    out.sort(key=lambda item: (item[0], item[1]))
    return out


def _diversify(pool: list[tuple[float, str, dict[str, float]]], k: int,
               memories: Mapping[str, MemoryRecord], access: Access, config: Config,
               query_vector: np.ndarray) -> list[Candidate]:
    """MMR over the pool's vectors; each hit's score becomes its MMR value (never rising down
    the list), its composite score stays in ``signals["composite"]``, and its cosine to the
    query in ``signals["vector"]`` when the vector channel did not rank it."""
    ids = [mid for _, mid, _ in pool]
    signals_of = {mid: signals for _, mid, signals in pool}
    scores = [signals_of[mid]["score"] for mid in ids]
    rows = access.vectors([memories[mid].content_hash for mid in ids])
    dim = next((len(r) // 4 for r in rows if r is not None), 0)
    matrix = None
    if dim:
        matrix = np.zeros((len(ids), dim), dtype=np.float32)
        for i, row in enumerate(rows):
            if row is not None:
                matrix[i] = np.frombuffer(row, dtype=np.float32)
    with single_thread():
        picked = mmr(ids, scores, matrix, k, config.mmr_lambda, config.mmr_floor)
        cosines = (matrix @ query_vector.astype(np.float32, copy=False)).tolist() \
            if matrix is not None else [0.0] * len(ids)
    cosine_of = dict(zip(ids, cosines, strict=True))
    out = []
    for memory_id, score, redundancy in picked:
        signals = signals_of[memory_id]
        signals.setdefault("vector", cosine_of[memory_id])
        signals["composite"] = signals["score"]
        signals["redundancy"] = redundancy
        signals["score"] = score
        out.append((memory_id, score, signals))
    return out
