"""Drills: hostile or careless use of a real store, each printing its counts and writing JSON
(``python -m ops.drills.fuzz``: fuzzed public calls). They use eventmem's public API only."""
