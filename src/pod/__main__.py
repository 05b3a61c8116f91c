"""``python -m pod``: the same as the ``pod`` command."""

import sys

from .cli._main import main

sys.exit(main())
