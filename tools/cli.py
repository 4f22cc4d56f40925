"""What the command-line tools share: a bad flag or value is one line on stderr, and a
reader that closes the output early (``relax-opt ... | head``) ends the tool quietly.

argparse prints the usage before its error; the tools print only
``prog: error: what (see --help)`` and exit with code 2, as argparse does.
"""

from __future__ import annotations

import argparse
import difflib
import math
import os
import re
import sys
from collections.abc import Callable
from typing import NoReturn


def one_line_errors(parser: argparse.ArgumentParser, prog: str) -> argparse.ArgumentParser:
    """``parser``, named ``prog``, reporting a bad command line in one line."""
    parser.prog = prog

    def error(message: str) -> NoReturn:
        parser.exit(2, f"{prog}: error: {message}{_suggestion(parser, message)} (see --help)\n")

    parser.error = error  # type: ignore[method-assign]
    return parser


def _suggestion(parser: argparse.ArgumentParser, message: str) -> str:
    """``; did you mean --flag?`` for an unrecognized flag close to one the tool has."""
    if not message.startswith("unrecognized arguments: "):
        return ""
    unknown = message.removeprefix("unrecognized arguments: ").split()[0].split("=")[0]
    flags = set(re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", parser.format_help()))
    close = difflib.get_close_matches(unknown, sorted(flags), n=1, cutoff=0.75)
    return f"; did you mean {close[0]}?" if close else ""


def int_in(low: int, high: int) -> Callable[[str], int]:
    """An argparse type: an integer in ``[low, high]``."""

    def parse(text: str) -> int:
        digits = text.strip().lstrip("+-")
        if not digits.isdigit() or len(text.strip()) - len(digits) > 1:
            raise argparse.ArgumentTypeError(f"expected an integer, got '{_shown(text)}'")
        # an integer too long for int() is out of range, not malformed
        value = int(text) if len(digits) <= 4000 else (low - 1 if "-" in text else high + 1)
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(
                f"expected an integer in [{low}, {high}], got {_shown(text)}"
            )
        return value

    return parse


def seconds_up_to(high: float) -> Callable[[str], float]:
    """An argparse type: a number of seconds, more than 0 and at most ``high``."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"expected a number of seconds, got '{_shown(text)}'"
            ) from None
        if not (math.isfinite(value) and 0 < value <= high):
            raise argparse.ArgumentTypeError(
                f"expected a number of seconds in (0, {high:g}], got {_shown(text)}"
            )
        return value

    return parse


def _shown(text: str) -> str:
    """``text`` as an error message quotes it: at most 40 characters."""
    return text if len(text) <= 40 else text[:37] + "..."


def stdout_closed() -> int:
    """The exit code of a tool whose reader closed stdout: no message, and stdout goes
    nowhere from now on (Python's final flush would fail again)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return 1
