"""The progress bar of ``silo-gym collect``: episodes done (of the total), in flight, failed,
episodes per second and mean reward (issue 11). Shown on stderr when it is a terminal."""

from __future__ import annotations

import os
import signal
import sys
import time
from typing import Any

from ..rounding import to_fixed

__all__ = ["CollectProgress", "report_interruption"]


class CollectProgress:
    """A ``progress(row)`` callback drawing a tqdm bar from rows and live ``counters``."""

    def __init__(self, label: str, total: int | None, counters: Any) -> None:
        from tqdm import tqdm

        self.counters = counters
        self.failed = 0
        self.rewards = 0.0
        self.rewarded = 0
        self.started = time.perf_counter()
        self.bar = tqdm(total=total, desc=label, file=sys.stderr, unit="ep", dynamic_ncols=True)
        self.skipped_shown = False

    def __call__(self, row: dict[str, Any]) -> None:
        if not self.skipped_shown:  # a resumed collection: the rows already on disk count as done
            self.skipped_shown = True
            if self.counters.skipped:
                self.bar.update(self.counters.skipped)
        if row["reward"] is None:
            self.failed += 1
        else:
            self.rewards += row["reward"]
            self.rewarded += 1
        mean = to_fixed(self.rewards / self.rewarded, 2) if self.rewarded else "-"
        self.bar.update(1)
        self.bar.set_postfix_str(f"in flight {self.counters.in_flight}, failed {self.failed}, mean reward {mean}",
                                 refresh=False)

    def close(self) -> None:
        self.bar.close()


def report_interruption(exc: KeyboardInterrupt, bar: CollectProgress | None, stream: str, finished: str,
                        work: str) -> int:
    """After Ctrl-C or SIGTERM stopped a collection: close ``bar`` (closing again later does
    nothing) and say on stderr what it left: where the collection had begun (its record lies
    beside ``stream``), that the ``finished`` rows are in ``stream`` and that ``--resume`` finishes
    the ``work``; before that (the policy still loading, say), that nothing was written. Returns
    the exit code, 128 + the signal number: the collection's own signal, the command line's
    SIGTERM (``Terminated.signum``, raised outside the collection's handler), else SIGINT."""
    from ..data.local_backend import CollectionInterrupted
    from ..data.stream import MANIFEST

    if bar is not None:
        bar.close()
    signum = exc.signum if isinstance(exc, CollectionInterrupted) else getattr(exc, "signum", None)
    out = os.path.dirname(stream) or "."
    if not os.path.isfile(os.path.join(out, MANIFEST)):
        sys.stderr.write(f"Interrupted before the {work} began; nothing was written to {out}.\n")
    else:
        sys.stderr.write(f"Interrupted: the finished {finished} are in {stream}; run the same command with --resume "
                         f"to finish the {work}.\n")
    return 128 + (int(signum) if isinstance(signum, int) else int(signal.SIGINT))
