"""Renderers of a run's results: markdown, JSON and CSV over the same tables."""

from .tables import FORMATS, render

__all__ = ["FORMATS", "render"]
