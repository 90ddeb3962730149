"""The package's version, in one place below every layer (model files record it)."""

__version__ = "0.1.0"
