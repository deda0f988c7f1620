"""Contradiction detection without a model: a text cut into clauses, each read as claims
(subject, attribute, value), and the claims of two texts compared."""
