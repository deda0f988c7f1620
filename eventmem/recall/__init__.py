"""The read path: the query plan, the candidate channels, their fusion and scoring, the recall
cache, and the context builder that turns hits into prompt text."""
