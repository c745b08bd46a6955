"""The program's version: one line, importable from any layer without loading the package's API."""

from __future__ import annotations

__version__ = "0.3.0"
