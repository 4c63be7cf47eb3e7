"""Cold load time of the price catalogue, and what the same rows would cost as YAML.

Each figure is the median over fresh processes of the time from importing
``linter.catalog.prices`` to the validated catalogue (the loader, pydantic and the manifest and
catalogue base models are imported first, as in a ``gpulint check`` run, so only what a run that
needs prices pays is counted):

    python benchmarks/catalog_prices.py --repeats 15

``first`` has no user cache (GPULINT_NO_CACHE=1); ``cached`` has prices.yaml's parsed form in
the user cache from an earlier run (the CSV tables are always read). ``as YAML`` parses the
catalogue's rows written as one YAML flow mapping per row through gpulint's loader, the format
the other catalogues use, for comparison.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

PROBE = """
import json, time
import linter.model, linter.catalog.base
from linter.catalog import load
load("regions")
start = time.perf_counter()
from linter.catalog.prices import prices
data = prices()
print(json.dumps({"ms": (time.perf_counter() - start) * 1000,
                  "rows": len(data.instances) + len(data.managed)}))
"""

AS_YAML = """
import json, time
from linter.catalog.prices import prices
from linter.load import load_text
data = prices()
lines = ["rows:"]
for row in [*data.instances, *data.managed]:
    cells = ", ".join(f"{k}: {json.dumps(v)}" for k, v in row.model_dump(mode="json").items()
                      if v not in (None, []))
    lines.append("  - {" + cells + "}")
text = "\\n".join(lines) + "\\n"
start = time.perf_counter()
load_text(text)
print(json.dumps({"ms": (time.perf_counter() - start) * 1000, "rows": len(lines) - 1}))
"""


def run(code: str, env: dict[str, str]) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    result: dict[str, float] = json.loads(out.stdout)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as cache:
        cached = {**os.environ, "XDG_CACHE_HOME": cache}
        cached.pop("GPULINT_NO_CACHE", None)
        run(PROBE, cached)  # fills the user cache
        uncached = {**os.environ, "GPULINT_NO_CACHE": "1"}
        probes = {
            "first": (PROBE, uncached),
            "cached": (PROBE, cached),
            "as YAML (parse only)": (AS_YAML, uncached),
        }
        results: dict[str, list[dict[str, float]]] = {name: [] for name in probes}
        for _ in range(args.repeats):  # taking turns, so machine noise hits every probe
            for name, (code, env) in probes.items():
                results[name].append(run(code, env))
    for name, runs in results.items():
        ms = statistics.median(r["ms"] for r in runs)
        print(f"{name:>22}: {ms:6.1f} ms  ({runs[0]['rows']:.0f} rows, median of {args.repeats})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
