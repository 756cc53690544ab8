"""The ``silo-gym`` argument parser: argparse, with the token rules of silo-format §10.1 in front.

argparse holds the commands, their flags, types, defaults, usage and help. A thin layer in
:meth:`CommandParser.parse_tokens` keeps the rules of §10.1 that argparse cannot express:

- ``--k=v`` sets a flag; ``--k v`` takes the next token as the value whenever that token does
  not start with ``--``, so ``--description -h`` and ``--runs -4`` are values (argparse alone
  would read ``-h`` as help and refuse a value that looks like a flag);
- a boolean flag (``action="store_true"``) is on when given bare, as ``--k=true`` or ``--k true``,
  and off with ``false``; any other value is refused;
- every other token is a positional (``-x`` too), except ``-h`` and ``--help``, which print the
  command's help;
- a required flag that is absent or empty gives ``Missing --<name>.``, a required positional
  that is absent or empty gives ``Missing <<label>>.``, checked in declaration order.

What the layer or argparse does not understand is refused with a :class:`FlagError`, which the
command line prints with the command's usage, the list of every flag it accepts: an unknown flag,
a flag without its value, a value its type refuses (``--runs 0``), an unexpected positional.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from ..errors import SiloGymError
from ..suggest import did_you_mean

__all__ = [
    "Commands",
    "CommandParser",
    "FlagError",
    "HelpRequested",
    "UsageError",
    "add_command_with_subcommands",
    "add_group",
    "at_least_zero",
    "count",
    "directory",
    "non_negative",
    "number_above_zero",
    "whole_number",
]

#: Width of usage and help text, fixed so that the output does not depend on the terminal.
HELP_WIDTH = 100

_WHOLE = re.compile(r"[+-]?[0-9]+")
_HELP_TOKENS = ("-h", "--help")


class UsageError(SiloGymError):
    """A command-line mistake; printed as ``error: <message>`` with exit code 1."""


class FlagError(UsageError):
    """A flag or argument the command does not understand; printed with the command's usage."""


class HelpRequested(Exception):
    """``--help`` or ``-h`` was given: print ``parser``'s help and exit 0."""

    def __init__(self, parser: argparse.ArgumentParser) -> None:
        super().__init__(parser.prog)
        self.parser = parser


# --- flag value types ------------------------------------------------------------------------------
# A type raises ValueError with the end of a sentence; the parser puts the flag's name in front.


def whole_number(text: str) -> int:
    """An integer written with ASCII digits and an optional sign (``int()`` alone would also take
    ``1_0`` and non-ASCII digits such as ``３``)."""
    stripped = text.strip()
    if _WHOLE.fullmatch(stripped) is None:
        raise ValueError("must be a whole number.")
    return int(stripped, 10)


def count(text: str) -> int:
    """A whole number of at least 1 (``--runs``, ``--episodes-per-task``)."""
    value = whole_number(text)
    if value < 1:
        raise ValueError(f"must be at least 1; got {value}.")
    return value


def non_negative(text: str) -> int:
    """A whole number of at least 0 (``--max-tool-calls``, ``--timeout-ms``)."""
    value = whole_number(text)
    if value < 0:
        raise ValueError(f"must be at least 0; got {value}.")
    return value


def directory(text: str) -> str:
    """A directory path (``--out``): not empty, which every OS call would read as the current
    directory."""
    if text == "":
        raise ValueError("must be a directory, not an empty path.")
    return text


def number_above_zero(text: str) -> float:
    """A finite number above 0 (``--worker-cpus``)."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value < float("inf"):
        raise ValueError("must be a number above 0.")
    return value


def at_least_zero(text: str) -> float:
    """A finite number of at least 0 (``--latency-ms``, ``--price-in``)."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value < float("inf"):
        raise ValueError("must be a number >= 0.")
    return value


def _named(convert: Callable[[str], Any], name: str) -> Callable[[str], Any]:
    """``convert`` whose ValueError becomes ``FlagError("<name> <reason>")``."""

    def typed(text: str) -> Any:
        try:
            return convert(text)
        except (ValueError, argparse.ArgumentTypeError) as exc:
            raise FlagError(f"{name} {exc}") from None

    typed.__name__ = getattr(convert, "__name__", "value")
    return typed


def _formatter(prog: str) -> argparse.HelpFormatter:
    return argparse.RawDescriptionHelpFormatter(prog, width=HELP_WIDTH, max_help_position=32)


