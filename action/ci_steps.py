"""The GitHub Action's steps that talk to the GitHub API, with the workflow's token.

``code-scanning``: whether code scanning takes this repository's SARIF, written as
``enabled=true|false`` to ``$GITHUB_OUTPUT``. A repository without it (a private one without
GitHub Advanced Security) answers 403 and gets annotations and the summary only; one that has
it answers 200, or 404 "no analysis found" before its first upload.

``comment MARKDOWN JSON``: one pull-request comment with the cost diff (``gpulint cost --diff
--format markdown`` and the same as JSON). It is found by the marker its body starts with:
created once, edited on later pushes when its text changes, deleted when the change no longer
touches any workload's cost. A token that may not comment (a pull request from a fork) is a
warning in the log, not a failed job.

Standard library only: it runs with the Python of the virtual environment the action made,
before and whatever gpulint is installed there. Reads ``GITHUB_API_URL``, ``GITHUB_REPOSITORY``,
``GITHUB_EVENT_PATH``, ``GITHUB_OUTPUT`` and ``GITHUB_TOKEN``.
"""

from __future__ import annotations

import json
import os
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

MARKER = "<!-- gpulint cost diff -->"
#: GitHub refuses a comment body over 65,536 characters.
MAX_BODY = 65_536
#: Comments read to find the action's own (100 a page).
MAX_PAGES = 50
TIMEOUT_S = 30


class ApiError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"HTTP {status}: {message}")
        self.status = status
        self.message = message


class Api:
    """The REST API of ``GITHUB_API_URL`` for ``GITHUB_REPOSITORY``."""

    def __init__(self, environ: dict[str, str]) -> None:
        self.base = environ.get("GITHUB_API_URL", "https://api.github.com").rstrip("/")
        self.repository = environ["GITHUB_REPOSITORY"]
        self.token = environ.get("GITHUB_TOKEN", "")

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            f"{self.base}/repos/{self.repository}{path}",
            data=data,
            method=method,
            headers={
                "Accept": "application/vnd.github+json",
                "Authorization": f"Bearer {self.token}",
                "X-GitHub-Api-Version": "2022-11-28",
                **({"Content-Type": "application/json"} if data is not None else {}),
            },
        )
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:
                text = response.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as error:
            text = error.read().decode("utf-8", "replace")
            try:
                message = str(json.loads(text).get("message", text))
            except (ValueError, AttributeError):
                message = text
            raise ApiError(error.code, message[:300]) from None
        except urllib.error.URLError as error:
            raise ApiError(0, str(error.reason)[:300]) from None
        return json.loads(text) if text.strip() else None


def code_scanning(api: Api) -> bool:
    try:
        api.call("GET", "/code-scanning/analyses?per_page=1")
    except ApiError as error:
        return error.status == 404 and "no analysis found" in error.message.lower()
    return True


def is_empty(diff: dict[str, Any]) -> bool:
    """No workload added, removed, moved, renamed or changed in what it costs."""
    return all(
        change["status"] == "same" and not change["what"] and not change["delta"]
        for change in diff["changes"]
    )


def body(markdown: str) -> str:
    text = f"{MARKER}\n{markdown}"
    if len(text) <= MAX_BODY:
        return text
    cut = text.rfind("\n", 0, MAX_BODY - 200)
    return text[:cut] + "\n\n… cut to fit a comment: the job summary has the whole table\n"


def _own_comment(api: Api, number: int) -> dict[str, Any] | None:
    for page in range(1, MAX_PAGES + 1):
        comments = api.call("GET", f"/issues/{number}/comments?per_page=100&page={page}")
        for comment in comments:
            if str(comment.get("body", "")).startswith(MARKER):
                return dict(comment)
        if len(comments) < 100:
            return None
    return None


def comment(api: Api, number: int, markdown: str, diff: dict[str, Any]) -> str:
    """What was done: created, updated, unchanged, deleted or nothing."""
    existing = _own_comment(api, number)
    if is_empty(diff):
        if existing is None:
            return "nothing to say"
        api.call("DELETE", f"/issues/comments/{existing['id']}")
        return f"deleted comment {existing['id']}"
    text = body(markdown)
    if existing is None:
        created = api.call("POST", f"/issues/{number}/comments", {"body": text})
        return f"created comment {created['id']}"
    if existing.get("body") == text:
        return f"comment {existing['id']} unchanged"
    api.call("PATCH", f"/issues/comments/{existing['id']}", {"body": text})
    return f"updated comment {existing['id']}"


def _pull_request(environ: dict[str, str]) -> int | None:
    path = environ.get("GITHUB_EVENT_PATH")
    if not path:
        return None
    event = json.loads(Path(path).read_text(encoding="utf-8"))
    number = (event.get("pull_request") or {}).get("number")
    return number if isinstance(number, int) else None


def main(argv: list[str], environ: dict[str, str]) -> int:
    api = Api(environ)
    if argv[:1] == ["code-scanning"]:
        enabled = code_scanning(api)
        with open(environ["GITHUB_OUTPUT"], "a", encoding="utf-8") as output:
            output.write(f"enabled={'true' if enabled else 'false'}\n")
        print(f"code scanning {'takes' if enabled else 'does not take'} this repository's SARIF")
        return 0
    if argv[:1] == ["comment"] and len(argv) == 3:
        number = _pull_request(environ)
        if number is None:
            print("not a pull request: no cost comment")
            return 0
        markdown = Path(argv[1]).read_text(encoding="utf-8")
        diff = json.loads(Path(argv[2]).read_text(encoding="utf-8"))
        try:
            print(comment(api, number, markdown, diff))
        except ApiError as error:
            shown = " ".join(str(error).split()).replace("%", "%25")
            print(f"::warning title=gpulint cost comment::not posted: {shown}")
        return 0
    print("usage: ci_steps.py code-scanning | comment MARKDOWN JSON", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:], dict(os.environ)))
