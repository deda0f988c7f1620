"""Drills: a store attacked as a careless or hostile user would (fuzzed public calls, threads
sharing one engine, lock files deleted under a writer, a truncated data file, ...). Each drill is
a module run as ``python -m ops.drills.NAME``; it prints its counts (the targets are 0) and writes
them, with the machine it ran on, to ``ops/drills/results/NAME.json``. They use eventmem's public
API only; quick versions run in the tests (``tests/ops/``)."""
