"""Drills: a store attacked as a careless or hostile user would (threads sharing one engine,
lock files deleted under a writer, a truncated data file, ...). Each drill is a module run as
``python -m ops.drills.NAME``; it prints its counts (the targets are 0) and writes them, with
the machine it ran on, to ``ops/drills/results/NAME.json``. Quick versions run in the tests
(``tests/ops/test_drills.py``)."""
