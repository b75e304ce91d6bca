"""Schedulers that run judging jobs, and the campaign loop that ties methods, sandbox and store."""

from .campaign import CampaignResult, Outcome, run_campaign
from .local import Executor, LocalPool

__all__ = ["CampaignResult", "Executor", "LocalPool", "Outcome", "run_campaign"]
