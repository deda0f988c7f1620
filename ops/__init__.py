"""Operator tooling run from a checkout (benchmarks, drills). Not part of the installed package;
it uses eventmem's public API only."""
