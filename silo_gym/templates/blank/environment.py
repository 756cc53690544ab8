"""Builds the world from ``data/``. Every call must return a brand-new world."""

from __future__ import annotations

from .state import State

__all__ = ["create_state"]


def create_state() -> State:
    """A fresh world: read your datasets from data/ here, build new dicts and lists."""
    return {}
