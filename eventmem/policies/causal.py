"""Whether a text states a cause or an effect: the write path links such a text to its nearest
memory as ``causes`` rather than ``related_to`` (:mod:`eventmem.write.batch`).

The rule is one case-insensitive search for the causal words (:data:`CAUSAL`). It runs for every
created memory, so :func:`gives_reason` answers it the cheap way where that is exact: ASCII text
is lowercased and searched case-sensitively behind a literal exit (:mod:`.literals`).
"""

from __future__ import annotations

import re
from typing import Final

from eventmem.policies.literals import Prefilter
from eventmem.text.lazyre import lazy_re

__all__ = ["CAUSAL", "gives_reason"]

_WORDS: Final = (r"\b(because|since|so that|therefore|as a result|due to|led to|caused|"
                 r"thanks to)\b")
# The rule itself: a match anywhere, in any case.
CAUSAL: Final = lazy_re(_WORDS, re.IGNORECASE)
# Lowercasing ASCII text changes no length and no word boundary, and under IGNORECASE only
# non-ASCII letters (the Kelvin sign, the long s...) match ASCII ones besides the two cases:
# on ASCII text the lowercase search finds a match exactly when the rule does, at twice the speed,
# and the exit skips the search for most texts.
_LOWER: Final = lazy_re(_WORDS)
_EXIT: Final = Prefilter([_WORDS])


def gives_reason(text: str) -> bool:
    """Whether :data:`CAUSAL` finds a match in ``text``."""
    if not text.isascii():
        return CAUSAL.search(text) is not None
    lower = text.lower()
    return _EXIT.may_match(lower) and _LOWER.search(lower) is not None
