"""Verifier registry: a verifier exists only when it is listed in ``verifiers``."""

from __future__ import annotations

verifiers: list = []
