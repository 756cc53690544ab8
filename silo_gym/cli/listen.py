"""What a command that listens on a port (``serve --transport http``, ``mock-model``) says when
it cannot: the address, and the way out."""

from __future__ import annotations

import errno

from .parser import UsageError

__all__ = ["listen_error"]


def listen_error(exc: OSError, host: str, port: int) -> UsageError | None:
    """A :class:`UsageError` naming ``host:port`` for an address already in use, or one this
    machine does not have; None for any other ``OSError``."""
    shown = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    if exc.errno == errno.EADDRINUSE:
        return UsageError(f"Cannot listen on {shown}: the address is already in use (another server?). "
                          "Stop it, pick another --port, or pass --port 0 for any free port.")
    if exc.errno == errno.EADDRNOTAVAIL:
        return UsageError(f"Cannot listen on {shown}: this machine has no such address; "
                          "pass a --host it has (127.0.0.1 for this machine only, 0.0.0.0 for all).")
    if exc.errno == errno.EACCES:
        return UsageError(f"Cannot listen on {shown}: permission denied (ports below 1024 need privileges); "
                          "pick a --port from 1024, or --port 0 for any free port.")
    return None
