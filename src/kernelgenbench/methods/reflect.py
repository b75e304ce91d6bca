"""Reflection: a conversation per sample; each round sends the previous verdict back.

The previous reply stays in the conversation as the assistant's turn (reasoning taken out), and
the next user turn reports its verdict: status, reason, the failing case (hidden cases only as
"a hidden case") and the traceback's tail. A sample stops at its first pass or after `rounds`.
"""

from __future__ import annotations

from typing import Any

from .. import prompts
from .base import MethodError, Schedule, Task, register
from .llm import LLMMethod, strip_reasoning
from .providers import Message


class ReflectMethod(LLMMethod):
    name = "reflect"

    def __init__(self, rounds: int = 3, **options: Any):
        if rounds < 1:
            raise MethodError("--rounds must be at least 1")
        super().__init__(**options)
        self.rounds = rounds

    def config(self) -> dict[str, Any]:
        return {**super().config(), "rounds": self.rounds}

    def schedule(self) -> Schedule:
        return Schedule(samples=self.samples, rounds=self.rounds, early_stop=self.early_stop)

    def messages(self, task: Task) -> list[Message]:
        messages = super().messages(task)
        for turn in task.history:
            messages.append({"role": "assistant", "content": strip_reasoning(turn.reply or "").strip() or "(empty)"})
            judged = prompts.Judged(turn.status, turn.reason, turn.verdict)
            messages.append({"role": "user", "content": prompts.feedback(task.op, judged)})
        return messages


register("reflect")(ReflectMethod)
