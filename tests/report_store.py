"""A store with what an HTML report must cope with: timed GPU runs with model costs, an interpreter
run with no timing, the harness's real failure reasons, and a hostile candidate and run name."""

from __future__ import annotations

from pathlib import Path

from kernelgenbench.store import Exchange, Store
from kernelgenbench.verify.timing import CaseTiming, Stats
from kernelgenbench.verify.verdict import CaseResult, ErrorFigures, Status, Verdict

HOSTILE = '</script><script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">'
HOSTILE_SOURCE = f'"""{HOSTILE}"""\nimport triton\n'
HOSTILE_RUN = "<img src=x onerror=window.__pwned=3>"

NAN_REASON = ("output 0: non-finite values differ from the native op: 356 positions (first: flat 0, got -inf, "
              "native nan)")
NAN_CASE = "sort.stable: self=bfloat16[4, 300] expanded, stable=True, dim=1, descending=False"
DTYPE_REASON = "output 0 is torch.float32[8, 8], expected torch.float16[8, 8]"
EMPTY_CASE = "cublasSaxpy_v2: n=0, alpha=2.0, x=float32[0], incx=1, y=float32[0], incy=1"
ERROR_REASON = ("output 0: numerical error too large: max err 4.44e-16 (allowed 3.8e-16), rms err 4.44e-16 "
                "(allowed 3.79e-16), ratio 1.17")


def timing(op: str, speedups: list[float]) -> Verdict:
    cases = [CaseTiming(f"{op.split('::')[1]}: x=float32[{1024 * (i + 1)}]", op, Stats(100.0, 90.0, 110.0, 100),
                        Stats(100.0 / s, 1.0, 2.0, 100), 100.0, 100.0 / s, 1.0, "events").to_dict()
             for i, s in enumerate(speedups)]
    return Verdict(op=op, status=Status.PASS, reason="timed", layer="timing",
                   extra={"timing": {"cases": cases, "clock": {}, "baseline": "library"}})


def failing(op: str, status: Status, reason: str, case: str, figures: ErrorFigures | None = None) -> Verdict:
    cases = (CaseResult(f"{op.split('::')[1]}: ok", "default", "public", Status.PASS),
             CaseResult(case, "default", "public", status, reason, figures))
    return Verdict(op=op, status=status, reason=reason, failing_case=case, cases=cases,
                   traceback="Traceback (most recent call last):\n  boom" if status is Status.RUNTIME_ERROR else None)


def add(store: Store, run_id: int, op: str, verdict: Verdict, speedups: list[float] | None = None, *,
        source: str = "import triton\n", reply: str | None = None, tokens: tuple[int, int] | None = None) -> None:
    exchange = None if tokens is None else Exchange({"prompt": op}, reply, "stop", 1, tokens[0], tokens[1], 3.0)
    aid = store.add_generated(run_id, op, "llm", source, sample=0, round=0, model="m", origin=None,
                              exchange=exchange)
    store.put_verdict(aid, verdict)
    if speedups is not None:
        store.put_timing(aid, timing(op, speedups))


def passed(op: str) -> Verdict:
    return Verdict(op=op, status=Status.PASS, reason="all cases correct",
                   cases=(CaseResult(f"{op.split('::')[1]}: x=float32[64]", "default", "public", Status.PASS,
                                     figures=ErrorFigures(1e-7, 1e-8, 1e-6, 1e-7, 1e-7, 1e-8)),))


def build(path: Path) -> Path:
    """gpu-a: 3 of 5 pass, timed, priced; the hostile run: 1 of 3 with a hostile candidate and reply;
    interp: 2 of 2, never timed."""
    prices = {"m": {"input": 1.0, "output": 4.0}}
    with Store(path) as store:
        a = store.open_run("gpu-a", "llm", {"model": "m", "prices": prices, "timing": {"graph": False}}, "cuda",
                           {"device": "NVIDIA H200"}, 1).id
        add(store, a, "aten::add", passed("aten::add"), [2.0, 8.0], tokens=(1000, 500))
        add(store, a, "aten::mul", passed("aten::mul"), [0.5], tokens=(1000, 500))
        add(store, a, "vllm::rms_norm", passed("vllm::rms_norm"), [1.5], tokens=(1000, 500))
        add(store, a, "aten::sort", failing("aten::sort", Status.WRONG_RESULT, NAN_REASON, NAN_CASE), tokens=(1, 1))
        add(store, a, "cublas::cublasSaxpy_v2", failing("cublas::cublasSaxpy_v2", Status.RUNTIME_ERROR,
                                                        "IndexError: list index out of range", EMPTY_CASE),
            tokens=(1, 1))
        b = store.open_run(HOSTILE_RUN, "llm", {"model": "m", "prices": prices}, "cuda", {}, 1).id
        add(store, b, "aten::add", passed("aten::add"), [1.0], tokens=(2000, 1000))
        add(store, b, "aten::mul", failing("aten::mul", Status.WRONG_RESULT, DTYPE_REASON, "mul: self=float16[8, 8]"),
            tokens=(2000, 1000))
        add(store, b, "aten::sort",
            failing("aten::sort", Status.WRONG_RESULT, f"{ERROR_REASON} {HOSTILE}",
                    "sort: self=float32[] " + HOSTILE, ErrorFigures(4.44e-16, 4.44e-16, 3.8e-16, 3.79e-16, 0, 0)),
            source=HOSTILE_SOURCE, reply=f"```python\n{HOSTILE_SOURCE}```", tokens=(2000, 1000))
        c = store.open_run("interp", "reference", {}, "interpreter", {}, 1).id
        for op in ("aten::add", "aten::mul"):
            aid = store.add_attempt(c, op, "reference", "import triton\n")
            store.put_verdict(aid, passed(op))
    return path
