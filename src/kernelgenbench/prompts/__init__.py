"""What a model or agent is asked: templates as text files, rendered per source, kind and platform."""

from .render import (
    HIDDEN,
    KINDS,
    Judged,
    PromptError,
    feedback,
    platform_named,
    public_cases,
    python_def,
    render,
    skeleton,
    verify_command,
)

__all__ = ["HIDDEN", "KINDS", "Judged", "PromptError", "feedback", "platform_named", "public_cases",
           "python_def", "render", "skeleton", "verify_command"]
