"""The write gate: what a new text means against what the namespace already holds.

This version decides on exact duplicates only (the hash of the normalized text); the semantic and
prediction-error tiers extend it under a new policy version.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

from eventmem.events import POLICY_VERSION


class GateDecision(NamedTuple):
    action: Literal["create", "reinforce"]
    rule: str
    neighbour: str | None = None
    similarity: float = 0.0
    policy: str = POLICY_VERSION


def decide(existing_id: str | None) -> GateDecision:
    """Reinforce the memory that already holds this exact (normalized) text, else create."""
    if existing_id is not None:
        return GateDecision("reinforce", "exact_hash", existing_id, 1.0)
    return GateDecision("create", "new")
