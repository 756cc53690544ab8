"""``silo_gym.gcpause.gc_paused``: the cyclic collector is off inside, on again after the last
thread leaves, and a program that turned it off itself keeps it off."""

from __future__ import annotations

import gc
import threading

import pytest

from silo_gym.gcpause import gc_paused


def test_off_inside_on_after_even_when_the_block_raises() -> None:
    assert gc.isenabled()
    with gc_paused:
        assert not gc.isenabled()
        with gc_paused:  # re-entrant
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(KeyError), gc_paused:
        raise KeyError("x")
    assert gc.isenabled()


def test_a_collector_turned_off_by_the_program_stays_off() -> None:
    gc.disable()
    try:
        with gc_paused:
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_threads_overlapping_turn_it_on_only_when_the_last_leaves() -> None:
    inside, release = threading.Event(), threading.Event()
    states: list[bool] = []

    def hold() -> None:
        with gc_paused:
            inside.set()
            release.wait(10)

    worker = threading.Thread(target=hold)
    worker.start()
    inside.wait(10)
    with gc_paused:
        pass
    states.append(gc.isenabled())  # the worker is still inside
    release.set()
    worker.join(10)
    states.append(gc.isenabled())
    assert states == [False, True]


def test_what_was_built_inside_skips_the_young_generation() -> None:
    gc.collect()
    with gc_paused:
        built = [{"id": i, "tags": [i]} for i in range(5_000)]
    assert gc.get_count()[0] < 50  # not 10,000 young containers waiting to be scanned
    assert any(obj is built for obj in gc.get_objects(generation=2))
    assert gc.get_freeze_count() == 0


def test_objects_the_program_froze_stay_frozen() -> None:
    kept = [{"frozen": True}]
    gc.freeze()
    try:
        assert not any(obj is kept for obj in gc.get_objects())  # frozen: in no generation
        with gc_paused:
            pass
        assert gc.get_freeze_count() > 0 and gc.isenabled()
        assert not any(obj is kept for obj in gc.get_objects())  # still frozen
    finally:
        gc.unfreeze()
    assert any(obj is kept for obj in gc.get_objects())


def test_the_programs_young_garbage_is_collected_not_moved_to_the_oldest_generation() -> None:
    import weakref

    class Node:
        pass

    gc.collect()
    marks = []
    for _ in range(200):  # fewer allocations than a young collection waits for
        node = Node()
        node.self = node  # a cycle: only the collector frees it
        marks.append(weakref.ref(node))
    del node
    with gc_paused:
        pass
    assert all(mark() is None for mark in marks)
