"""What projections fold: an event with its sequence number and the content it references.

Events reference text and vectors by content hash (so erasure can remove the bytes and the log
stays immutable). The log reader joins those references before folding, which keeps every
projection a pure function of what it is handed: no projection reads the store.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from eventmem.events import Event


class Envelope(NamedTuple):
    seq: int
    event: Event
    text: str | None = None  # the blob, for events that introduce content; None once erased
    vector: np.ndarray | None = None  # float32 row from the vector cache, same condition
