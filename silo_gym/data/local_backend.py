"""The local backend of :func:`silo_gym.data.collect` / :func:`~silo_gym.data.iter_collect`:
episodes played in this process on one event loop (issue 11, "Concurrent collection").

What runs where:

- An **event loop on a thread of its own** plays the episodes: up to ``concurrency`` at once, each
  on its own env (:class:`~silo_gym.data.collect.EpisodeRunner` pools them). A policy with
  ``arun_episode`` (``ChatPolicy``, ``TextProtocolPolicy``) awaits its model there, so while one
  episode waits for a reply the others step; any other policy is played inline, one episode at a
  time (``concurrency`` must then be 1). The loop has a thread of its own so that ``collect``
  works the same from a script, from a notebook whose loop is running, and under signals.
- The **calling thread** receives each row as its episode ends (``iter_collect`` yields it;
  ``collect`` keeps it). The loop starts no new episode while ``concurrency`` rows wait to be
  taken, so memory stays bounded by what the caller keeps.

Interruption. In the main thread, SIGINT and SIGTERM are taken over for the collection: the first
one starts no new episode and cancels those in flight; a cancelled episode is thrown away (ended,
its run directory deleted: every run directory left is complete). Rows finished before the signal
are still handed over; then :class:`CollectionInterrupted` (a ``KeyboardInterrupt``) is raised. A
second signal raises ``KeyboardInterrupt`` at once. Closing the iterator early (or any error)
stops the loop the same way, and the run directories of rows finished but never taken are
deleted. The previous signal handlers are restored at the end.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import queue
import shutil
import signal
import threading
from collections import deque
from collections.abc import Callable, Container, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from .config import CollectConfig
from .episodes import EpisodeJob, EpisodeRunner, aplay_with_retries, curriculum_jobs

__all__ = ["CollectCounters", "CollectionInterrupted", "iter_local"]

Order = tuple[int, int, int]
#: Seconds the calling thread waits for the loop to wind down after a stop (an inline play that
#: never returns is left behind after that).
STOP_GRACE_S = 30.0


class CollectionInterrupted(KeyboardInterrupt):
    """A collection stopped by SIGINT or SIGTERM (``signum``) after handing over its finished rows."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"Collection interrupted by {signal.Signals(signum).name}.")
        self.signum = signum


@dataclass
class CollectCounters:
    """Live counts of a collection, for progress displays (updated from the loop's thread).

    Attributes:
        started: episodes started (skipped ones not counted).
        finished: rows handed over.
        total: episodes of the collection (known once the tasks are listed; ``None`` before).
        skipped: episodes not played because ``skip`` holds them (a resumed collection).
    """

    started: int = 0
    finished: int = 0
    total: int | None = None
    skipped: int = 0

    @property
    def in_flight(self) -> int:
        return max(0, self.started - self.finished)


