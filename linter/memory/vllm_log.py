"""Read a vLLM start-up log: the settings it ran with and the memory lines it printed.

Recognises the V1 lines (``Model loading took X GiB``, ``Available KV cache memory: X GiB``,
``GPU KV cache size: N tokens``, ``Maximum concurrency for M tokens per request: Xx``), the V0
ones (``Loading model weights took X GB``, ``Memory profiling results: total_gpu_memory=...
kv_cache_size=...``, ``# GPU blocks: N``, the one-sentence summary of v0.7) and the start-up
refusals. Settings come from ``non-default args: {...}`` or the engine config line. Anything the
log does not say stays None.
"""

from __future__ import annotations

import re

from linter.memory.kv_cache import BLOCK_SIZE
from linter.memory.replay import Logged, Settings
from linter.records import datarecord

_NUMBER = r"(-?\d[\d,]*(?:\.\d+)?)"
#: The longest log read (``memory --from-log``): a start-up log is a few hundred KB; a FIFO or a
#: device is refused (``linter.load.reader``).
MAX_LOG_BYTES = 64 * 1024 * 1024


def _find(pattern: str, text: str) -> str | None:
    matches = re.findall(pattern, text)
    if not matches:
        return None
    last = matches[-1]
    return str(last[0] if isinstance(last, tuple) else last)


def _float(pattern: str, text: str) -> float | None:
    found = _find(pattern, text)
    return None if found is None else float(found.replace(",", ""))


def _int(pattern: str, text: str) -> int | None:
    value = _float(pattern, text)
    return None if value is None else int(value)


def _setting(name: str, text: str) -> str | None:
    """A setting from ``non-default args`` (``'name': value``) or a config line (``name=value``)."""
    return _find(rf"'{name}': '?([^,'}}]+)'?", text) or _find(rf"\b{name}=([^,\s)]+)", text)


@datarecord
class StartupLog:
    model: str | None
    gpu: str | None
    settings: Settings
    logged: Logged


REFUSALS = (
    "To serve at least one request with the model",
    "No available memory for the cache blocks",
    "can be stored in KV cache",
    "Insufficient memory for the KV cache",
)


def parse_log(text: str) -> StartupLog:
    """The settings and memory lines of one start-up log (the last of each when repeated)."""
    version = _find(
        r"(?:vLLM API server version|version|engine \(v)\s*v?(\d+\.\d+(?:\.\d+)?)", text
    )
    utilization = _setting("gpu_memory_utilization", text) or _find(
        r"gpu_memory_utilization \((\d?\.\d+)\)", text
    )
    engine = _find(r"Initializing an? (V[01]) LLM engine", text)
    tp = _setting("tensor_parallel_size", text)
    model = _setting("model", text)
    max_len = _setting("max_model_len", text) or _setting("max_seq_len", text)
    seqs = _setting("max_num_seqs", text)
    batched = _setting("max_num_batched_tokens", text)
    kv_dtype = _setting("kv_cache_dtype", text)
    eager = _setting("enforce_eager", text)
    weights = _float(r"(?:Model loading took|Loading model weights took) " + _NUMBER, text)
    weights = weights if weights is not None else _float(r"model weights take " + _NUMBER, text)
    available = _float(r"Available KV cache memory: " + _NUMBER, text)
    if available is None:
        available = _float(r"kv_cache_size=" + _NUMBER, text) or _float(
            r"reserved for KV Cache is " + _NUMBER, text
        )
    tokens = _int(r"GPU KV cache size: " + _NUMBER + " tokens", text)
    blocks = _int(r"# (?:GPU|cuda) blocks: " + _NUMBER, text)
    if tokens is None and blocks is not None:
        tokens = blocks * BLOCK_SIZE
    gpu = _find(r"GPU 0: (?:NVIDIA )?([^\n\r(]+?)\s*(?:\(|$|\n)", text)
    total = _float(r"total_gpu_memory[=( ]+" + _NUMBER, text) or _float(
        r"Free memory on device \([\d.]+/" + _NUMBER, text
    )
    refused = any(marker in text for marker in REFUSALS)
    settings = Settings(
        tensor_parallel=int(tp) if tp and tp.isdigit() else 1,
        gpu_memory_utilization=float(utilization) if utilization else None,
        engine_version=version,
        engine=engine.lower() if engine else None,
        max_model_len=int(max_len) if max_len and max_len.isdigit() else None,
        max_num_seqs=int(seqs) if seqs and seqs.isdigit() else None,
        max_num_batched_tokens=int(batched) if batched and batched.isdigit() else None,
        kv_cache_dtype=None if kv_dtype in (None, "auto") else kv_dtype,
        enforce_eager=eager == "True",
    )
    logged = Logged(
        weights_gib=weights,
        available_kv_gib=available,
        kv_cache_tokens=tokens,
        max_concurrency=_float(
            r"Maximum concurrency for [\d,]+ tokens per request: " + _NUMBER, text
        ),
        refused=refused if (refused or tokens is not None or available is not None) else None,
        torch_total_gib=total,
    )
    return StartupLog(model, gpu.strip() if gpu else None, settings, logged)
