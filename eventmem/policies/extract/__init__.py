"""Entity and relation extraction by deterministic rules: the word lists, the name scanner, the
relation patterns, and the extractor that runs them."""
