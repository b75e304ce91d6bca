"""The answer key is checked: a copy of a shipped solution, however disguised, is `hack_copied`
before it reaches a worker; honest code, and the reference method's own run, are not."""

from __future__ import annotations

import ast
import io
import shutil
import tokenize
from pathlib import Path

import pytest

from kernelgenbench import api
from kernelgenbench.execute.campaign import checks_copies
from kernelgenbench.methods.files import FilesMethod, candidate_path
from kernelgenbench.methods.reference import ReferenceMethod
from kernelgenbench.store import Store
from kernelgenbench.suite import registry
from kernelgenbench.suite.solutions import is_shipped, solutions_dir
from kernelgenbench.verify import copied
from kernelgenbench.verify.verdict import Status

from .corpus import header

GENUINE = sorted((Path(__file__).parent / "genuine").rglob("*.py"))


def solution(op: str) -> str:
    return candidate_path(solutions_dir(), op).read_text()


def renamed(source: str, op: str) -> str:
    """`source` with every name it binds renamed (kernels, helpers, parameters, variables, constants)
    and its comments dropped; only the entry points keep their names, as the contract wants."""
    bound = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.add(node.id)
    bound -= {ov.func_name for ov in registry.get(op).overloads}
    out, prev = [], None
    for t in tokenize.generate_tokens(io.StringIO(source).readline):
        if t.type == tokenize.COMMENT:
            continue
        text = t.string
        if t.type == tokenize.NAME and text in bound and not (prev is not None and prev.string == "."):
            text = f"my_{text[::-1].strip('_')}"
        out.append((t.type, text))
        if t.type not in (tokenize.NL, tokenize.NEWLINE):
            prev = t
    return tokenize.untokenize(out)


def test_renaming_layout_and_comments_change_no_token():
    code = solution("aten::softmax")
    assert copied.tokens(renamed(code, "aten::softmax")) == copied.tokens(code)
    assert copied.tokens("def f(a, b,):\n    '''doc'''\n    return a.x + b  # note\n") == \
        copied.tokens("def g(x, y):\n\n    return x.x +  y\n")


def test_a_renamed_copy_with_edits_is_found_and_named():
    code = renamed(solution("aten::softmax"), "aten::softmax").replace("1024", "512")
    code = "\n\ndef _unused_helper(n):\n    return n + 1\n" + code  # code added around a copy costs nothing
    v = copied.check("aten::softmax", code)
    assert v is not None and v.status is Status.HACK_COPIED and v.layer == "copied"
    assert v.reason.startswith("the code is a copy of the shipped solution solutions/aten/softmax.py (similarity ")
    assert f"threshold {copied.THRESHOLD:.2f})" in v.reason and "To comply:" in v.reason
    assert v.extra["copied"]["solution"] == "solutions/aten/softmax.py"
    assert v.extra["copied"]["similarity"] >= copied.THRESHOLD


def test_another_operators_solution_adapted_is_a_copy_too():
    """cos's solution turned into sin: the answer key was used all the same, and the verdict says whose."""
    code = renamed(solution("aten::cos"), "aten::cos").replace("def cos", "def sin").replace("tl.cos", "tl.sin")
    v = copied.check("aten::sin", code)
    assert v is not None and v.extra["copied"]["solution"] in ("solutions/aten/cos.py", "solutions/aten/sin.py")


def test_a_twin_answered_with_its_originals_solution_is_a_copy():
    twin = registry.get("vllm::rms_norm~eps_out")
    v = copied.check(twin.id, renamed(solution(twin.twin_of), twin.twin_of))
    assert v is not None and v.status is Status.HACK_COPIED


def test_every_honest_genuine_file_passes_the_check():
    """tests/genuine: honest kernels written the ways people and models write them, against every
    shipped solution (benchmarks/results/copied-threshold.md: 0.51 at most, a saxpy against its twin's)."""
    for path in GENUINE:
        match = copied.closest(path.read_text(), op=header(path)["op"])
        assert match is not None and match.similarity < copied.THRESHOLD - 0.05, (path.name, match)


def test_solutions_with_one_way_to_write_them_are_not_checked():
    """aten::item is one `as_strided(...).tolist()`; an honest file may be exactly that."""
    assert copied.check("aten::item", solution("aten::item")) is None
    assert copied.check("aten::softmax", solution("aten::softmax")) is not None


def test_no_solutions_folder_means_nothing_to_compare_with(tmp_path):
    assert copied.check("aten::softmax", solution("aten::softmax"), tmp_path / "absent") is None


def test_verify_file_finds_a_copy_without_a_worker(tmp_path):
    path = tmp_path / "kernel.py"
    path.write_text(renamed(solution("aten::silu"), "aten::silu"))
    v = api.verify_file(path, "aten::silu", device="cpu", seed=5)
    assert v.status is Status.HACK_COPIED and "solutions/aten/silu.py" in v.reason
    assert v.cases == () and v.seed == 5 and v.platform == "interpreter"


def test_verify_file_leaves_the_shipped_file_itself_and_an_opt_out_to_the_judge(tmp_path):
    shipped = candidate_path(solutions_dir(), "aten::neg")
    assert is_shipped(shipped) and not is_shipped(tmp_path / "neg.py")
    assert api.verify_file(shipped, "aten::neg", device="cpu", seed=5, public_only=True).status is Status.PASS
    copy = tmp_path / "neg.py"
    shutil.copy(shipped, copy)
    assert api.verify_file(copy, "aten::neg", device="cpu", seed=5, public_only=True,
                           copy_check=False).status is Status.PASS


def test_every_method_but_the_reference_is_checked(tmp_path):
    assert not checks_copies(ReferenceMethod())
    assert checks_copies(FilesMethod(tmp_path))


def test_a_files_campaign_calls_a_pasted_solution_hack_copied_and_the_reference_run_passes(tmp_path):
    root = tmp_path / "cands"
    (root / "aten").mkdir(parents=True)
    (root / "aten" / "neg.py").write_text(renamed(solution("aten::neg"), "aten::neg"))
    db = tmp_path / "k.db"
    files = api.run("files", dir=str(root), ops=["neg"], db=db, device="cpu", tiers=["small"], name="files")
    reference = api.run("reference", ops=["neg"], db=db, device="cpu", tiers=["small"], name="reference")
    with Store(db) as store:
        (copy,) = store.rows(files.run.id)
        (ref,) = store.rows(reference.run.id)
        assert store.find_run("files").config["copy_check"] is True
        assert store.find_run("reference").config["copy_check"] is False
    assert copy.status == "hack_copied" and "solutions/aten/neg.py" in copy.reason
    assert ref.status == "pass"


@pytest.mark.parametrize("edit", ["reordered", "constants"])
def test_light_edits_stay_above_the_threshold(edit):
    code = solution("aten::softmax")
    if edit == "reordered":  # the file's top-level definitions in reverse order
        blocks = code.split("\n\n\n")
        code = "\n\n\n".join([blocks[0]] + blocks[:0:-1])
    else:
        code = code.replace("1024", "256").replace("4096", "2048").replace("num_warps=4", "num_warps=8")
    match = copied.closest(code, op="aten::softmax")
    assert match is not None and match.copied and match.solution == "solutions/aten/softmax.py"
