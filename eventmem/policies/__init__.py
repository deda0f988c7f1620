"""Pure decision functions: inputs in the signature, a decision out; no clock, no I/O.

The write path and the audit call the same functions with the same inputs.
"""
