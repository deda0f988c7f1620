"""Text normalisation and terms (eventmem/text/normalize.py): the dedup key, content hash,
normalisation, tokenizing (its ASCII fast path included), stems, term ids and packed terms, each a
pure function of the text; the fast folds give what the plain computation gave."""

from __future__ import annotations

import hashlib
import unicodedata
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eventmem.text import normalize as tx
from tests.strategies import fast_path_texts, unicode_texts

SETTINGS = settings(max_examples=60, deadline=None)


_ascii_words = st.text(alphabet="abcsXYZS019_ '-.,!?\t\n", max_size=60)


def test_dedup_key_ignores_case_spacing_and_compatibility_forms() -> None:
    key = tx.dedup_key("Alice moved to Berlin")
    assert tx.dedup_key("  alice   MOVED to\tberlin \n") == key
    assert tx.dedup_key("Ａｌｉｃｅ moved to Berlin") == key  # fullwidth (NFKC)
    assert tx.dedup_key("Alice moved to Paris") != key
    assert tx.dedup_key("Alice moved to Berlin.") != key
    assert len(key) == 32 and int(key, 16) >= 0


def test_content_hash_is_of_the_exact_bytes() -> None:
    assert tx.content_hash("a") == hashlib.blake2b(b"a", digest_size=16).hexdigest()
    assert tx.content_hash("a ") != tx.content_hash("a")


@SETTINGS
@given(unicode_texts(80))
def test_normalize_is_idempotent_and_collapses_space(text: str) -> None:
    once = tx.normalize(text)
    assert tx.normalize(once) == once
    assert once == once.strip() and "  " not in once
    assert not any(ch.isspace() and ch != " " for ch in once)


@SETTINGS
@given(unicode_texts(80))
def test_tokenize_handles_any_unicode(text: str) -> None:
    tokens = tx.tokenize(text)
    assert all(tok and tok == tok.casefold() for tok in tokens)
    ids, counts = tx.term_counts(text)
    assert ids.dtype == np.uint32 and counts.dtype == np.int32
    assert np.all(np.diff(ids.astype(np.int64)) > 0)  # sorted, unique
    assert int(counts.sum()) == len(tokens)
    assert {tx.term_id(tok) for tok in tokens} == set(ids.tolist())
    assert {zlib.crc32(tx.stem(tok).encode()) for tok in tokens} == set(ids.tolist())


@SETTINGS
@given(_ascii_words)
def test_ascii_fast_path_matches_regex_path(text: str) -> None:
    assert tx._tokenize_ascii(text) == tx._tokenize_unicode(text)


def test_tokenize_examples() -> None:
    assert tx.tokenize("Alice's cat isn't O’Brien’s!") == ["alice", "cat", "isn", "t", "o", "brien"]
    assert tx.tokenize("ＡＢＣ ﬁne Straße") == ["abc", "fine", "strasse"]
    assert tx.tokenize("") == [] and tx.tokenize(" .,! ") == []


def test_term_ids_are_crc32_of_stems_and_counts_add_up() -> None:
    assert tx.term_id("alice") == zlib.crc32(b"alic")
    assert tx.term_id("moved") == tx.term_id("moves") == tx.term_id("move")
    assert tx.term_id("東京") == zlib.crc32("東京".encode())
    ids, counts = tx.term_counts("the cat and the hat, THE end")
    got = dict(zip(ids.tolist(), counts.tolist(), strict=True))
    assert got[tx.term_id("the")] == 3 and got[tx.term_id("cat")] == 1
    assert tx.term_counts("")[0].shape == (0,)


@pytest.mark.parametrize(
    ("words", "stem"),
    [
        ("move moves moved moving", "mov"),
        ("study studies studied", "study"),
        ("paint paints painted painting", "paint"),
        ("stop stops stopped stopping", "stop"),
    ],
)
def test_stem_merges_inflections(words: str, stem: str) -> None:
    assert {tx.stem(w) for w in words.split()} == {stem}


def test_stem_leaves_short_and_odd_tokens() -> None:
    for tok in ("is", "bus", "class", "this", "2023", "naïve", "thing"):
        assert tx.stem(tok) == tok


@given(st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=80))
def test_packed_terms_are_term_counts_and_token_count(text: str) -> None:
    from eventmem.text.normalize import packed_parts, packed_terms

    ids, counts = tx.term_counts(text)
    length, packed_ids, packed_counts = packed_parts(packed_terms(text))
    assert length == len(tx.tokenize(text)) == int(counts.sum())
    assert np.frombuffer(packed_ids, dtype=np.uint32).tolist() == ids.tolist()
    assert np.frombuffer(packed_counts, dtype=np.uint32).tolist() == counts.tolist()


# -- the fast folds --------------------------------------------------------------------------------


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(fast_path_texts())
def test_folded_and_dedup_key_are_unchanged(value: str) -> None:
    reference = " ".join(unicodedata.normalize("NFKC", value).casefold().split())
    assert tx.folded(value) == reference
    assert tx.dedup_key(value) == hashlib.blake2b(reference.encode(), digest_size=16).hexdigest()
