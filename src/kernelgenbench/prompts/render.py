"""Rendering the text a model or agent receives, from an operator record and a platform.

Templates are text files in templates/ (one per source x kind, plus shared fragments), filled with
`string.Template`. Only public cases ever reach a prompt; a hidden case is named in feedback
only as "a hidden case".
"""

from __future__ import annotations

import importlib.metadata
import os
from dataclasses import dataclass
from pathlib import Path
from string import Template

from ..platforms import INTERPRETER, PROFILES, Platform, PlatformError, names, platform_of, profile
from ..suite.spec import Operator, Overload
from ..verify.verdict import Verdict

TEMPLATES = Path(__file__).parent / "templates"
KINDS = {"llm": "sampling", "reflect": "sampling", "agent": "agent"}
HIDDEN = "a hidden case"

class PromptError(ValueError):
    """A prompt was asked for something that has none (unknown kind or platform)."""


def _version(package: str) -> str:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def platform_named(name: str | None) -> Platform:
    """The platform a prompt describes; any profile's, since only the text is made (no device needed)."""
    if name is None:
        return INTERPRETER
    try:
        return platform_of(profile(name))
    except PlatformError:
        raise PromptError(f"unknown platform {name!r}: use {names()}") from None


def _device_name(platform: Platform) -> str:
    if platform.name != "cuda":
        return platform.profile.label
    try:
        import torch

        if torch.cuda.is_available():
            return f"{torch.cuda.get_device_name(0)} (CUDA)"
    except Exception:  # a broken driver only costs the device's name in the text
        pass
    return "an NVIDIA GPU (CUDA)"


def describe_platform(platform: Platform) -> str:
    """The device, the versions, and the profile's hint for models (with the dtypes it cannot run)."""
    p = PROFILES[platform.name]
    shapes = "small and large shapes" if "large" in platform.sizes else "small shapes"
    missing = (f" Cases in {', '.join(sorted(p.unsupported_dtypes))} are not run on this platform."
               if p.unsupported_dtypes else "")
    return "\n".join([
        f"- device: {_device_name(platform)}",
        f"- Triton {_version('triton')}, PyTorch {_version('torch')}",
        f"- {p.hint}{missing} Cases use {shapes}.",
    ])


def python_def(ov: Overload) -> str:
    """The Python `def` line of an overload's function, parameters in schema order."""
    parts: list[str] = []
    star = False
    for p in ov.params:
        if p.via:  # storage reached through a pointer array, never passed
            continue
        if p.kw_only and not star:
            parts.append("*")
            star = True
        parts.append(f"{p.name}={_default(p.type, p.default)}" if p.has_default else p.name)
    return f"def {ov.func_name}({', '.join(parts)}):"


MEMORY_FORMATS = ("torch.contiguous_format", "torch.preserve_format", "torch.channels_last",
                  "torch.channels_last_3d")


def _default(type_name: str, default: object) -> str:
    """A schema default as Python spells it: the registry stores a MemoryFormat as its enum number."""
    if type_name == "MemoryFormat" and isinstance(default, int) and 0 <= default < len(MEMORY_FORMATS):
        return MEMORY_FORMATS[default]
    return repr(default)


def _functions(op: Operator) -> str:
    blocks = []
    for ov in op.overloads:
        lines = [f"- `{ov.func_name}` for `{ov.signature}`", f"  {python_def(ov)}"]
        if ov.doc:
            lines.append(f"  {ov.doc}")
        blocks.append("\n".join(lines))
    return "\n".join(blocks)


def public_cases(op: Operator, platform: Platform) -> list[str]:
    runs = platform.profile.supports
    return [c.name for c in op.select_cases(sizes=platform.sizes, public_only=True) if all(map(runs, c.dtypes))]


ALIAS_ENV = "KGB_OP_ALIAS"


def real_id(op_id: str) -> str:
    """The operator an id given to `kgbench verify` stands for: in a twin's agent workspace the
    `kgbench` wrapper sets KGB_OP_ALIAS=ORIGINAL=TWIN, so the original's id verifies the twin."""
    shown, _, twin = os.environ.get(ALIAS_ENV, "").partition("=")
    if shown and twin:
        from ..suite import registry

        if registry.normalize(op_id) == shown:
            return twin
    return op_id


def shown_id(op: Operator) -> str:
    """The id a model or agent sees: a perturbed twin is asked for under its original's id, so the
    task does not announce itself as a contamination probe (its doc states what it computes)."""
    return op.twin_of or op.id


def verify_command(op: Operator, platform: Platform) -> str:
    flag = {"cuda": "", "interpreter": " --device cpu"}
    device = flag.get(platform.name, f" --device {platform.name}")
    return f"kgbench verify kernel.py --op {shown_id(op)} --public{device}"


def _template(name: str) -> Template:
    return Template((TEMPLATES / f"{name}.txt").read_text(encoding="utf-8"))