class CommandParser(argparse.ArgumentParser):
    """An ``argparse.ArgumentParser`` for one command (or a group of commands).

    Differences from argparse, all for silo-format §10.1: no prefix matching of flags
    (``allow_abbrev=False``); every help text ends with the flag's default or ``(required)``;
    a ``type=`` that raises ``ValueError`` gives ``<flag> <message>``; parsing goes through
    :meth:`parse_tokens`; errors raise :class:`UsageError` instead of exiting.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.declared: list[argparse.Action] = []
        self.flag_actions: dict[str, argparse.Action] = {}
        self.commands: argparse._SubParsersAction[CommandParser] | None = None
        #: With :attr:`commands`: the command also runs on its own when its first token names
        #: none of them (``silo-gym eval --env demo`` beside ``silo-gym eval compare A B``).
        self.runs_alone = False
        kwargs.setdefault("allow_abbrev", False)
        kwargs.setdefault("formatter_class", _formatter)
        super().__init__(*args, **kwargs)

    def add_argument(self, *names: Any, **kwargs: Any) -> argparse.Action:
        """``ArgumentParser.add_argument``, recording the action for :meth:`parse_tokens`."""
        label = next((n for n in names if str(n).startswith("--")), names[0] if names else "value")
        convert = kwargs.get("type")
        if callable(convert):
            kwargs["type"] = _named(convert, str(label))
        text = kwargs.get("help")
        if isinstance(text, str) and text is not argparse.SUPPRESS:
            default = kwargs.get("default")
            if kwargs.get("required"):
                text += " (required)"
            elif default is not None and not isinstance(default, bool) and default != argparse.SUPPRESS:
                text += f" (default: {str(default).replace('%', '%%')})"
            kwargs["help"] = text
        action = super().add_argument(*names, **kwargs)
        self.declared.append(action)
        for option in action.option_strings:
            self.flag_actions[option] = action
        return action

    def add_subparsers(self, **kwargs: Any) -> argparse._SubParsersAction[CommandParser]:  # type: ignore[override]
        """``ArgumentParser.add_subparsers``, remembered as :attr:`commands` for dispatch."""
        commands: argparse._SubParsersAction[CommandParser] = super().add_subparsers(**kwargs)
        self.commands = commands
        return commands

    def error(self, message: str) -> NoReturn:
        """argparse's own errors are :class:`FlagError`, printed with the usage."""
        raise FlagError(message[:1].upper() + message[1:] + ("" if message.endswith(".") else "."))

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        # argparse exits only from its help and version actions, which parse_tokens never reaches.
        raise UsageError(message or f"exit {status}")

    def accepted_flags(self) -> list[str]:
        """Every flag this command accepts, with its value's placeholder: ``["--env E", "--json", ...]``."""
        out: list[str] = []
        for action in self.declared:
            longs = [o for o in action.option_strings if o.startswith("--")]
            if not longs:
                continue
            if action.nargs == 0:
                out.append(longs[0])
            else:
                metavar = action.metavar if isinstance(action.metavar, str) else action.dest.upper()
                out.append(f"{longs[0]} {metavar}")
        return out

    def parse_tokens(self, tokens: Sequence[str]) -> argparse.Namespace:
        """Parse one command's tokens by silo-format §10.1 (see the module docstring).

        Raises:
            HelpRequested: ``-h`` or ``--help`` was given outside a flag's value.
            UsageError: ``Missing --<name>.`` or ``Missing <<label>>.``.
            FlagError: an unknown flag, a flag without its value, a refused value, an unexpected
                positional.
        """
        values: dict[str, str] = {}  # long flag -> value; a switch holds "true" or "false"
        order: list[str] = []
        positionals: list[str] = []
        i = 0
        while i < len(tokens):
            token = tokens[i]
            i += 1
            if token in _HELP_TOKENS:
                raise HelpRequested(self)
            if not token.startswith("--"):
                positionals.append(token)
                continue
            name, eq, value = token.partition("=")
            action = self.flag_actions.get(name)
            if action is None:
                raise FlagError(f"Unknown flag {name} for {self.prog}.{did_you_mean(name, self.flag_actions, 0.6)}")
            if action.nargs == 0:
                if not eq and i < len(tokens) and tokens[i] in ("true", "false"):
                    value, eq = tokens[i], "="
                    i += 1
                if eq and value not in ("true", "false"):
                    raise FlagError(f'{name} is a switch: give it alone or as {name}=true / {name}=false; got "{value}".')
                value = value if eq else "true"
            elif not eq:
                if i < len(tokens) and not tokens[i].startswith("--"):
                    value = tokens[i]
                    i += 1
                else:
                    raise FlagError(f"{name} needs a value.")
            key = action.option_strings[-1]
            values[key] = value
            if key not in order:
                order.append(key)

        positional_actions = [a for a in self.declared if not a.option_strings]
        unlimited = any(a.nargs in ("*", "+", argparse.REMAINDER) for a in positional_actions)
        if not unlimited and len(positionals) > len(positional_actions):
            raise FlagError(f'Unexpected argument "{positionals[len(positional_actions)]}" for {self.prog}.')
        index = 0
        for action in self.declared:
            if action.option_strings:
                if action.required and not values.get(action.option_strings[-1]):
                    raise UsageError(f"Missing {action.option_strings[-1]}.")
                continue
            given = positionals[index] if index < len(positionals) else None
            index += 1
            if action.nargs is None and not given:
                label = action.metavar if isinstance(action.metavar, str) else action.dest
                raise UsageError(f"Missing <{label}>.")

        argv: list[str] = []
        for key in order:
            action = self.flag_actions[key]
            if action.nargs != 0:
                argv.append(f"{key}={values[key]}")
            elif values[key] == "true":
                argv.append(key)
        if positionals:
            argv += ["--", *positionals]
        return self.parse_args(argv)


#: What ``register(commands)`` of a command module receives: the subparsers of ``silo-gym``.
Commands = argparse._SubParsersAction


def add_group(commands: Commands, name: str, help: str) -> Commands:
    """A command group (``silo-gym data <command>``); add each subcommand to the returned object."""
    group: CommandParser = commands.add_parser(name, help=help, description=help)
    return group.add_subparsers(title="commands", metavar="<command>")


def add_command_with_subcommands(commands: Commands, name: str, help: str) -> tuple[CommandParser, Commands]:
    """A command with flags of its own and subcommands too (``silo-gym eval`` and ``silo-gym eval
    compare``): a first token naming a subcommand picks it, anything else is the command's own.
    Returns the command's parser (add its flags and handler) and its subcommands."""
    parser: CommandParser = commands.add_parser(name, help=help, description=help)
    parser.runs_alone = True
    return parser, parser.add_subparsers(title="commands", metavar="[<command>]")
