"""eventmem's tests. The folders mirror the code's (ARCHITECTURE.md section 1): a test lives
beside the tests of the feature it checks, whatever found the bug it pins.

A package, so that a test module at any depth imports the shared helpers as ``tests.strategies``
and ``tests.disk``, and another process (given the checkout on ``PYTHONPATH``) imports a test
module by its dotted name; pytest puts the checkout first on ``sys.path`` for the same reason.
"""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
"""The checkout: what tests read (README, sources), run from and put on a child's PYTHONPATH."""
