"""A scripted model server shared by the tests of this folder (a thread of the test process)."""

from __future__ import annotations

import pytest

pytest.importorskip("aiohttp")

from silo_gym.mock_model import MockModelServer  # noqa: E402


@pytest.fixture(scope="module")
def server():
    with MockModelServer(latency_ms=5) as srv:
        yield srv


@pytest.fixture
def fresh_server():
    """A server of one's own, for faults: ``fresh_server(faults=[...], latency_ms=...)``."""
    started = []

    def make(**kwargs):
        kwargs.setdefault("retry_after_s", 0.05)
        srv = MockModelServer(**kwargs).start()
        started.append(srv)
        return srv

    yield make
    for srv in started:
        srv.stop()
