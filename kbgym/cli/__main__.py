"""``python -m kbgym.cli``: the same as the ``kbgym`` command."""

import sys

from kbgym.cli import main

sys.exit(main())
