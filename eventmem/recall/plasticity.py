"""The recall side of plasticity (eventmem.policies.plasticity): the co-retrieval boost and
mood-congruent recall, two more signals of a hit, shown in its ``signals`` ("explain").

* co-retrieval: a candidate returned together with one of the top ``k`` candidates at least
  ``coretrieval_min`` (3) times before (``State.coretrieved``, folded from the recorded recalls)
  gains ``coretrieval_boost`` on its score (signal ``coretrieval``: the count); the seed says
  +0.05, the default is 0 (off: it cost accuracy on mc-dev, see PlasticityParams);
* mood: when the query carries a mood (eventmem.policies.emotion), a memory of the same valence
  is weighed ``mood_boost`` (x1.1) (signal ``mood_weight``).

Both are bounded the way access and activation are (issue 14 item 2): they may reorder hits of
comparable relevance, and never lift a hit above one of higher relevance. A boosted score stops
just under the lowest score of the candidates more relevant than it, and never falls.
"""

from __future__ import annotations

import math

from eventmem.policies.emotion import mood
from eventmem.policies.plasticity import PlasticityParams
from projections.state import State, pair_key

Pool = list[tuple[float, str, dict[str, float]]]  # (-score, memory id, signals), best first


def boosted(pool: Pool, state: State, query: str, k: int, params: PlasticityParams) -> Pool:
    """``pool`` with the co-retrieval and mood boosts applied, best first again."""
    if not pool:
        return pool
    feeling = mood(query) if params.mood_boost > 1.0 else 0
    coretrieved = state.coretrieved
    anchors = [mid for _, mid, _ in pool[:k]] if coretrieved and params.coretrieval_boost else []
    memories = state.memories
    wanted: dict[str, float] = {}
    for _, mid, signals in pool:
        score = signals["score"]
        target = score
        if feeling:
            valence = memories[mid].valence
            if valence and (valence > 0) == (feeling > 0):
                signals["mood_weight"] = params.mood_boost
                target *= params.mood_boost
        if anchors:
            together = max((coretrieved.get(pair_key(mid, other), 0) for other in anchors
                            if other != mid), default=0)
            if together >= params.coretrieval_min:
                signals["coretrieval"] = float(together)
                target += params.coretrieval_boost
        if target > score:
            wanted[mid] = target
    if not wanted:
        return pool
    out: Pool = []
    for neg, mid, signals in pool:
        if mid in wanted:
            relevance = signals["relevance"]
            cap = min((s["score"] for _, other, s in pool
                       if s["relevance"] > relevance and other != mid), default=math.inf)
            score = max(signals["score"], min(wanted[mid], math.nextafter(cap, 0.0)))
            signals["score"] = score
            neg = -score
        out.append((neg, mid, signals))
    out.sort(key=lambda item: (item[0], item[1]))
    return out
