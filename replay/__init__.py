"""Rebuild, verify, audit and explain from the log: the tools that make the log the source of
truth."""

from replay.audit import AuditFinding, AuditReport, audit
from replay.history import history
from replay.rebuild import load_or_rebuild, rebuild
from replay.verify import Finding, VerifyReport, verify

__all__ = ["AuditFinding", "AuditReport", "Finding", "VerifyReport", "audit", "history",
           "load_or_rebuild", "rebuild", "verify"]
