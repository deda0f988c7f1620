"""Text analysis: normalization and BM25 terms, the embedders (a hashing default, an optional
neural one), time expressions in queries, and the one-thread BLAS guard."""