WORK_RULES = {
    "compute": "",
    "data": "\n  This operator's work is itself moving or creating data, so here the copy or fill must be\n"
            "  a Triton kernel: host code may only allocate (`torch.empty*`), take views and read metadata.",
    "view": "\n  This operator is metadata only: where ATen returns a view, build it with view operations on\n"
            "  the host (no copy, no fill) so that it aliases its input with ATen's storage offset and strides;\n"
            "  where ATen copies, the copy must be a Triton kernel. A tensor argument that places the view\n"
            "  (a start index) may be read on the host. It is judged for accuracy, not timed.",
    "read": "\n  This operator reads one value into Python: host code may move it to the host and read it\n"
            "  (`.tolist()`), and nothing else. It is judged for accuracy, not timed.",
    "random": "\n  This operator draws random values: generate them in the kernel (`tl.rand`, `tl.randint`,\n"
              "  `tl.randn`) from a seed that host code draws from the `generator` argument, e.g.\n"
              "  `seed = torch.randint(0, 2**31 - 1, (2,), generator=generator, device=x.device)` (at most 8\n"
              "  values; with `generator=None` this draws from the device's default generator, as ATen does),\n"
              "  and pass it to the kernel as a tensor. Drawing more than a seed with torch is not allowed.",
}


SIZE_READ_RULE = ("\n  This operator's output size can depend on input values (a bool mask's number of True values):\n"
                  "  count in a kernel and read only that count with `.item()` to allocate the output, as ATen does.")


COMPARE_RULES = {
    "values": "",
    "values_and_strides": " Strides are judged too: your outputs must have the native strides\n"
                          "(the memory format is part of this operator's contract).",
    "strides": " The values are undefined: only shape, dtype and strides are judged.",
    "distribution": " The outputs are random, so the tolerance above does not apply: they are judged\n"
                    "statistically against the distribution the arguments define (goodness of fit, mean,\n"
                    "independence of neighbouring elements; false-rejection rate 1e-6 per case), values outside\n"
                    "the support and deterministic positions (a probability of 0 or 1) exactly, and the\n"
                    "generator must be honoured: the same generator state twice gives the same outputs bit for\n"
                    "bit, two seeds give different ones.",
}


def render(op: Operator, method: str = "llm", platform: Platform | None = None) -> str:
    """Exactly the text a model (`llm`, `reflect`) or an agent (`agent`) receives for `op`."""
    if method not in KINDS:
        raise PromptError(f"no prompt for method {method!r}: use {', '.join(KINDS)}")
    platform = platform or INTERPRETER
    t = op.tolerance
    cases = public_cases(op, platform)
    return _template(f"{op.source}.{KINDS[method]}").substitute(
        op_id=shown_id(op),
        name=op.name,
        doc=op.doc.strip(),
        notes=f"\n\nNote: {op.notes.strip()}" if op.notes.strip() else "",
        functions=_functions(op),
        platform=describe_platform(platform),
        rules=_template("rules").substitute(work_rule=WORK_RULES[op.work] + (SIZE_READ_RULE if op.size_reads else "")
                                            ).strip(),
        judging=_template("judging").substitute(k_rms=f"{t.k_rms:g}", k_max=f"{t.k_max:g}",
                                                ulps=f"{t.floor_ulps:g}",
                                                compare_rule=COMPARE_RULES[op.compare]).strip(),
        cases="\n".join(f"- {c}" for c in cases) if cases else "(none on this platform)",
        verify=verify_command(op, platform),
    )


def skeleton(op: Operator) -> str:
    """The kernel.py an agent starts from: the imports and every function, unimplemented."""
    lines = ["import torch", "import triton", "import triton.language as tl", ""]
    for ov in op.overloads:
        lines += ["", python_def(ov), f'    raise NotImplementedError("{ov.func_name}")', ""]
    return "\n".join(lines)


def _hide(text: str, hidden: list[str]) -> str:
    for name in sorted(hidden, key=len, reverse=True):
        text = text.replace(name, HIDDEN)
    return text


@dataclass(frozen=True)
class Judged:
    """What a model is told about its previous file."""

    status: str
    reason: str
    verdict: Verdict | None = None


def feedback(op: Operator, judged: Judged, traceback_lines: int = 20) -> str:
    """The reflection turn: the verdict's status, reason, failing case and traceback tail.

    Public cases are named; hidden ones appear only as "a hidden case", wherever their names occur.
    """
    hidden = [c.name for c in op.cases if c.visibility == "hidden"]
    v = judged.verdict
    failing = ""
    if v is not None and v.failing_case:
        case = next((c for c in v.cases if c.case == v.failing_case), None)
        visible = case is not None and case.visibility == "public" and v.failing_case not in hidden
        failing = f"Failing case: {v.failing_case if visible else HIDDEN}.\n"
        if case is not None and case.figures is not None:
            failing += f"Error on it: {case.figures.describe()}.\n"
    tb = ""
    if v is not None and v.traceback and judged.status != "pass":
        tail = "\n".join(v.traceback.strip().splitlines()[-traceback_lines:])
        tb = f"Traceback (last lines):\n{tail}\n"
    text = _template("reflect").substitute(
        status=judged.status, reason=_hide(judged.reason.strip(), hidden).rstrip(".") + ".",
        failing=_hide(failing, hidden), traceback=_hide(tb, hidden)).strip() + "\n"
    return text.replace(op.id, shown_id(op))
