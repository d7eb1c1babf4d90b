"""Developer tools built on the public layers (run as ``python -m srcgrad.tools.<name>``)."""
