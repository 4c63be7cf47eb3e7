"""Text, Markdown and JSON for a cost report (``linter.costs.tables.View``).

Everything from the repository (names, paths, messages) is made printable (``linter.printable``)
and, in Markdown, escaped so that it renders as the text it is: no table cell can be closed
early, no link, image, HTML, mention or heading can be made. Markdown is for pull-request
comments and the GitHub job summary (1 MiB at most; GitHub drops a larger one whole): it shows
at most MAX_ROWS rows of a table and at most MAX_CELL characters of a cell, and stops before
MAX_MARKDOWN_BYTES with a last line that says how much it left out.
"""

from __future__ import annotations

import json
import re

from linter.costs.tables import Table, View
from linter.printable import printable
from linter.wording import plural

MAX_ROWS = 50
MAX_CELL = 200
MAX_NOTE = 1000
#: Below a job summary's 1 MiB, with room for what the step wrote before.
MAX_MARKDOWN_BYTES = 900 * 1024
#: The most the line saying what was left out takes.
_LEFT_OUT_ROOM = 512
# The characters that could start markup here (emphasis, code, links and images, HTML and
# entities, a table cell's end, strikethrough, mentions, issue references, GitHub's $ math),
# written with the backslash escape CommonMark gives every ASCII punctuation character.
_MARKDOWN = re.compile(r"([\\`*_{}\[\]<>#!|~@&$])")


def markdown_text(text: str, limit: int) -> str:
    shown = printable(text)
    if len(shown) > limit:
        shown = shown[: limit - 1] + "…"
    return _MARKDOWN.sub(r"\\\1", shown)


def _markdown_table(table: Table) -> list[str]:
    def row(cells: tuple[str, ...]) -> str:
        return "| " + " | ".join(markdown_text(cell, MAX_CELL) for cell in cells) + " |"

    lines = [
        row(table.headers),
        "|" + "|".join("---:" if numeric else "---" for numeric in table.numeric) + "|",
    ]
    lines += [row(cells) for cells in table.rows[:MAX_ROWS]]
    hidden = len(table.rows) - MAX_ROWS
    if hidden > 0:
        lines.append(
            row((f"… {hidden} more rows, in the total",) + ("",) * (len(table.headers) - 1))
        )
    if table.total is not None:
        lines.append(
            "| "
            + " | ".join(
                f"**{markdown_text(cell, MAX_CELL)}**" if cell else "" for cell in table.total
            )
            + " |"
        )
    return lines


def markdown(view: View) -> str:
    lines = [
        f"### {markdown_text(view.title, MAX_CELL)}",
        "",
        f"**{markdown_text(view.summary, MAX_NOTE)}**",
        "",
    ]
    for table in view.tables:
        lines += [*_markdown_table(table), ""]
    lines += [f"- {markdown_text(note, MAX_NOTE)}" for note in view.notes]
    return _capped(lines)


def _capped(lines: list[str]) -> str:
    """The lines, up to MAX_MARKDOWN_BYTES, and what was left out (notes are one a line: a
    repository of thousands of workloads made 1.46 MB, which GitHub then did not show at all)."""
    size = 0
    for index, line in enumerate(lines):
        size += len(line.encode("utf-8")) + 1
        if size > MAX_MARKDOWN_BYTES - _LEFT_OUT_ROOM:
            left = sum(1 for rest in lines[index:] if rest)
            said = (
                f"- … {plural(left, 'more line')} left out: the Markdown stops at "
                f"{MAX_MARKDOWN_BYTES:,} bytes (a GitHub job summary holds 1 MiB); "
                "`gpulint cost --format json` has everything"
            )
            return "\n".join([*lines[:index], "", said]) + "\n"
    return "\n".join(lines) + "\n"


def _text_table(table: Table) -> list[str]:
    rows = [table.headers, *table.rows]
    if table.total is not None:
        rows.append(table.total)
    shown = [tuple(printable(cell) for cell in cells) for cells in rows]
    widths = [max(len(cells[i]) for cells in shown) for i in range(len(table.headers))]

    def line(cells: tuple[str, ...]) -> str:
        return "  ".join(
            cell.rjust(width) if numeric else cell.ljust(width)
            for cell, width, numeric in zip(cells, widths, table.numeric, strict=True)
        ).rstrip()

    out = [line(cells) for cells in shown]
    if table.total is not None:
        out.insert(len(out) - 1, "-" * len(out[0]))
    return out


def text(view: View) -> str:
    lines = [f"{printable(view.title)}: {printable(view.summary)}", ""]
    for table in view.tables:
        lines += [*_text_table(table), ""]
    lines += [f"  {printable(note)}" for note in view.notes]
    return "\n".join(lines) + "\n"


def json_text(view: View) -> str:
    return json.dumps(view.data, indent=2) + "\n"


RENDERERS = {"text": text, "markdown": markdown, "json": json_text}
