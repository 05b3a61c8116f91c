"""One module per check: registration (collects hooks, ``hook-signature``), boundary
(``hook-boundary``), escapes (``hook-escape``) and immutability (``hook-input-mutable``)."""
