"""Command lines, the vocabulary every format shares: shell words with their offsets (``shell``,
``shell_syntax``), the flags of serving engines and training launchers read against their tables
(``arguments``, ``engines``, ``launchers``, ``programs``), the scripts a launcher runs
(``scripts``), the checkpoints and resumes they show (``checkpoints``), durations and the engine
release of an image. Kubernetes args, SkyPilot ``run``, dstack ``commands`` and (to come) Slurm
batch scripts all go through here."""
