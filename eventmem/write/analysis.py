"""Content for texts: what the store already holds, the rest analysed once.

Everything the store derives from a text -- its vector (the store's embedder), its BM25 terms and
its extracted entities and relations -- is computed here, once, and stored with the text by its
content hash. The engine's write path and the audit's re-derivation call the same function, so
they see the same analysis.
"""

from __future__ import annotations

from collections.abc import Mapping

from eventmem.policies.extract import judge as fact_judge
from eventmem.policies.extract import relations as extract
from eventmem.storage.envelope import Content
from eventmem.storage.log import EventLog
from eventmem.text.embedders import Embedder
from eventmem.text.normalize import packed_terms


def contents_for(log: EventLog, embedder: Embedder, texts: Mapping[str, str],
                 extractor: fact_judge.FactExtractor | None = None) -> dict[str, Content]:
    """Content for these texts (content hash -> text): the store's where it holds it whole (the
    vector cache), the rest analysed here, embedded in one batch. ``extractor``: a pluggable
    fact extractor (None: the rules), whose answer is stored as the text's extraction."""
    hashes = list(texts)
    out = {h: c for h, c in zip(hashes, log.contents(hashes), strict=True)
           if c is not None and c.vector is not None and c.terms is not None}
    missing = [h for h in hashes if h not in out]
    if missing:
        rows = embedder.embed([texts[h] for h in missing])
        for h, row in zip(missing, rows, strict=True):
            out[h] = Content(texts[h], row.tobytes(), packed_terms(texts[h]),
                             extract.encoded(texts[h]) if fact_judge.is_rules(extractor)
                             else fact_judge.extraction(extractor.facts(  # type: ignore[union-attr]
                                 fact_judge.FactQuestion(text=texts[h]))))
    return out
