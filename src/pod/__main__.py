"""``python -m pod``: the same as the ``pod`` command."""

import sys

from ._cli import main

sys.exit(main())
