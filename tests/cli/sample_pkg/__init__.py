"""A package whose module is a ``package.module:function`` target of ``srcgrad show``."""
