"""One BLAS thread for eventmem's own matrix products.

The products behind a decision or a recall are small (a batch of queries against a few thousand
rows). With OpenBLAS's default thread pool each one pays a thread hand-off that costs far more
than the arithmetic (measured here: 2.5 ms against 0.08 ms for 1 x 256 by 256 x 4096), and much
more again on a busy machine. Pinning also keeps a result from depending on how the work was
split. The limit applies only inside the ``with`` block; the caller's own numpy code keeps its
threads.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from threadpoolctl import ThreadpoolController


@lru_cache(maxsize=1)
def _controller() -> ThreadpoolController:
    # Imported on first use, with the inspection it exists for: a command that multiplies no
    # matrix does not pay for it at start-up.
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()  # inspects the loaded libraries once per process


def single_thread() -> AbstractContextManager[Any]:
    """``with single_thread(): ...`` runs BLAS on one thread."""
    return _controller().limit(limits=1, user_api="blas")
