"""A module that fails while it is imported: ``srcgrad show`` reports a bad target."""

raise RuntimeError("this module cannot be imported")
