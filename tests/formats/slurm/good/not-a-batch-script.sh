#!/bin/bash
# A helper script with no directives: not a Slurm job, never read.
set -euo pipefail
python -m pip install -r requirements.txt
