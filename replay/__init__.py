"""Rebuild, verify and explain from the log: the tools that make the log the source of truth."""

from replay.history import history
from replay.rebuild import load_or_rebuild, rebuild
from replay.verify import Finding, VerifyReport, verify

__all__ = ["Finding", "VerifyReport", "history", "load_or_rebuild", "rebuild", "verify"]
