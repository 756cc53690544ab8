"""``collect``: run a policy over tasks and turn every episode into a data-set row
(gym-api.md, "Reward-model and trajectory data").

A row has exactly the columns of :data:`EPISODE_COLUMNS`, in that order:

``environment``, ``task_id``
    the environment name and the task id.
``episode``
    the episode's index within its task (0, 1, ...).
``variant``
    the variant number of the episode's world (``variants=True``, docs/variants.md), ``None`` for
    the canonical world.
``group``
    with ``group_size=G``, the episode's group within its task (``episode // G``): the G episodes
    of a group start from one world (same variant, same instruction); ``None`` otherwise.
``run_id``
    the run id when the episode was recorded (``runs_dir`` given), else ``None``.
``policy``
    the policy's label: ``"random"``, the ``path.py[:name]`` spec it was loaded from, a
    ``ChatPolicy``'s ``name`` (``chat:<model>``...), else the callable's qualified name.
``prompt``, ``messages``
    the system and user messages, and the whole conversation, in OpenAI Chat format (the
    conversational format TRL reads). A ``ChatPolicy`` with ``api="responses"`` or
    ``"anthropic"`` has its conversation converted (:func:`silo_gym.llm.to_chat_messages`); a
    ``TextProtocolPolicy`` keeps its text conversation. For policies that are not chat models
    (``"random"``, Gymnasium policies, Silo agents) the conversation is built from what they did:
    the :data:`~silo_gym.llm.DEFAULT_SYSTEM_PROMPT` system message, the instruction as user
    message, then for each tool call (valid or not) an assistant message with one ``tool_calls``
    entry (id ``call_<n>``, ``arguments`` the compact JSON of ``input``, or the raw text of a
    malformed one) followed by a ``tool`` message holding the observation, and finally an
    assistant message whose ``content`` is the answer's text form (silo-format §5.4).
``actions``
    every action the policy submitted, in order (dicts; a ``str`` only for an unparseable
    text-protocol call). A refused call (over budget or deadline) is included: it is the step
    that ended the episode.
``reward``
    the env's reward for the episode (the verifier's fraction, or 0/1 with ``reward_mode="binary"``).
``passed``, ``required_passed``, ``required_total``, ``checks``
    from ``result.json`` (``checks`` is the list of ``{label, passed, detail, required}``).
``reward_components``, ``required_fraction``, ``optional_fraction``
    the checks as reward components, as in the ending step's info (:mod:`silo_gym.components`):
    ``{label: {"passed", "required"}}`` and the two fractions.
``state_diff``
    the state diff as compact JSON text (silo-format §7.2).
``termination_reason``, ``error``, ``tool_calls``, ``tool_errors``
    as in ``result.json``.
``retries``
    model calls retried after a transient error (HTTP 429/5xx, connection errors) while playing
    the episode, over all its attempts (:mod:`silo_gym.llm.retry`); 0 for policies that call no
    model through a ``ChatPolicy``/``TextProtocolPolicy``.

Policies, told apart by type and then by signature:

- an object with a ``run_episode(env, *, seed, options)`` method (``ChatPolicy``,
  ``TextProtocolPolicy``);
- the string ``"random"``: :class:`RandomPolicy` (a few ``action_space.sample()`` calls, then an
  answer);
- any other string or path: ``path.py[:name]`` (name defaults to ``agent``), imported like
  ``silo-gym run``'s agents, then told apart as below;
- a callable of 2 positional parameters: a Gymnasium policy ``policy(observation, info) -> action``;
- a callable of 4 positional parameters: a Silo agent ``agent(task, tools, call_tool, signal)``,
  run through the env's episode control like ``run_task`` (its raising, limits and timeout
  follow the runner's table, silo-format §5.3);
- a callable of no parameters: a factory, called once to make the policy.

Seeds: episode ``i`` of a task is reset with :func:`episode_seed` ``(seed, environment, task_id,
i)``, a SHA-256 of those values (stable across processes and Python versions, unlike ``hash``),
so the same ``seed`` gives the same rows, apart from ``run_id``.

Worlds: by default every episode plays the canonical world, or with ``variants=True`` the variant
its reset seed draws. ``episode_variants`` fixes the world of each episode instead: a mapping
from ``"<environment>/<task_id>"`` to a list whose entry ``i`` is the variant episode ``i`` of
that task plays (``None``: the canonical world), passed to ``reset`` as ``options["variant"]``
(docs/variants.md); tasks the mapping leaves out play as before. ``silo_gym.eval`` uses it so
that trial ``i`` of a task plays the same world whatever the policy.
Groups (``group_size=G``, for GRPO-style comparisons): the episodes of a task are played in
groups of G consecutive episodes, and every episode of group ``g`` is reset with the seed of the
group's first episode, ``episode_seed(seed, environment, task_id, g * G)``: one task, one variant,
one instruction, one initial world per group (a group plays the world episode ``g * G`` plays
ungrouped). What is random in the policy stays each episode's own: the ``"random"`` policy draws
its actions from the episode's own seed, a chat model samples as it does. Groups differ in world
only where worlds vary (``variants=True``); canonical worlds are one world for every group.
``episodes_per_task`` must be a multiple of G.

Backends: ``backend="local"`` plays the episodes in this process, up to ``concurrency`` at once on
one event loop (:mod:`silo_gym.data.local_backend`); ``backend="ray"`` plays them on a pool of Ray
actors, up to ``concurrency`` at once in each (:mod:`silo_gym.data.ray_backend`, the
``silo-gym[ray]`` extra). Both play every episode the same way (:class:`EpisodeRunner`), with the
seed of :func:`episode_seed`, so for the same arguments they give equal rows (apart from
``run_id``) and byte-identical ``result.json`` / ``state-diff.json``, whatever the number of
workers. :func:`collect` returns the rows sorted by id, task and episode index;
:func:`iter_collect` yields each row as soon as its episode is done.

Failures and retries (both backends). An *attempt* of an episode fails when the policy raises
(a Gymnasium policy, a chat model, ``run_episode``: anything outside the env's own rules) or,
with Ray, when the worker process playing it dies. A failed attempt is thrown away: its episode is
aborted and its run directory deleted (local), or never reaches ``runs_dir`` at all (Ray, see
:func:`silo_gym.data.ray_backend.publish_run`). The episode is then played again, with the same
seed, up to ``max_retries`` more times (on another worker with Ray). An episode whose every
attempt failed gives a *failed row* (:func:`failed_row`): ``environment``, ``task_id``,
``episode`` and ``policy`` as usual, ``error`` = ``"Episode failed after <n> attempt(s): <last
error>"``, ``retries`` (the model calls retried by its attempts), and every other column
``None``: no ``run_id``, no trajectory and, above all, ``reward: None`` (never a made-up 0). Test
``row["reward"] is None`` to find them; :func:`~silo_gym.data.preference_pairs` skips them.
Collection goes on after a failed row. An attempt that runs past ``episode_timeout_s`` (a model
call that hangs) is thrown away the same way but not played again: its failed row's ``error``
says what timed out (``"Episode timed out after 30 s (episode_timeout_s): the model call of turn
3 did not return."``). A model call that fails with a transient error (HTTP 429/5xx, a lost
connection) is retried inside the attempt by the policy (:mod:`silo_gym.llm.retry`), which does
not use up an attempt.

Not retried, because a second attempt would fail the same way: a Silo agent's exception (part of
its episode: ``agent_error``, recorded), and errors of the environment or the setup
(``SiloError`` such as ``VerifierError``, ``agent_invalid``; Gymnasium errors such as an unknown
id). These propagate and stop the collection, as in ``silo-gym run``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any, Unpack

from ..seeds import episode_seed, group_reset_seed
from .config import CollectConfig, CollectOptions, collect_config
from .episodes import (  # noqa: F401 (re-exported at their old path)
    BACKENDS,
    EPISODE_COLUMNS,
    RUN_FILES,
    EnvPlan,
    EpisodeJob,
    EpisodeNotGraded,
    EpisodeRunner,
    FailedAttempt,
    RandomPolicy,
    aplay_with_retries,
    check_episode_variants,
    check_group_size,
    curriculum_jobs,
    describe_error,
    drawn_variant,
    failed_row,
    plan_envs,
    resolve_policy,
    transcript_messages,
)

__all__ = [
    "BACKENDS",
    "EPISODE_COLUMNS",
    "CollectConfig",
    "CollectOptions",
    "EpisodeJob",
    "EpisodeRunner",
    "RandomPolicy",
    "check_episode_variants",
    "collect",
    "drawn_variant",
    "episode_seed",
    "failed_row",
    "group_reset_seed",
    "iter_collect",
    "resolve_policy",
    "transcript_messages",
]


def _ordered(env_ids: str | Iterable[str], policy: Any,
             config: CollectConfig) -> Iterator[tuple[tuple[int, int, int], dict[str, Any]]]:
    """Check the arguments now, then return the generator of ``(order, row)``."""
    ids = [env_ids] if isinstance(env_ids, str) else list(env_ids)
    worlds = config.check()
    env_kwargs = config.make_kwargs()
    if config.backend == "local":
        from .local_backend import check_concurrency, iter_local

        if config.num_workers not in (None, 1):
            raise ValueError('num_workers > 1 needs backend="ray" (the local backend is this one process).')
        if config.ray_address is not None or config.ray_actor_options is not None:
            raise ValueError('ray_address and ray_actor_options apply to backend="ray" only.')
        runner = EpisodeRunner(ids, policy, env_kwargs=env_kwargs, policy_name=config.policy_name,
                               runs_dir=config.runs_dir, episode_timeout_s=config.episode_timeout_s,
                               episode_variants=worlds, run_journal=config.run_journal)
        check_concurrency(runner, config.concurrency, config.episode_timeout_s,
                          lambda: f"the policy {runner.label!r}")
        source = iter_local(runner, config)
    else:
        from .ray_backend import iter_ray, require_ray

        require_ray()
        source = iter_ray(ids, policy, config, worlds)
    if config.progress is None:
        return source
    return _with_progress(source, config.progress)


def _with_progress(source: Iterator[tuple[tuple[int, int, int], dict[str, Any]]],
                   progress: Callable[[dict[str, Any]], None]) -> Iterator[tuple[tuple[int, int, int], dict[str, Any]]]:
    """``source`` with ``progress(row)`` called for each row; closing this iterator early (or an
    error in ``progress``) closes ``source`` too, which stops its episodes in flight."""
    try:
        for item in source:
            progress(item[1])
            yield item
    finally:
        close = getattr(source, "close", None)
        if close is not None:
            close()


def iter_collect(
    env_ids: str | Iterable[str],
    policy: Any,
    config: CollectConfig | None = None,
    **options: Unpack[CollectOptions],
) -> Iterator[dict[str, Any]]:
    """:func:`collect`, streaming: yields each row as soon as its episode is done (and its run
    directory is in ``runs_dir``).

    Order: the order in which episodes finish. With ``concurrency=1`` on the local backend that
    is :func:`collect`'s order; otherwise it depends on timing, so use each row's
    ``environment``, ``task_id`` and ``episode`` to place it. Nothing is kept here: memory stays
    bounded by what the caller keeps (at most ``concurrency`` episodes in flight and as many rows
    waiting, per Ray worker with Ray). The arguments are checked when ``iter_collect`` is called
    (a missing Ray raises then); episodes start on the first ``next()``. Closing the iterator
    early stops the episodes in flight (thrown away: no row, no run directory) and the workers,
    and deletes the run directories of rows finished but never yielded: every run directory
    left is a yielded row's.
    """
    ordered = _ordered(env_ids, policy, collect_config(config, options, "iter_collect"))
    return _rows_only(ordered)


def _rows_only(source: Iterator[tuple[tuple[int, int, int], dict[str, Any]]]) -> Iterator[dict[str, Any]]:
    try:
        for _, row in source:
            yield row
    finally:
        close = getattr(source, "close", None)
        if close is not None:
            close()


def collect(
    env_ids: str | Iterable[str],
    policy: Any,
    config: CollectConfig | None = None,
    **options: Unpack[CollectOptions],
) -> list[dict[str, Any]]:
    """Run ``policy`` for ``episodes_per_task`` episodes on every task of ``env_ids``; one row per
    episode (module docs for the columns, the policy kinds, failed rows and retries).

    The settings are one :class:`~silo_gym.data.config.CollectConfig`: pass it as ``config``, its
    fields as keyword arguments (below), or both (the keywords replace the config's fields).

    Args:
        env_ids: Gymnasium ids: ``silo/<env>-<TASK>`` for one task, ``silo/<env>`` (or just
            ``<env>``) for all tasks of an environment, in id order.
        config: a :class:`~silo_gym.data.config.CollectConfig` (default: one made of the keywords).
        policy: see the module docs. With ``backend="ray"`` it is sent to the workers: a string
            (``"random"``, ``path.py[:name]``) as the string, rebuilt in each worker (a relative
            path is resolved against this process's current directory); any other object with
            cloudpickle (a factory such as ``make_policy`` is sent uncalled and called once per
            worker, the way to build clients that do not pickle).
        episodes_per_task: episodes per task (``>= 0``).
        seed: the base seed; episode seeds come from :func:`episode_seed`.
        runs_dir: when given, every episode is recorded there (run directories as ``silo-gym
            run`` writes them, ``model_step`` events included) and ``run_id`` is set; when
            ``None`` nothing is written and ``run_id`` is ``None``.
        env_kwargs: passed to ``gym.make`` (``max_tool_calls``, ``timeout_ms``, ``reward_mode``...).
        policy_name: overrides the ``policy`` column.
        progress: called with each row as soon as it is made (in completion order).
        backend: ``"local"`` (this process) or ``"ray"`` (:mod:`silo_gym.data.ray_backend`).
        num_workers: Ray actors (default: the cluster's CPUs / the CPUs per actor); at most
            the number of episodes. Local: ``None`` or 1.
        ray_address: the cluster to connect to (``ray.init(address=...)``); ``None`` joins
            the cluster ``RAY_ADDRESS`` names, or starts a local one. Ignored when Ray is
            already initialised in this process.
        max_retries: extra attempts of an episode whose attempt failed (>= 0).
        ray_actor_options: passed to each actor's ``.options()`` (default ``{"num_cpus": 1}``),
            e.g. ``{"num_cpus": 0.25}`` for I/O-bound LLM policies or custom ``resources``.
        concurrency: episodes in flight at once, each on its own env, on one event loop (per
            Ray worker with Ray). Above 1 the policy must await its model (``arun_episode``:
            ``ChatPolicy``/``TextProtocolPolicy``, best with an async model function such as
            :func:`~silo_gym.llm.openai_acomplete`). The rows are the same as with 1.
        episode_timeout_s: the seconds one attempt of an episode may take (policies with
            ``arun_episode`` only); past it the episode is thrown away and gives a failed row
            whose ``error`` says what timed out (not attempted again). ``None``: no limit.
        skip: ``(environment, task_id, episode)`` keys of episodes not to play (a resumed
            collection, :func:`silo_gym.data.stream.collect_jsonl`).
        counters: a :class:`~silo_gym.data.local_backend.CollectCounters` to keep live counts in
            (episodes started, rows handed over), for progress displays.
        episode_variants: the world of each episode, by ``"<environment>/<task_id>"``: entry
            ``i`` is the variant episode ``i`` plays, ``None`` the canonical world (module
            docs, "Worlds"; checked by :func:`check_episode_variants`).
        group_size: play the episodes of each task in groups of this many that start from one
            world (module docs, "Groups"; the ``group`` column); ``episodes_per_task`` must be a
            multiple of it. 1 (the default): every episode from its own seed.
        curriculum: a :class:`~silo_gym.curriculum.Curriculum` whose items are tasks of
            ``env_ids``: the collection plays as many episodes as without it
            (``episodes_per_task`` times the number of tasks), but each one's task and variant
            are drawn from the curriculum when the episode starts (a group's with
            ``group_size``), and each row's ``passed`` is reported to it as it arrives (failed
            rows are not). ``episode`` counts a task's episodes in the order drawn; the reset seed
            is still :func:`episode_seed` of that index. Deterministic for the curriculum's seed
            with ``concurrency=1``; with more, draws follow the order results arrive in. Local
            backend only; not with ``skip``.
        run_journal: with ``runs_dir``, told of every run directory before and after it is created
            (:class:`~silo_gym.wrappers.record.RunDirJournal`; a streamed collection keeps them in
            ``.collect-runs``, :mod:`silo_gym.data.run_journal`, so that a resume after a crash
            deletes those no row names).

    Interruption (local backend, main thread): SIGINT/SIGTERM start no new episode and throw the
    ones in flight away; the rows finished before are handed over (``progress`` sees them), then
    ``CollectionInterrupted`` (a ``KeyboardInterrupt``) is raised (:mod:`silo_gym.data.local_backend`).

    Returns:
        The rows, by id, then task, then episode index (whatever the backend).

    Raises:
        ImportError: ``backend="ray"`` without Ray installed (``pip install "silo-gym[ray]"``).
        gymnasium.error.Error: an unknown id.
        SiloError: setup errors; ``agent_invalid`` for a policy file that cannot be imported.
        VerifierError: grading failed.
        TypeError: a keyword that is no setting, or neither ``config`` nor ``episodes_per_task``.
    """
    ordered = _ordered(env_ids, policy, collect_config(config, options, "collect"))
    items = list(ordered)
    items.sort(key=lambda item: item[0])
    return [row for _, row in items]
