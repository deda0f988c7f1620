"""The end of a session: its working memories move to episodic at once.

``Engine.end_session`` is a caller's explicit action, like a pin: the caller says the session is
over. What it moves is a pure function of the state: every working-tier memory of that session
(in the order the session holds them), so the audit re-derives the event from the state before it
and finds whether the record moved the session's items, all of them and only them.
"""

from __future__ import annotations

from eventmem.config import Config
from eventmem.events import TierChange, TierChanged
from eventmem.policies.decay import progress
from eventmem.policies.lifecycle import SWEEP_POLICY
from projections import Projections
from projections.state import working_key

SESSION_ENDED = "session_ended"  # the reason of each change (replay.groups finds them by it)


def session_end(views: Projections, namespace: str, session: str, at: int, config: Config,
                *, policy: str = SWEEP_POLICY) -> list[TierChanged]:
    """The event that ends ``session`` in ``namespace`` at ``at`` (none when it holds no
    working memory): each of its working memories to episodic, with its decay progress (the
    episodic rate applies after it, as for any tier change)."""
    memories = views.state.memories
    ids = views.state.working.get(working_key(namespace, session), ())
    changes = tuple(
        TierChange(memory_id=mid, from_tier="working", to_tier="episodic", reason=SESSION_ENDED,
                   decay_done=progress(memories[mid], at, config.decay))
        for mid in ids if memories[mid].tier == "working")
    if not changes:
        return []
    return [TierChanged(at=at, namespace=namespace, actor="user", now=at, changes=changes,
                        policy=policy)]
