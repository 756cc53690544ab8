"""Argument parsing of the ``silo-gym`` command line (silo-format §10.1)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["Args", "UsageError", "parse_args"]

_WHOLE = re.compile(r"[+-]?[0-9]+")


class UsageError(Exception):
    """A command-line mistake; printed as ``error: <message>`` with exit code 1."""


@dataclass
class Args:
    """Parsed tokens: positionals in order and flags by name (``True`` for a bare flag)."""

    positionals: list[str] = field(default_factory=list)
    flags: dict[str, str | bool] = field(default_factory=dict)

    def flag(self, name: str) -> str | None:
        """A string flag's value, or None when absent (a bare ``--name`` counts as absent)."""
        value = self.flags.get(name)
        return value if isinstance(value, str) else None

    def require(self, name: str) -> str:
        value = self.flag(name)
        if value is None or value == "":
            raise UsageError(f"Missing --{name}.")
        return value

    def boolean(self, name: str) -> bool:
        """On when the value is ``True`` or the string ``"true"`` (silo-format §10.1)."""
        value = self.flags.get(name)
        return value is True or value == "true"

    def positional(self, index: int, label: str) -> str:
        if index >= len(self.positionals) or self.positionals[index] == "":
            raise UsageError(f"Missing <{label}>.")
        return self.positionals[index]

    def optional_positional(self, index: int) -> str | None:
        if index >= len(self.positionals) or self.positionals[index] == "":
            return None
        return self.positionals[index]

    def integer(self, name: str, default: int) -> int:
        """An integer flag (``--runs must be a whole number.`` style error)."""
        value = self.flags.get(name)
        if value is None:
            return default
        if isinstance(value, bool):
            raise UsageError(f"--{name} must be a whole number.")
        text = value.strip()
        # ASCII digits only: int() would also take "1_0" and non-ASCII digits such as "３".
        if _WHOLE.fullmatch(text) is None:
            raise UsageError(f"--{name} must be a whole number.")
        return int(text, 10)


def parse_args(tokens: list[str]) -> Args:
    """Split tokens into flags and positionals (silo-format §10.1).

    ``--k=v`` sets ``k`` to ``v``; ``--k v`` takes the next token when it does not start with
    ``--``; otherwise ``--k`` is the boolean ``True``. Every other token is a positional.
    """
    args = Args()
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.startswith("--"):
            body = token[2:]
            if "=" in body:
                key, value = body.split("=", 1)
                args.flags[key] = value
            elif i + 1 < len(tokens) and not tokens[i + 1].startswith("--"):
                args.flags[body] = tokens[i + 1]
                i += 1
            else:
                args.flags[body] = True
        else:
            args.positionals.append(token)
        i += 1
    return args
