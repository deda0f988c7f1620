"""Maintenance, what ``consolidate(now=...)`` records: the lifecycle sweep, then the dream cycle,
each planned as events from the state and ``now``."""
