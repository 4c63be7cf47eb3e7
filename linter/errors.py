"""The errors that are the user's to fix (exit 2 with a one-line message, no traceback).

Each stage raises its own subclass of :class:`UserError` (a configuration file, a path, a rule
file, a command's arguments); the command line catches the base class. This module imports
nothing, so every layer may raise them.
"""

from __future__ import annotations


class UserError(Exception):
    """Something the user can fix; its message says what, and where."""


class UsageError(UserError):
    """Arguments that do not make sense together, or a value the command cannot use."""
