"""The observer filter: whether an input is worth remembering at all, decided before any other
work on it; its rules, and the regexes they match."""
