"""A world's module-level plumbing, written once: ``create_state`` (the canonical seed or a
generated variant, optionally cached), ``bind_tools`` and the proof that read tools do not write.

A world's ``environment.py`` declares ``create_state = kit.StateMaker.from_data(data_dir, now,
collections, ".variants:generate", package=__package__)``; its ``__init__.py`` exports ``bind_tools = kit.binder(tools)``.
"""

from __future__ import annotations

import importlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import orjson

from ..tools import SiloTool, Tool, bind_tools
from .seed import CanonicalWorld, SeedWorld
from .tools import READ, access_of

__all__ = ["StateMaker", "binder", "read_only_breaches", "sample_inputs"]

State = dict[str, Any]


class StateMaker:
    """``create_state(variant=None)`` of a world: a fresh copy of ``seed`` for ``None``, else
    ``generate(variant)``, the generator being imported on first use (canonical runs never load it).

    Args:
        seed: the canonical world (:class:`SeedWorld` from data files, or any
            :class:`CanonicalWorld`).
        generator: ``"<module>:<function>"``, the module relative to ``package`` when it starts
            with ``"."``; the function takes the variant number and returns a world (and raises
            ``ValueError`` for a number it refuses).
        package: the world's package (``__package__`` of the module declaring this).
        cache: how many generated variants to keep as JSON bytes (0: none); each call still
            returns a brand-new world.
        refuse: when given, checked before the cache: a variant that is a bool, not an int or
            below 0 raises ``ValueError(refuse.format(variant=variant))``.
    """

    def __init__(
        self, seed: CanonicalWorld, generator: str, *, package: str | None, cache: int = 0, refuse: str | None = None
    ) -> None:
        self.seed = seed
        #: The canonical world as one compact orjson text per top-level key: ``create_state()``
        #: is exactly these texts parsed, so an episode takes them as its initial snapshot
        #: instead of serialising the world again (:mod:`silo_gym.world`, the
        #: ``canonical_parts`` hook).
        self.canonical_parts = seed.parts
        self.generator = generator
        self.package = package
        self.cache = cache
        self.refuse = refuse
        self._generate: Callable[[int], State] | None = None
        self._kept: OrderedDict[int, bytes] = OrderedDict()
        self._lock = threading.Lock()

    @classmethod
    def from_data(
        cls, data_dir: Path, now: str, collections: Sequence[str], generator: str, **options: Any
    ) -> StateMaker:
        """``StateMaker(SeedWorld(data_dir, now, collections), generator, **options)``."""
        return cls(SeedWorld(data_dir, now, collections), generator, **options)

    def generate(self, variant: int) -> State:
        """The generator's world for ``variant`` (imported on first use; not cached)."""
        if self._generate is None:
            module, _, name = self.generator.partition(":")
            self._generate = getattr(importlib.import_module(module, self.package), name)
        return self._generate(variant)

    def __call__(self, variant: int | None = None) -> State:
        """A fresh world: the canonical one for ``None``, else variant ``variant``.

        Raises:
            ValueError: the variant is refused (by ``refuse`` or by the generator).
        """
        if variant is None:
            return self.seed.create()
        if self.refuse is not None and (isinstance(variant, bool) or not isinstance(variant, int) or variant < 0):
            raise ValueError(self.refuse.format(variant=variant))
        if self.cache <= 0:
            return self.generate(variant)
        with self._lock:
            data = self._kept.get(variant)
            if data is not None:
                self._kept.move_to_end(variant)
        if data is None:
            data = orjson.dumps(self.generate(variant))
            with self._lock:
                self._kept[variant] = data
                while len(self._kept) > self.cache:
                    self._kept.popitem(last=False)
        return orjson.loads(data)  # type: ignore[no-any-return]


def binder(tools: Sequence[SiloTool]) -> Callable[[Any], list[Tool]]:
    """``bind_tools(state)`` for a world: every tool of ``tools`` bound to ``state``, in order."""

    def bind(state: Any) -> list[Tool]:
        return bind_tools(state, tools)

    bind.__doc__ = f"Bind the world's {len(tools)} tools, in registration order, to one episode's state."
    return bind


def sample_inputs(
    tool: SiloTool,
    state: State,
    id_sources: Mapping[str, str],
    values: Mapping[str, Any] = {},  # noqa: B006 - read only
    *,
    every_id: bool = False,
) -> Iterator[dict[str, Any]]:
    """Inputs for ``tool`` naming records of ``state``: each required property filled in (an enum
    with its first value, a key of ``id_sources`` with an id of the collection it names, any other
    from ``values``); the first id property runs over every id of its collection (``every_id``) or
    over the first and the last.

    Raises:
        KeyError: a required property is neither an enum, an id key nor in ``values``.
    """
    input_schema = tool.input_schema
    base: dict[str, Any] = {}
    varying: tuple[str, list[str]] | None = None
    for key in input_schema.get("required", ()):
        prop = input_schema["properties"][key]
        if "enum" in prop:
            base[key] = prop["enum"][0]
        elif key in id_sources:
            ids = list(state[id_sources[key]])
            base[key] = ids[0]
            if varying is None:
                varying = (key, ids if every_id else [ids[0], ids[-1]])
        else:
            base[key] = values[key]
    if varying is None:
        yield base
        return
    key, ids = varying
    for value in ids:
        yield {**base, key: value}


def read_only_breaches(
    tools: Sequence[SiloTool], state: State, inputs: Callable[[SiloTool], Iterable[Mapping[str, Any]]]
) -> tuple[list[str], set[str]]:
    """Run every tool tagged ``read`` on ``state`` with each of ``inputs(tool)``, comparing the
    world's bytes (key order included) before and after each call.

    Returns:
        ``(breaches, answered)``: ``"name(input)"`` for each call that changed the world (the world
        is left as that call left it), and the names of the tools that answered at least once
        without an error.
    """
    breaches: list[str] = []
    answered: set[str] = set()
    before = orjson.dumps(state)
    for tool in tools:
        if access_of(tool) != READ:
            continue
        bound = Tool(tool, state)
        for tool_input in inputs(tool):
            result = bound.execute(dict(tool_input))
            after = orjson.dumps(state)
            if after != before:
                breaches.append(f"{tool.name}({dict(tool_input)})")
                before = after
            if "isError" not in result:
                answered.add(tool.name)
    return breaches, answered
