"""sessite: publish archives of AI coding sessions as a static, searchable site."""

__version__ = "0.1.0"
