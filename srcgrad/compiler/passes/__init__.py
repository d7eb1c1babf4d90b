"""Optimisation passes over IR; :mod:`.pipeline` holds the one ordered list."""
