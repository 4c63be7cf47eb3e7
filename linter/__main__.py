from __future__ import annotations

import sys

from linter.cli import main

sys.exit(main())
