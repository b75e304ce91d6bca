"""Prompts: what a model receives names the contract, the rules and the public cases, never a hidden one."""

from __future__ import annotations

import subprocess
import sys

import pytest

from kernelgenbench import api, prompts
from kernelgenbench.suite import registry
from kernelgenbench.verify.verdict import CaseResult, ErrorFigures, Status, Verdict


def _listed_cases(text: str) -> set[str]:
    section = text.split("## Public cases", 1)[1].split("\n## ", 1)[0]
    return {line[2:] for line in section.splitlines() if line.startswith("- ")}


@pytest.mark.parametrize("op", [o.id for o in registry.specified()])
@pytest.mark.parametrize("method", ["llm", "agent"])
@pytest.mark.parametrize("platform", ["interpreter", "cuda"])
def test_prompt_has_contract_rules_and_only_public_cases(op, method, platform):
    o = registry.get(op)
    p = prompts.platform_named(platform)
    text = prompts.render(o, method, p)
    assert f"`{o.id}`" in text and o.doc.strip() in text
    for ov in o.overloads:
        assert f"`{ov.func_name}` for `{ov.signature}`" in text and prompts.python_def(ov) in text
    listed = _listed_cases(text)
    public = {c.name for c in o.select_cases(sizes=p.sizes, public_only=True)}
    hidden = {c.name for c in o.cases if c.visibility == "hidden"}
    assert listed == public and not listed & hidden
    assert "torch.ops" in text and "@triton.jit" in text and "Triton 3." in text
    assert ("kgbench verify kernel.py --op " + o.id in text) == (method == "agent")
    assert ("```python block" in text) == (method == "llm")
    assert "$" not in text.replace(o.doc, "").replace(o.notes, "")  # every placeholder was filled


def test_platforms_differ_in_device_and_cases():
    o = registry.get("aten::silu")
    cpu = prompts.render(o, "llm", prompts.platform_named("interpreter"))
    gpu = prompts.render(o, "llm", prompts.platform_named("cuda"))
    assert "Triton interpreter" in cpu and "TRITON_INTERPRET=1" in cpu and "(CUDA)" in gpu
    assert len(_listed_cases(gpu)) > len(_listed_cases(cpu))


def test_skeleton_is_importable_and_names_every_function(tmp_path):
    o = registry.get("aten::softmax")
    code = prompts.skeleton(o)
    f = tmp_path / "kernel.py"
    f.write_text(code)
    r = subprocess.run([sys.executable, "-c", f"import runpy; ns = runpy.run_path({str(f)!r}); "
                        "print(sorted(k for k in ns if not k.startswith('_') and callable(ns[k])))"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    for ov in o.overloads:
        assert ov.func_name in r.stdout


def test_feedback_names_public_cases_and_hides_hidden_ones():
    o = registry.get("aten::silu")
    public = next(c.name for c in o.cases if c.visibility == "public")
    hidden = next(c.name for c in o.cases if c.visibility == "hidden")
    fig = ErrorFigures(1.0, 0.5, 0.01, 0.005, 0.001, 0.0005)

    def verdict(case: str, vis: str) -> Verdict:
        return Verdict(o.id, Status.WRONG_RESULT, f"output 0 wrong on {case}", failing_case=case,
                       cases=(CaseResult(case, "silu", vis, Status.WRONG_RESULT, "wrong", fig),),
                       traceback=f"Traceback\n  File kernel.py, line 3\nAssertionError: {case}")

    shown = prompts.feedback(o, prompts.Judged("wrong_result", f"output 0 wrong on {public}",
                                               verdict(public, "public")))
    assert f"Failing case: {public}." in shown and "wrong_result" in shown and "max err 1" in shown
    assert "AssertionError" in shown
    kept = prompts.feedback(o, prompts.Judged("wrong_result", f"output 0 wrong on {hidden}",
                                              verdict(hidden, "hidden")))
    assert hidden not in kept and "Failing case: a hidden case." in kept
    assert "output 0 wrong on a hidden case" in kept and "AssertionError: a hidden case" in kept
    none = prompts.feedback(o, prompts.Judged("no_code", "the reply has no complete ```python block"))
    assert none.startswith("Your file was judged: no_code.") and "```python block" in none


def test_prompt_command_prints_exactly_the_rendered_text():
    r = subprocess.run([sys.executable, "-m", "kernelgenbench.cli", "prompt", "silu", "--method", "agent",
                        "--platform", "interpreter"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout == api.prompt("aten::silu", "agent", "interpreter")
    bad = subprocess.run([sys.executable, "-m", "kernelgenbench.cli", "prompt", "silu", "--method", "magic"],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and bad.stderr.startswith("error: no prompt for method 'magic'")
