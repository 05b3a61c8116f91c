"""``python -m pod_mypy``: see :mod:`pod_mypy._cli`."""

import sys

from ._cli import main

sys.exit(main())
