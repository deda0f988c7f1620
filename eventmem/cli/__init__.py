"""The ``eventmem`` command line: the commands and their parser, the readable renderings they
print, and the demo."""
