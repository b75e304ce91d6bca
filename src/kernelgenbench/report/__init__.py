"""Renderers of a run's results: markdown, JSON and CSV over the same tables."""

from .tables import FORMATS, render, render_comparison

__all__ = ["FORMATS", "render", "render_comparison"]
