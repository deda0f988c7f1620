"""python -m eventmem.cli: the eventmem command."""

from eventmem.cli.commands import main

raise SystemExit(main())
