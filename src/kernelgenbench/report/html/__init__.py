"""The static HTML report: a leaderboard, plots, difficulty and failure views, one page per operator."""

from .model import collect
from .site import build_site, page_name

__all__ = ["build_site", "collect", "page_name"]
