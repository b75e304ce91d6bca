"""What a model or agent is asked: templates as text files, rendered per source, kind and platform."""

from .render import (
    ALIAS_ENV,
    HIDDEN,
    KINDS,
    Judged,
    PromptError,
    feedback,
    platform_named,
    public_cases,
    python_def,
    real_id,
    render,
    shown_id,
    skeleton,
    verify_command,
)

__all__ = ["ALIAS_ENV", "HIDDEN", "KINDS", "Judged", "PromptError", "feedback", "platform_named", "public_cases",
           "python_def", "real_id", "render", "shown_id", "skeleton", "verify_command"]
