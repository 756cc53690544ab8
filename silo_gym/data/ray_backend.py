"""The Ray backend of :func:`silo_gym.data.collect` / :func:`~silo_gym.data.iter_collect`
(``backend="ray"``; needs the ``silo-gym[ray]`` extra, imported only when used).

What runs where:

- The **driver** (the process calling ``collect``) lists the tasks of each id, hands out episodes
  and writes everything that ends up on its disk: the run directories in ``runs_dir`` and,
  through the caller, the rows.
- Each **worker** is a Ray actor (:class:`RayEpisodeWorker`). It imports ``silo_gym``, rebuilds
  the policy, then plays **whole episodes**: the policy, any LLM call included, runs inside the
  actor; there is one remote call per episode, never one per step. The actor is an async actor:
  up to ``concurrency`` episodes play at once on its event loop, each on its own env (as in the
  local backend), and one more waits, so the driver holds little and workers never starve.
  ``episode_timeout_s`` applies inside the worker.

The policy travels as follows: a string (``"random"``, ``path.py[:name]``) is sent as the string
and rebuilt in every worker (``path.py`` is resolved against the driver's current directory and
must exist at that path on every node); any other object goes through cloudpickle, as Ray sends
every argument. A zero-argument factory (``make_policy``) is sent uncalled and called once in
each worker: that is how to use a policy holding something that does not pickle, such as an
HTTP client. An unpicklable policy raises ``TypeError`` naming these options.

Artifacts are **shipped back**: a worker records each episode into a private staging directory
on its own node, reads the four files when the episode is done, deletes the directory and returns
the bytes with the row; the driver writes them into ``runs_dir/<runId>/`` (:func:`publish_run`).
So ``runs_dir`` need not be shared between nodes, the files are byte-identical to the local
backend's (``result.json`` and ``state-diff.json`` entirely; ``run.json`` and ``trace.jsonl``
apart from the run id and clock values), and a failed attempt never leaves anything in
``runs_dir``: only finished episodes reach the driver. ``run_id`` keeps the worker's start time;
in the rare case that the driver already has that id, a new suffix is drawn and the ``runId``
written in ``run.json`` and the trace's ``run_start`` line follows it.

Faults: a worker that dies (killed, crashed, its node lost) is replaced by a new actor, and the
episodes it held whose results had not arrived are played again. Ray cannot say which of them was
playing (a finished episode's reply can die with the process), so: when one episode was lost, it
used up an attempt; when several were, none is charged, and each is replayed *alone* on a worker
(nothing queued beside it), so that another death is unambiguous. A failed attempt (death, or
the policy raising) is retried on another worker up to ``max_retries`` times; then the episode
gives a failed row (:func:`silo_gym.data.failed_row`) and collection goes on. No episode is ever
recorded twice: its artifacts travel with its result. Errors of the environment
or the setup (``SiloError``, Gymnasium errors, a worker that cannot start) stop the collection
and are raised in the driver as the original exception.

Cluster: with ``ray_address`` (or ``RAY_ADDRESS``), the driver joins that cluster; with neither,
it starts a local one for this collection and shuts it down at the end. When Ray is already
initialised in the process, that connection is used and left running.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import pickle
import secrets
import shutil
import socket
import tempfile
import time
import warnings
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..wrappers.record import RunDirJournal, write_atomic
from .config import CollectConfig
from .episodes import (
    RUN_FILES,
    EpisodeJob,
    EpisodeRunner,
    FailedAttempt,
    describe_error,
    failed_row,
    plan_envs,
)

__all__ = ["IN_FLIGHT_PER_WORKER", "RayEpisodeWorker", "iter_ray", "publish_run", "require_ray"]

#: Episodes submitted to one worker at a time beyond its ``concurrency``: one waiting.
IN_FLIGHT_PER_WORKER = 1

#: Seconds without any worker ready before a warning says the cluster may lack resources.
STARTUP_WARNING_S = 60.0

_RUN_ID_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz"
_STAGE_PREFIX = "silo-gym-stage-"

Order = tuple[int, int, int]


def require_ray() -> Any:
    """Import Ray, or raise ``ImportError`` naming the extra to install."""
    try:
        import ray
    except ImportError as exc:
        raise ImportError('backend="ray" needs Ray, which is not installed: pip install "silo-gym[ray]"') from exc
    return ray


# ------------------------------------------------------------------------------------------------
# Artifacts on the driver
# ------------------------------------------------------------------------------------------------


def _rename_run(files: dict[str, bytes], old: str, new: str) -> dict[str, bytes]:
    out = dict(files)
    if "run.json" in out:
        out["run.json"] = out["run.json"].replace(f'"runId": "{old}"'.encode(), f'"runId": "{new}"'.encode(), 1)
    if "trace.jsonl" in out:
        out["trace.jsonl"] = out["trace.jsonl"].replace(f'"runId":"{old}"'.encode(), f'"runId":"{new}"'.encode(), 1)
    return out


def publish_run(runs_dir: str | os.PathLike[str], run_id: str, files: dict[str, bytes],
                journal: RunDirJournal | None = None) -> str:
    """Write a run shipped back by a worker into ``runs_dir/<run_id>/`` and return its run id.

    The directory is created exclusively (silo-format §6.1). If ``run_id`` is taken, a new
    4-character suffix is drawn (the time stays: it is the episode's start), and the ``runId`` of
    ``run.json`` and of the trace's ``run_start`` line is changed to match. Each file is written
    atomically, in the order of a live run (trace, state diff, result, ``run.json`` last). If a
    write fails, the directory is removed and the ``OSError`` propagates. ``journal`` is told of
    the directory before and after it is made (:class:`~silo_gym.wrappers.record.RunDirJournal`).
    """
    root = Path(runs_dir)
    root.mkdir(parents=True, exist_ok=True)
    stem = run_id.rsplit("_", 1)[0] if run_id.count("_") >= 2 else run_id
    final = run_id
    last: OSError | None = None
    for _ in range(100):
        if journal is not None:
            journal.intend(root / final)
        try:
            (root / final).mkdir()
            break
        except FileExistsError as exc:
            last = exc
            final = f"{stem}_{''.join(secrets.choice(_RUN_ID_ALPHABET) for _ in range(4))}"
    else:
        assert last is not None
        raise last
    if journal is not None:
        try:
            journal.made(root / final)
        except BaseException:
            os.rmdir(root / final)
            raise
    if final != run_id:
        files = _rename_run(files, run_id, final)
    run_dir = root / final
    try:
        for name in RUN_FILES:
            if name in files:
                write_atomic(run_dir / name, files[name])
    except BaseException:
        shutil.rmtree(run_dir, ignore_errors=True)
        raise
    return final


# ------------------------------------------------------------------------------------------------
# The worker (a plain class; ray.remote wraps it in the driver)
# ------------------------------------------------------------------------------------------------


def _portable(exc: BaseException) -> BaseException:
    """``exc`` if it survives pickling, else a ``RuntimeError`` carrying its text."""
    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:
        return RuntimeError(describe_error(exc))
    return exc


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    try:  # a killed worker not yet reaped is a zombie: dead for our purpose (Linux)
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[-1].split()[0] != b"Z"
    except (OSError, IndexError):
        return True


def _sweep_stale_stages(base: Path) -> None:
    """Remove staging directories left by workers of this node that were killed."""
    try:
        entries = list(base.iterdir())
    except OSError:
        return
    for entry in entries:
        name = entry.name
        if not name.startswith(_STAGE_PREFIX):
            continue
        pid_text = name[len(_STAGE_PREFIX):].split("-", 1)[0]
        if pid_text.isdigit() and int(pid_text) != os.getpid() and not _pid_alive(int(pid_text)):
            shutil.rmtree(entry, ignore_errors=True)


class RayEpisodeWorker:
    """One Ray actor of a collection: builds its :class:`~silo_gym.data.EpisodeRunner` once (in
    :meth:`ready`), then plays whole episodes (:meth:`run`).

    Every method returns ``(status, value, files)``: ``("ok", ...)``, ``("failed", error text,
    None)`` for a failed attempt, or ``("raise", exception, None)`` for an error that must stop
    the collection (re-raised by the driver).
    """

    def __init__(self, config: dict[str, Any]) -> None:
        self._config = config
        self._runner: EpisodeRunner | None = None
        self._stage: Path | None = None
        # The driver hands a worker one episode beyond its concurrency so that it never starves;
        # Ray starts every call at once, so the extra one waits here, not in the policy.
        self._playing: asyncio.Semaphore | None = None

    def ready(self) -> tuple[str, Any, None]:
        try:
            config = self._config
            runs_dir = None
            if config["record"]:
                base = Path(tempfile.gettempdir()) / "silo-gym-ray"
                base.mkdir(parents=True, exist_ok=True)
                _sweep_stale_stages(base)
                # Created by the first episode's RecordRun: a worker that plays nothing leaves nothing.
                self._stage = base / f"{_STAGE_PREFIX}{os.getpid()}-{secrets.token_hex(4)}"
                runs_dir = self._stage
            self._runner = EpisodeRunner(
                config["env_ids"], config["policy"], env_kwargs=config["env_kwargs"],
                policy_name=config["policy_name"], runs_dir=runs_dir, ship_artifacts=runs_dir is not None,
                cwd=config["cwd"], env_paths=config["env_paths"], episode_timeout_s=config["episode_timeout_s"],
                episode_variants=config.get("episode_variants"))
            from .local_backend import check_concurrency

            runner = self._runner
            check_concurrency(runner, config["concurrency"], config["episode_timeout_s"],
                              lambda: f"the policy {runner.label!r}")
            runner.open_all()
            return "ok", {"label": self._runner.label, "pid": os.getpid(), "host": socket.gethostname()}, None
        except Exception as exc:
            return "raise", _portable(exc), None

    async def run(self, job: EpisodeJob) -> tuple[str, Any, dict[str, bytes] | None]:
        assert self._runner is not None, "ready() must succeed first"
        if self._playing is None:
            self._playing = asyncio.Semaphore(self._config["concurrency"])
        try:
            async with self._playing:
                return await self._runner.arun(EpisodeJob(*job))
        except Exception as exc:
            return "raise", _portable(exc), None

    async def close(self) -> bool:
        if self._runner is not None:
            with contextlib.suppress(Exception):
                await self._runner.aclose()
        if self._stage is not None:
            shutil.rmtree(self._stage, ignore_errors=True)
            _sweep_stale_stages(self._stage.parent)
        return True


# ------------------------------------------------------------------------------------------------
# The driver
# ------------------------------------------------------------------------------------------------


@dataclass
class _Slot:
    index: int
    actor: Any = None
    generation: int = 0
    up: bool = False
    info: dict[str, Any] = field(default_factory=dict)
    fifo: deque[Any] = field(default_factory=deque)  # refs of run calls, in submission order


@dataclass
class _Call:
    kind: str  # "ready" or "run"
    slot: int
    generation: int
    job: EpisodeJob | None = None
    attempt: int = 0
    alone: bool = False  # a suspect of a worker's death: played with nothing queued beside it


def _policy_payload(policy: Any) -> Any:
    if isinstance(policy, (str, os.PathLike)):
        return os.fspath(policy)
    return policy


def _death_text(slot: _Slot, exc: BaseException) -> str:
    where = ""
    if slot.info:
        where = f" (pid {slot.info.get('pid')} on {slot.info.get('host')})"
    return f"The Ray worker playing the episode died{where}: {type(exc).__name__}"


def iter_ray(env_ids: Sequence[str], policy: Any, settings: CollectConfig,
             episode_variants: dict[str, list[int | None]] | None = None) -> Iterator[tuple[Order, dict[str, Any]]]:
    """Yield ``(order, row)`` for every episode, in completion order (module docs), with the
    settings of ``settings`` (:class:`~silo_gym.data.config.CollectConfig`, as for
    :func:`silo_gym.data.collect`; its ``env_kwargs`` with ``variants`` folded in) and
    ``episode_variants`` as :meth:`~silo_gym.data.config.CollectConfig.check` returned it. A
    row's run directory is written into ``runs_dir`` just before the row is yielded, so closing
    the iterator early leaves no run directory of a row never yielded."""
    episodes_per_task, seed, runs_dir = settings.episodes_per_task, settings.seed, settings.runs_dir
    env_kwargs, policy_name, max_retries = settings.make_kwargs(), settings.policy_name, settings.max_retries
    num_workers, ray_address, actor_options = settings.num_workers, settings.ray_address, settings.ray_actor_options
    concurrency, episode_timeout_s, skip = settings.concurrency, settings.episode_timeout_s, settings.skip
    counters, group_size, run_journal = settings.counters, settings.group_size, settings.run_journal
    ray = require_ray()
    from ray.exceptions import GetTimeoutError, RayActorError, RayError

    plans = plan_envs(env_ids, env_kwargs)
    total = sum(len(p.task_ids) for p in plans) * episodes_per_task
    if counters is not None:
        counters.total = total
    if skip is not None:
        skipped = sum(1 for p in plans for t in p.task_ids for i in range(episodes_per_task)
                      if (p.environment, t, i) in skip)
        total -= skipped
        if counters is not None:
            counters.skipped = skipped
    if total == 0:
        return
    in_flight = concurrency + IN_FLIGHT_PER_WORKER
    runs_root = os.path.abspath(runs_dir) if runs_dir is not None else None
    config = {
        "env_ids": [p.env_id for p in plans],
        "env_paths": [p.path for p in plans],
        "env_kwargs": dict(env_kwargs or {}),
        "policy": _policy_payload(policy),
        "policy_name": policy_name,
        "cwd": os.getcwd(),
        "record": runs_root is not None,
        "concurrency": concurrency,
        "episode_timeout_s": episode_timeout_s,
        "episode_variants": episode_variants,
    }
    environments = [p.environment for p in plans]

    started_here = False
    if not ray.is_initialized():
        init_kwargs: dict[str, Any] = {"address": ray_address}
        if ray_address is None and not os.environ.get("RAY_ADDRESS"):
            init_kwargs["include_dashboard"] = False
        ray.init(**init_kwargs)
        started_here = True
    slots: list[_Slot] = []
    try:
        try:
            ray.cloudpickle.dumps(config["policy"])
        except Exception as exc:
            reason = describe_error(exc).splitlines()[0]
            raise TypeError(
                "The policy could not be pickled to send it to the Ray workers. Pass a path.py[:name] "
                "spec, or a zero-argument factory that builds the policy (and its clients) inside each "
                f"worker. ({reason})"
            ) from exc
        config_ref = ray.put(config)
        options: dict[str, Any] = {"num_cpus": 1}
        options.update(actor_options or {})
        options.update(max_restarts=0, max_task_retries=0, max_concurrency=in_flight + 2)
        if num_workers is None:
            cpus = float(ray.cluster_resources().get("CPU", 1.0))
            per_actor = float(options.get("num_cpus") or 0) or 1.0
            num_workers = max(1, int(cpus // per_actor))
        num_workers = max(1, min(num_workers, total))
        remote_cls = ray.remote(RayEpisodeWorker)

        calls: dict[Any, _Call] = {}
        unpublished: dict[Order, dict[str, bytes]] = {}  # the run files of rows not yet handed over
        fresh: Iterator[EpisodeJob] = (job for pos, plan in enumerate(plans)
                                       for job in plan.jobs(pos, episodes_per_task, seed, group_size)
                                       if skip is None or (plan.environment, job.task_id, job.episode) not in skip)
        spent: dict[Order, int] = {}  # model-call retries of earlier attempts, per episode
        lookahead: list[EpisodeJob] = []
        # (job, attempt, worker to avoid, play alone)
        retries: deque[tuple[EpisodeJob, int, tuple[int, int] | None, bool]] = deque()

        def start(slot: _Slot) -> None:
            slot.actor = remote_cls.options(**options).remote(config_ref)
            slot.up = False
            slot.info = {}
            slot.fifo.clear()
            calls[slot.actor.ready.remote()] = _Call("ready", slot.index, slot.generation)

        def fresh_left() -> bool:
            if not lookahead:
                nxt = next(fresh, None)
                if nxt is not None:
                    lookahead.append(nxt)
            return bool(lookahead)

        def take(slot: _Slot, own: bool) -> tuple[EpisodeJob, int, bool] | None:
            if any(calls[r].alone for r in slot.fifo):
                return None  # a suspect plays alone
            if slot.fifo and any(item[3] for item in retries):
                return None  # drain, then take a suspect alone
            me = (slot.index, slot.generation)
            for i, (job, attempt, avoid, alone) in enumerate(retries):
                # First pass: not this worker's own failures; second pass (nobody else had
                # room and no fresh episode is left): anything.
                if avoid != me or own:
                    del retries[i]
                    return job, attempt, alone
            if fresh_left():
                return lookahead.pop(), 0, False
            return None

        def fill() -> None:
            # Retries go to another worker when one has room (first pass); a worker replays its
            # own failed attempt only when no other can take it (second pass).
            for own in (False, True):
                for slot in slots:
                    while slot.up and len(slot.fifo) < in_flight:
                        item = take(slot, own)
                        if item is None:
                            break
                        job, attempt, alone = item
                        if attempt == 0 and counters is not None:
                            counters.started += 1
                        ref = slot.actor.run.remote(tuple(job))
                        calls[ref] = _Call("run", slot.index, slot.generation, job, attempt, alone)
                        slot.fifo.append(ref)

        def charge(call: _Call, error: str, avoid: tuple[int, int] | None,
                   alone: bool = False, timed_out: bool = False) -> tuple[Order, dict[str, Any]] | None:
            assert call.job is not None
            if call.attempt < max_retries and not timed_out:
                retries.append((call.job, call.attempt + 1, avoid, alone))
                return None
            job = call.job
            label = slots[call.slot].info.get("label") or policy_name or str(config["policy"])
            text = error if timed_out else f"Episode failed after {call.attempt + 1} attempt(s): {error}"
            row = failed_row(environments[job.env_pos], job.task_id, job.episode, label, text,
                             spent.pop(job.order, 0), job.group)
            return job.order, row

        def finish(call: _Call, outcome: tuple[str, Any, Any]) -> tuple[Order, dict[str, Any]] | None:
            status, value, files = outcome
            if status == "raise":
                raise value
            assert call.job is not None
            if status == "failed":
                failed: FailedAttempt = value
                order = call.job.order
                spent[order] = spent.get(order, 0) + failed.retries
                return charge(call, failed.error, (call.slot, call.generation), timed_out=failed.timed_out)
            row = value
            row["retries"] += spent.pop(call.job.order, 0)
            if files is not None and runs_root is not None:
                unpublished[call.job.order] = files  # written when the row is handed over
            return call.job.order, row

        def bury(slot: _Slot, exc: BaseException) -> list[tuple[Order, dict[str, Any]]]:
            """The slot's actor died: settle its calls, then replace it.

            Calls whose result arrived count as usual. Of the others ("lost"), Ray cannot tell
            which one was playing: a finished episode's reply can die with the process. One lost
            call is the culprit and uses up an attempt. Several are all suspects: none is
            charged, and each is played again alone, so that a second death is unambiguous.
            """
            out: list[tuple[Order, dict[str, Any]]] = []
            refs = list(slot.fifo)
            if refs:
                ray.wait(refs, num_returns=len(refs), timeout=30)
            lost: list[_Call] = []
            for ref in refs:
                call = calls.pop(ref, None)
                if call is None:
                    continue
                try:
                    outcome = ray.get(ref, timeout=0)
                except (RayActorError, GetTimeoutError):
                    lost.append(call)
                    continue
                except RayError as err:
                    item = charge(call, describe_error(err), None)
                else:
                    item = finish(call, outcome)
                if item is not None:
                    out.append(item)
            if len(lost) == 1:
                item = charge(lost[0], _death_text(slot, exc), None, alone=True)
                if item is not None:
                    out.append(item)
            else:
                for call in lost:
                    assert call.job is not None
                    retries.append((call.job, call.attempt, None, True))
            with contextlib.suppress(Exception):
                ray.kill(slot.actor, no_restart=True)
            slot.generation += 1
            start(slot)
            return out

        for i in range(num_workers):
            slots.append(_Slot(i))
            start(slots[-1])
        waited_since = time.monotonic()
        warned = False
        while True:
            fill()
            if not any(c.kind == "run" for c in calls.values()) and not retries and not fresh_left():
                break
            ready, _ = ray.wait(list(calls), num_returns=1, timeout=5.0)
            if not ready:
                if (not warned and not any(s.up for s in slots)
                        and time.monotonic() - waited_since > STARTUP_WARNING_S):
                    warned = True
                    warnings.warn(
                        f"No Ray worker has started after {STARTUP_WARNING_S:.0f} s; the cluster may lack "
                        f"the resources each worker asks for ({options}).", RuntimeWarning, stacklevel=2)
                continue
            ready, _ = ray.wait(list(calls), num_returns=len(calls), timeout=0)
            order_of = {ref: i for i, ref in enumerate(calls)}  # dicts keep submission order
            for ref in sorted(ready, key=lambda r: order_of[r]):
                call = calls.get(ref)
                if call is None:  # settled by bury() of its slot
                    continue
                slot = slots[call.slot]
                if call.generation != slot.generation:
                    calls.pop(ref, None)
                    continue
                if call.kind == "ready":
                    calls.pop(ref)
                    try:
                        status, value, _ = ray.get(ref)
                    except RayError as exc:
                        raise RuntimeError(f"A Ray worker could not start: {exc}") from exc
                    if status == "raise":
                        raise value
                    slot.up = True
                    slot.info = value
                    continue
                try:
                    outcome = ray.get(ref)
                except RayActorError as exc:
                    items = bury(slot, exc)
                except RayError as exc:  # e.g. the result could not be sent back
                    calls.pop(ref)
                    slot.fifo.remove(ref)
                    one = charge(call, describe_error(exc), (call.slot, call.generation))
                    items = [one] if one is not None else []
                else:
                    calls.pop(ref)
                    slot.fifo.remove(ref)
                    one = finish(call, outcome)
                    items = [one] if one is not None else []
                for order, row in items:
                    files = unpublished.pop(order, None)
                    if files is not None and runs_root is not None:
                        row["run_id"] = publish_run(runs_root, row["run_id"], files, run_journal)
                    if counters is not None:
                        counters.finished += 1
                    yield order, row
    finally:
        # Idle workers delete their staging directories; busy ones (the caller stopped early, or
        # an error) are killed at once, and a later worker on that node sweeps what they left.
        alive = [s.actor for s in slots if s.actor is not None and s.up and not s.fifo]
        if alive:
            closing = [a.close.remote() for a in alive]
            with contextlib.suppress(Exception):
                ray.wait(closing, num_returns=len(closing), timeout=10)
        for s in slots:
            if s.actor is not None:
                with contextlib.suppress(Exception):
                    ray.kill(s.actor, no_restart=True)
        if started_here:
            ray.shutdown()
