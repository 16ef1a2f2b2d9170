"""Nearmiss Workbench: evidence access vs evidence use, per corpus tier. Headless core."""

__version__ = "0.1.0"
