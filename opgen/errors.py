"""The two kinds of failure every command reports, by exit code.

`BadInput` (exit 2): the user's input or options are wrong, or the directory is not what the
command needs; nothing was written. `ActionFailed` (exit 1): a step failed (a template, msopgen,
a build); nothing was left behind. Each stage raises a subclass that names its stage; the CLI
catches the two bases.
"""

from __future__ import annotations


class OpgenError(Exception):
    """Base of every error opgen reports as a message (never a traceback)."""

    exit_code = 1


class BadInput(OpgenError):
    """Bad input, options or project state: exit 2, nothing written."""

    exit_code = 2


class ActionFailed(OpgenError):
    """A step failed: exit 1, nothing left behind."""

    exit_code = 1


class UsageError(BadInput):
    """Bad options or a bad destination."""


class ActionError(ActionFailed):
    """A step of `opgen new` failed (msopgen, a template)."""
