"""Benchmarks: ``python -m ops.bench.log`` (write/replay/open speed) and
``python -m ops.bench.locomo`` (retrieval quality on the LoCoMo dev split). See README.md here."""
