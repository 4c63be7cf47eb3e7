"""The errors that are the user's to fix (exit 2 with a one-line message, no traceback)."""

from __future__ import annotations

from linter.config import ConfigError
from linter.discover import DiscoveryError
from linter.policy.loader import RuleError


class UsageError(Exception):
    """Arguments that do not make sense together, or a value the command cannot use."""


USER_ERRORS: tuple[type[Exception], ...] = (ConfigError, DiscoveryError, RuleError, UsageError)