class _Engine:
    """The loop side and the calling side of one local collection (module docs)."""

    def __init__(self, runner: EpisodeRunner, *, episodes_per_task: int, seed: int, max_retries: int,
                 concurrency: int, skip: Container[tuple[str, str, int]] | None,
                 counters: CollectCounters | None, group_size: int = 1, curriculum: Any = None) -> None:
        self.runner = runner
        self.episodes_per_task = episodes_per_task
        self.group_size = group_size
        self.curriculum = curriculum
        self.seed = seed
        self.max_retries = max_retries
        self.concurrency = concurrency
        self.skip = skip
        self.counters = counters or CollectCounters()
        self.out: queue.SimpleQueue[tuple[str, Any]] = queue.SimpleQueue()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.thread: threading.Thread | None = None
        self.signum: int | None = None
        self._stopping = False
        self._undelivered = 0
        self._wake: asyncio.Event | None = None
        self._tasks: dict[asyncio.Task[dict[str, Any]], tuple[Order, EpisodeJob]] = {}
        self._done: deque[asyncio.Task[dict[str, Any]]] = deque()

    # -- the loop's thread ------------------------------------------------------------------

    def _jobs(self) -> Iterator[tuple[str, EpisodeJob]]:
        runner = self.runner
        plans = []
        for pos in range(len(runner.env_ids)):
            plans.append(runner.plan(pos))
        total = sum(len(p.task_ids) for p in plans) * self.episodes_per_task
        self.counters.total = total
        if self.curriculum is not None:
            for job in curriculum_jobs(plans, self.curriculum, total, self.seed, self.group_size):
                yield plans[job.env_pos].environment, job
            return
        for pos, plan in enumerate(plans):
            for job in plan.jobs(pos, self.episodes_per_task, self.seed, self.group_size):
                if self.skip is not None and (plan.environment, job.task_id, job.episode) in self.skip:
                    self.counters.skipped += 1
                    continue
                yield plan.environment, job

    def _wake_up(self, *_: Any) -> None:
        if self._wake is not None:
            self._wake.set()

    def _finished(self, task: asyncio.Task[dict[str, Any]]) -> None:
        self._done.append(task)
        self._wake_up()

    def delivered(self) -> None:
        self._undelivered -= 1
        self._wake_up()

    def stop_now(self) -> None:
        """Start no episode; cancel those in flight (loop thread)."""
        if not self._stopping:
            self._stopping = True
            for task in self._tasks:
                task.cancel()
        self._wake_up()

    async def main(self) -> BaseException | None:
        loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        error: BaseException | None = None
        jobs: Iterator[tuple[str, EpisodeJob]] | None = None
        exhausted = False
        try:
            jobs = self._jobs()
            while True:
                while (not self._stopping and not exhausted and len(self._tasks) < self.concurrency
                       and self._undelivered < self.concurrency):
                    item = next(jobs, None)
                    if item is None:
                        exhausted = True
                        break
                    environment, job = item
                    task = loop.create_task(aplay_with_retries(self.runner, environment, job, self.max_retries))
                    self._tasks[task] = (job.order, job)
                    self.counters.started += 1
                    task.add_done_callback(self._finished)
                    # One start per turn of the loop: a new episode may build its env (milliseconds),
                    # and starting hundreds at once would stall the episodes already in flight.
                    await asyncio.sleep(0)
                if not self._tasks and (exhausted or self._stopping):
                    break
                await self._wake.wait()
                self._wake.clear()
                while self._done:
                    task = self._done.popleft()
                    order, _job = self._tasks.pop(task)
                    if task.cancelled():
                        continue
                    exc = task.exception()
                    if exc is not None:
                        if error is None:
                            error = exc
                        self.stop_now()
                        continue
                    row = task.result()
                    if self.curriculum is not None and _job.item is not None and row["reward"] is not None:
                        self.curriculum.update(_job.item, bool(row["passed"]))
                    self._undelivered += 1
                    self.out.put(("row", (order, row)))
        except BaseException as exc:  # listing tasks failed, or the loop itself was interrupted
            error = exc
            self.stop_now()
            if self._tasks:
                await asyncio.gather(*self._tasks, return_exceptions=True)
        finally:
            await self.runner.aclose()
        return error

    def run_loop(self) -> None:
        loop = asyncio.new_event_loop()
        # A plain (sync) model function runs in a worker thread per episode in flight.
        loop.set_default_executor(ThreadPoolExecutor(max_workers=max(4, self.concurrency),
                                                     thread_name_prefix="silo-gym-model"))
        self.loop = loop
        try:
            error = loop.run_until_complete(self.main())
        except BaseException as exc:  # pragma: no cover - the loop machinery itself failed
            error = exc
        finally:
            with contextlib.suppress(Exception):
                loop.run_until_complete(loop.shutdown_asyncgens())
                loop.run_until_complete(loop.shutdown_default_executor())
            loop.close()
        self.out.put(("end", error))

    # -- the calling thread -----------------------------------------------------------------

    def request_stop(self) -> None:
        loop = self.loop
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self.stop_now)

    def _on_signal(self, signum: Any, frame: Any) -> None:
        if self.signum is not None:
            raise KeyboardInterrupt  # the second signal: stop waiting
        self.signum = signum
        self.request_stop()

    def rows(self) -> Iterator[tuple[Order, dict[str, Any]]]:
        previous: dict[Any, Any] = {}
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                with contextlib.suppress(ValueError, OSError):
                    previous[sig] = signal.signal(sig, self._on_signal)
        self.thread = threading.Thread(target=self.run_loop, name="silo-gym-collect", daemon=True)
        self.thread.start()
        ended = False
        try:
            while True:
                kind, payload = self.out.get()
                if kind == "row":
                    self._notify_delivered()
                    self.counters.finished += 1
                    yield payload
                    continue
                ended = True
                if payload is not None:
                    raise payload
                if self.signum is not None:
                    raise CollectionInterrupted(self.signum)
                return
        finally:
            for sig, handler in previous.items():
                with contextlib.suppress(ValueError, OSError, TypeError):
                    signal.signal(sig, handler)
            if not ended:
                self.request_stop()
            self.thread.join(STOP_GRACE_S)
            if not ended:
                self._drop_undelivered()

    def _drop_undelivered(self) -> None:
        """After an early close: delete the run directories of rows finished but never handed
        over (each run directory left is then a delivered row's)."""
        runs_dir = self.runner.runs_dir
        while True:
            try:
                kind, payload = self.out.get_nowait()
            except queue.Empty:
                return
            run_id = payload[1].get("run_id") if kind == "row" else None
            if runs_dir is not None and isinstance(run_id, str):
                shutil.rmtree(os.path.join(os.path.abspath(runs_dir), run_id), ignore_errors=True)

    def _notify_delivered(self) -> None:
        loop = self.loop
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self.delivered)


def iter_local(runner: EpisodeRunner, config: CollectConfig) -> Iterator[tuple[Order, dict[str, Any]]]:
    """Yield ``(order, row)`` for every episode of ``runner``'s ids, in completion order (module
    docs), with ``config``'s ``episodes_per_task``, ``seed``, ``max_retries``, ``concurrency``,
    ``skip`` (``(environment, task_id, episode)`` keys not to play: a resumed collection),
    ``counters``, ``group_size`` and ``curriculum`` (as for :func:`~silo_gym.data.collect`; the
    runner was made with the rest).

    Raises:
        CollectionInterrupted: SIGINT/SIGTERM stopped the collection (after its finished rows).
        SiloError, gymnasium.error.Error: errors of the environment or the setup.
    """
    engine = _Engine(runner, episodes_per_task=config.episodes_per_task, seed=config.seed,
                     max_retries=config.max_retries, concurrency=config.concurrency, skip=config.skip,
                     counters=config.counters, group_size=config.group_size, curriculum=config.curriculum)
    return engine.rows()


def check_concurrency(runner: EpisodeRunner, concurrency: int, episode_timeout_s: float | None,
                      describe: Callable[[], str]) -> None:
    """Refuse what a policy that cannot share the loop cannot do (``describe()`` names it)."""
    if runner.plays_on_loop:
        return
    if concurrency > 1:
        raise ValueError(
            f"concurrency={concurrency} needs a policy that awaits its model (an object with arun_episode, "
            f"such as ChatPolicy or TextProtocolPolicy); {describe()} plays one episode at a time. "
            "Use concurrency=1, or backend=\"ray\" with several workers.")
    if episode_timeout_s is not None:
        raise ValueError(
            f"episode_timeout_s applies to policies that await their model (arun_episode); {describe()} "
            "cannot be stopped in mid-episode. Limit it with the env's timeout_ms instead.")
