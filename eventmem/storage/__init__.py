"""The store on disk: the hash-chained event log in its LMDB environment, the content tables,
the envelopes folds receive, and the ops log."""
