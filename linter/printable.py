"""Make untrusted text safe to print on a terminal or in a CI log.

Values from a repository under review (file names, ``metadata.name``, pool names, baseline
messages, rule text) reach people through terminals and CI logs. Raw control characters there
are instructions, not text: ESC starts terminal escape sequences (colours, cursor moves, a
cleared line that hides a finding), CR and LF start a new line that can fake "No problems found"
or a GitHub Actions workflow command (``::error``, ``::add-mask::``, ``::stop-commands::``), BEL
rings. Every value interpolated into human-facing output goes through :func:`printable`, which
spells those characters as visible escapes instead.
"""

from __future__ import annotations

import re

# C0 controls, DEL and C1 controls, plus the Unicode line and paragraph separators (which some
# log viewers and editors break lines at).
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_CONTROL_BUT_NEWLINE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029]")
_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _escape(match: re.Match[str]) -> str:
    character = match.group()
    named = _NAMED.get(character)
    if named is not None:
        return named
    code = ord(character)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def printable(text: str, *, multiline: bool = False, line_start: bool = False) -> str:
    """``text`` with every control character written as an escape (``\\x1b``, ``\\n``, ``\\r``).

    With ``multiline``, line feeds are kept (for documentation shown as several lines); every
    other control character, carriage returns included, is still escaped. With ``line_start``
    the text begins a line of output (a name or message printed first): a leading ``::``, which
    would make the line a workflow command, has its first colon escaped too.
    """
    pattern = _CONTROL_BUT_NEWLINE if multiline else _CONTROL
    escaped = pattern.sub(_escape, text)
    if line_start and escaped.lstrip(" ").startswith("::"):
        blanks = len(escaped) - len(escaped.lstrip(" "))
        escaped = f"{escaped[:blanks]}\\x3a{escaped[blanks + 1 :]}"
    return escaped


#: Characters XML 1.0 cannot hold at all, even as references: the C0 controls but tab and the
#: line breaks, lone surrogates (a file name that was not UTF-8), U+FFFE and U+FFFF.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_text(text: str) -> str:
    """``text`` for an XML attribute or element: printable (:func:`printable`), and with every
    character XML cannot hold written as an escape, so the document stays well formed."""
    return _NOT_XML.sub(_escape, printable(text))
