"""The write path's split of compound statements: one checked item per clause.

An item whose text joins complete clauses about different named subjects
(:func:`eventmem.policies.split.clauses`) becomes one item per clause, in order, each with the
caller's options and metadata (so a hit on any clause maps back to what the caller gave), the
whole text's content hash and the clause's position. Each clause is then decided like any
item: the gate can reinforce, update or supersede one clause without touching the others, which
is why the whole text is not kept as a memory beside them (its stale half would stay on top).
The batch derives the later clauses from the first clause's memory (eventmem.write.batch), and
the engine gives the caller the first clause's result.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from eventmem.config import FormationParams
from eventmem.policies import split
from eventmem.text.normalize import content_hash
from eventmem.write.items import Item

__all__ = ["split_items"]


def split_items(items: Sequence[Item], params: FormationParams) -> list[Item]:
    """``items`` with every compound statement replaced by its clauses (see the module
    docstring); unchanged when ``params.split_compounds`` is off. Items the caller decided
    (an update, an import) are never split."""
    if not params.split_compounds:
        return list(items)
    out: list[Item] = []
    for item in items:
        parts = None if item.replaces is not None or item.created_at is not None \
            else split.clauses(item.text)
        if parts is None:
            out.append(item)
            continue
        source = content_hash(item.text)
        out += [msgspec.structs.replace(item, text=part, source_hash=source, part=k,
                                        split_policy=split.POLICY_VERSION)
                for k, part in enumerate(parts)]
    return out
