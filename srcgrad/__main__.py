"""``python -m srcgrad ...``: the same command line as the ``srcgrad`` script (see cli)."""

import sys

from .cli import main

sys.exit(main())
