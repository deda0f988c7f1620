"""Content for texts: what the store already holds, the rest analysed once.

Everything the store derives from a text -- its vector (the store's embedder), its BM25 terms and
its extracted entities and relations -- is computed here, once, and stored with the text by its
content hash. The engine's write path and the audit's re-derivation call the same function, so
they see the same analysis. A large write hands the texts to worker processes
(:mod:`eventmem.write.workers`), which run the same code and send back the same bytes.
"""

from __future__ import annotations

from collections.abc import Mapping

from eventmem.policies.extract import judge as fact_judge
from eventmem.policies.extract import relations as extract
from eventmem.storage.envelope import Content
from eventmem.storage.log import EventLog
from eventmem.text.embedders import Embedder
from eventmem.text.normalize import packed_terms
from eventmem.write import readings
from eventmem.write.workers import Pool


def contents_for(log: EventLog, embedder: Embedder, texts: Mapping[str, str],
                 extractor: fact_judge.FactExtractor | None = None,
                 pool: Pool | None = None) -> dict[str, Content]:
    """Content for these texts (content hash -> text): the store's where it holds it whole (the
    vector cache), the rest analysed here, embedded in one batch, or by ``pool``'s worker
    processes when there are enough of them (which also read ahead what the decisions will ask
    of each text: :mod:`eventmem.write.readings`). ``extractor``: a pluggable fact extractor
    (None: the rules), whose answer is stored as the text's extraction; the workers read by
    the rules, so a pluggable one is asked here, in the engine's process."""
    hashes = list(texts)
    out = {h: c for h, c in zip(hashes, log.contents(hashes), strict=True)
           if c is not None and c.vector is not None and c.terms is not None}
    missing = [h for h in hashes if h not in out]
    if not missing:
        return out
    fresh = [texts[h] for h in missing]
    rules = fact_judge.is_rules(extractor)

    def extraction(text: str) -> bytes | None:
        if rules:
            return extract.encoded(text)
        return fact_judge.extraction(extractor.facts(  # type: ignore[union-attr]
            fact_judge.FactQuestion(text=text)))

    analysed = pool.analyse(fresh) if rules and pool is not None and pool.worth(len(fresh)) \
        else None
    if analysed is None:
        rows = embedder.embed(fresh)
        for h, text, row in zip(missing, fresh, rows, strict=True):
            out[h] = Content(text, row.tobytes(), packed_terms(text), extraction(text))
        return out
    assert pool is not None  # the analysis came from its workers
    readings.seed(fresh, [a.reading for a in analysed])
    vectors = [a.vector for a in analysed] if pool.embeds \
        else [row.tobytes() for row in embedder.embed(fresh)]
    for h, text, a, vector in zip(missing, fresh, analysed, vectors, strict=True):
        out[h] = Content(text, vector, a.terms, a.extraction)
    return out
