"""The emotion of a text: valence, arousal and an Ekman category (issue 18 item 3).

``analyse(text, arousal)`` is pure and lexical (no model), so the write path and the audit read
the same emotion from the same text. The write path records it on each new memory
(``memory.ingested``: ``valence``, ``arousal``, ``emotion``, under ``emotion_policy``); recall reads
the query's valence as its mood (mood-congruent recall, eventmem.recall.plasticity).

* valence in [-1, 1]: (positive - negative) / (positive + negative) over the lexicon words found,
  a word after a negation ("not", "never", "n't") counting for the other side; 0 when none;
* arousal in [0, 1]: the importance policy's arousal channel (urgency, exclamation, capitals, the
  emotion cues) combined by noisy-OR with profanity;
* category: the Ekman emotion (anger, disgust, fear, happiness, sadness, surprise) with the most
  lexicon words, ties in that order; "" when none.
"""

from __future__ import annotations

import re
from typing import Final, NamedTuple

from eventmem.text.lazyre import lazy_re

__all__ = ["EKMAN", "EMOTION_POLICY", "Emotion", "analyse", "mood"]

EMOTION_POLICY: Final = "emotion-1"
EKMAN: Final = ("anger", "disgust", "fear", "happiness", "sadness", "surprise")
PROFANITY_AROUSAL: Final = 0.4


def _lexicon(words: str) -> frozenset[str]:
    return frozenset(words.split())


_POSITIVE = _lexicon("""
love loved loves loving lovely like liked likes enjoy enjoys enjoyed enjoying happy happier glad
great good
wonderful amazing awesome fantastic excellent delighted thrilled excited proud grateful
thankful beautiful fun nice perfect pleased joy joyful relieved celebrate celebrated won win
success successful promoted best favourite favorite calm peaceful hope hopeful cheerful
""")
_NEGATIVE = _lexicon("""
hate hated hates sad sadder unhappy angry furious mad annoyed upset terrible awful horrible
bad worse worst afraid scared terrified anxious worried nervous depressed lonely miserable
disappointed disgusted gross sick hurt pain painful lost lose failed failure broke broken
died dead death cried crying heartbroken devastated stressed frustrated boring bored sorry
""")
_NEGATIONS = frozenset({"not", "no", "never", "hardly", "without", "nothing"})
_CATEGORIES: Final[dict[str, frozenset[str]]] = {
    "anger": _lexicon("angry furious mad annoyed irritated outraged rage hate hated hates "
                       "frustrated livid"),
    "disgust": _lexicon("disgusted disgusting gross revolting nasty sickening yuck "
                         "repulsive"),
    "fear": _lexicon("afraid scared terrified anxious worried nervous frightened panic "
                      "fear feared dread"),
    "happiness": _lexicon("happy glad delighted thrilled excited joy joyful love loved "
                           "proud grateful cheerful pleased wonderful celebrate "
                           "celebrated"),
    "sadness": _lexicon("sad unhappy depressed lonely miserable heartbroken devastated "
                         "cried crying grief grieving died disappointed lost"),
    "surprise": _lexicon("surprised surprising shocked astonished amazed unexpected "
                          "suddenly wow stunned"),
}
# Each lexicon word's categories, in EKMAN order: a word is looked up once, not in every
# category's lexicon in turn.
_CATEGORIES_OF: Final[dict[str, tuple[str, ...]]] = {
    word: tuple(c for c, lexicon in _CATEGORIES.items() if word in lexicon)
    for word in sorted(frozenset().union(*_CATEGORIES.values()))}
_PROFANITY = lazy_re(r"\b(?:fuck\w*|shit\w*|damn\w*|bastard\w*|crap\w*|bullshit|"
                        r"hell|wtf)\b", re.IGNORECASE)
_WORD = lazy_re(r"[a-z]+(?:'[a-z]+)?")


class Emotion(NamedTuple):
    """What :func:`analyse` reads from a text."""

    valence: float
    arousal: float
    category: str


def analyse(text: str, arousal: float) -> Emotion:
    """The emotion of ``text``, with ``arousal`` the importance policy's arousal channel."""
    words = _WORD.findall(text.lower())
    positive = negative = 0
    counts = dict.fromkeys(EKMAN, 0)
    for i, word in enumerate(words):
        negated = i > 0 and (words[i - 1] in _NEGATIONS or words[i - 1].endswith("n't"))
        if word in _POSITIVE:
            positive, negative = (positive, negative + 1) if negated else (positive + 1, negative)
        elif word in _NEGATIVE:
            positive, negative = (positive + 1, negative) if negated else (positive, negative + 1)
        if not negated:
            for category in _CATEGORIES_OF.get(word, ()):
                counts[category] += 1
    found = positive + negative
    valence = 0.0 if not found else round((positive - negative) / found, 6)
    if _PROFANITY.search(text):
        arousal = 1.0 - (1.0 - arousal) * (1.0 - PROFANITY_AROUSAL)
    best = max(EKMAN, key=lambda c: (counts[c], -EKMAN.index(c)))
    return Emotion(valence, round(min(1.0, max(0.0, arousal)), 6),
                   best if counts[best] else "")


def mood(text: str) -> int:
    """The mood a query carries: +1 (positive), -1 (negative) or 0 (none)."""
    valence = analyse(text, 0.0).valence
    return (valence > 0) - (valence < 0)
