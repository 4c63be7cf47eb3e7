"""What gpulint keeps between runs and packs within one: the authenticated store in the user's
cache directory (``store``), parsed rule and catalogue files kept there (``parse_cache``), and
the compact encodings both use (``compact_json``, ``packed``). The result cache of a run is the
run's own (``linter.run.result_cache``), built on this store."""
