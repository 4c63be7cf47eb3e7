"""One lint run, in two passes: every file on its own (``first_pass``, in ``workers`` for large
runs), then what depends on more than one file (``second_pass``); the result cache that lets an
unchanged file skip the first pass (``result_cache``, ``result_key``, ``reuse``); suppressions
and baselines, which decide what a run reports; and ``fixtures``, the run behind ``gpulint
test``."""
