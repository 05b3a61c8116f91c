"""``python -m pod_mypy``: see :mod:`pod_mypy._cli`."""

import os
import sys

from ._cli import main

try:
    status = main()
    sys.stdout.flush()
except BrokenPipeError:
    # The reader went away (``... database | head``): stop quietly, as ``cat`` does. stdout
    # goes to the null device so the interpreter's last flush cannot fail a second time.
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, sys.stdout.fileno())
    os.close(null)
    status = 141
sys.exit(status)
