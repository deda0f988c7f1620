"""The write path: checked items, their neighbours, the batch that decides and records what
to keep, conflict resolution, and erasure."""
