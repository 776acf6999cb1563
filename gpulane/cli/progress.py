"""A progress indicator for the slow steps, on a terminal only.

Compiling the knowledge base on the first run, importing a vendor file and a long
fix search show a rich spinner on standard error, and only when standard error
is a terminal and JSON was not asked for: pipes, scripts and `--json` see nothing.
The spinner appears only once a step has run for a moment, so fast (warm) runs
never flicker, and it is erased when the step ends.
"""

from __future__ import annotations

import sys
import threading
from contextlib import contextmanager
from typing import Iterator

__all__ = ["progress", "interactive"]

DELAY_S = 0.4  # a step faster than this shows nothing


def interactive() -> bool:
    """Whether a person watches: standard error is a terminal and no --json output was asked for."""
    return sys.stderr.isatty() and "--json" not in sys.argv[1:]


@contextmanager
def progress(message: str, *, console=None, delay: float = DELAY_S) -> Iterator[None]:
    """Show ``message`` with a spinner while the block runs (if it runs longer than ``delay``)."""
    if console is None:
        if not interactive():
            yield
            return
        from rich.console import Console

        console = Console(stderr=True)
    status = console.status(message, spinner="dots")
    lock = threading.Lock()
    state = {"done": False}

    def start() -> None:
        with lock:
            if not state["done"]:
                status.start()

    timer = threading.Timer(delay, start)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        with lock:
            state["done"] = True
            status.stop()
