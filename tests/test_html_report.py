"""The static HTML report: one folder that works from file:// (every link and asset is a file in
it), figures that are the metrics' own, `not timed` where nothing was timed, and nothing from a
candidate or a model that a browser would run. tests/test_browser.py opens it in a real browser."""

from __future__ import annotations

import math
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from kernelgenbench import api
from kernelgenbench.report.taxonomy import failure_semantic
from kernelgenbench.store import Row

from . import report_store
from .report_store import HOSTILE, HOSTILE_RUN, NAN_CASE

pytest.importorskip("plotly", reason="the HTML report needs the `report` extra (pip install -e '.[report]')")


class Tables(HTMLParser):
    """Each table's rows of cell texts, under the id of the section that holds it."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[list[list[str]]]] = {}
        self.section = ""
        self.cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag == "section":
            self.section = dict(attrs).get("id") or self.section
        elif tag == "table":
            self.tables.setdefault(self.section, []).append([])
        elif tag == "tr":
            self.tables[self.section][-1].append([])
        elif tag in ("td", "th"):
            self.cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self.cell is not None:
            self.tables[self.section][-1][-1].append(" ".join("".join(self.cell).split()))
            self.cell = None

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)


def tables(page: Path) -> dict[str, list[list[list[str]]]]:
    parser = Tables()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser.tables


def records(table: list[list[str]]) -> dict[str, dict[str, str]]:
    return {row[0]: dict(zip(table[0], row)) for row in table[1:]}


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    return report_store.build(tmp_path_factory.mktemp("store") / "k.db")


@pytest.fixture(scope="module")
def site(db, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run([sys.executable, "-m", "kernelgenbench.cli", "report", "--format", "html", "--out",
                           str(out), "--db", str(db)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return out


def pages(site: Path) -> list[Path]:
    return [site / "index.html", *sorted((site / "ops").glob("*.html"))]


def test_the_site_is_one_folder_every_link_and_asset_of_which_is_in_it(site):
    assert {p.name for p in (site / "ops").iterdir()} == {
        "aten--add.html", "aten--mul.html", "aten--sort.html", "vllm--rms_norm.html",
        "cublas--cublasSaxpy_v2.html"}
    assert (site / "assets" / "plotly.min.js").stat().st_size > 1_000_000  # the library itself, offline
    for page in pages(site):
        refs = re.findall(r'(?:src|href)="([^"]+)"', page.read_text(encoding="utf-8"))
        assert refs
        for ref in refs:
            assert "//" not in ref and not ref.startswith("/"), f"{page.name}: {ref} leaves the folder"
            target = ref.split("#")[0] or page.name
            assert (page.parent / target).is_file(), f"{page.name} links to a missing {ref}"


def test_leaderboard_figures_are_the_metrics(site):
    board = records(tables(site / "index.html")["leaderboard"][0])
    a = board["gpu-a"]
    assert a["solved"] == "3 of 5" and a["accuracy [95% CI]"].startswith("60.0%")
    geomean = math.exp((math.log(4.0) + math.log(0.5) + math.log(1.5)) / 3)  # add: sqrt(2 * 8)
    assert a["speed-up geomean [95% CI]"].startswith(f"{geomean:.3f}x [")
    assert a["fast_1"] == "40.0%"  # add and rms_norm of 5 operators
    assert a["tokens per solved op"] == str(round((3 * 1500 + 2 * 2) / 3))
    assert a["cost (USD)"] == f"{(3002 * 1.0 + 1502 * 4.0) / 1e6:.4f}"
    assert board["interp"]["speed-up geomean [95% CI]"] == "not timed"
    assert board["interp"]["fast_1"] == "not timed" and board["interp"]["cost (USD)"] == "—"
    aten = records(tables(site / "index.html")["sources"][0])
    assert aten["gpu-a"]["operators"] == "3" and aten["gpu-a"]["clean passes"] == "2"  # add, mul; not sort
    assert aten["gpu-a"]["accuracy"] == "66.7%"


def test_untrusted_text_is_escaped_and_no_script_but_the_sites_own_can_run(site):
    for page in pages(site):
        html = page.read_text(encoding="utf-8")
        assert HOSTILE not in html and HOSTILE_RUN not in html, page.name
        assert "Content-Security-Policy" in html and "script-src 'self'" in html
        for tag in re.findall(r"<script\b[^>]*>", html, flags=re.I):
            assert re.fullmatch(r'<script src="(\.\./)?assets/(plotly\.min|site)\.js">', tag) \
                or tag.startswith('<script type="application/json"'), f"{page.name}: {tag}"
        for payload in re.findall(r'<script type="application/json"[^>]*>(.*?)</script>', html, flags=re.S):
            assert "<" not in payload and ">" not in payload
    sort = (site / "ops" / "aten--sort.html").read_text(encoding="utf-8")
    assert sort.count("&lt;/script&gt;&lt;script&gt;") >= 3  # the reason, the failing case, the reply
    assert "window" in sort and "__pwned" in sort  # shown as text in the highlighted source


def test_operator_pages_show_verdict_failing_case_error_figures_timing_and_source(site):
    sort = site / "ops" / "aten--sort.html"
    text = sort.read_text(encoding="utf-8")
    assert NAN_CASE in text and "not timed" in text
    failing = [t for t in tables(sort)[""] if t[0][0] == "case"]
    assert failing[1][1][3:8] == ["4.44e-16", "3.8e-16", "4.44e-16", "3.79e-16", "1.17"]
    add = tables(site / "ops" / "aten--add.html")[""]
    timing = [records(t) for t in add if t[0][0] == "perf case"][0]
    assert [r["speed-up"] for r in timing.values()] == ["2.000x", "8.000x"]
    assert timing["add: x=float32[1024]"]["baseline median (µs)"] == "100.00"
    assert timing["add: x=float32[1024]"]["candidate median (µs)"] == "50.00"


def test_difficulty_ranks_the_unsolved_first_and_the_taxonomy_names_the_semantics(site):
    index = tables(site / "index.html")
    difficulty = index["difficulty"][0]
    assert [r[0] for r in difficulty[1:3]] == ["aten::sort", "cublas::cublasSaxpy_v2"]
    add = records(difficulty)["aten::add"]
    assert add["solved by"] == "3 of 3" and add["median speed-up"] == "2.500x"  # median of 4 and 1
    by_source, by_family, semantics = index["failures"]
    assert records(by_source)["aten"]["wrong_result"] == "3"
    assert {r[0] for r in semantics[1:]} == {"NaN/Inf positions", "empty tensors", "output dtype", "0-d tensors"}


@pytest.mark.parametrize("reason, case, semantic", [
    (report_store.NAN_REASON, NAN_CASE, "NaN/Inf positions"),
    (report_store.DTYPE_REASON, "mul: self=float16[8, 8]", "output dtype"),
    ("output 0 is torch.float16[18, 12], expected torch.float16[1, 18, 12]", "im2col.out: self=float16[3, 7, 6]",
     "output shape"),
    ("output 0 has strides [1, 8], expected [8, 1] (the memory format is part of the contract)",
     "clone: self=float32[8, 8] transposed", "output strides (memory format)"),
    ("IndexError: list index out of range", report_store.EMPTY_CASE, "empty tensors"),
    (report_store.ERROR_REASON, "softplus_backward.grad_input: grad_output=float32[], self=float32[]",
     "0-d tensors"),
    (report_store.ERROR_REASON, "hadacore_transform: x=bfloat16[5, 4] strided, inplace=False", "strided inputs"),
    (report_store.ERROR_REASON, "rms_norm: x=float32[7, 33]", "numerical accuracy"),
    ("the candidate modified its input `x`, which this operator only reads", "silu: x=float32[9]", "input written"),
])
def test_the_failing_semantic_is_read_off_the_reason_and_the_case(reason, case, semantic):
    row = Row("r", "aten::x", "aten", 0, 0, "wrong_result", reason, case, None, 1, 1.0)
    assert failure_semantic(row) == semantic


def test_markdown_report_carries_difficulty_and_failure_taxonomy(db):
    single = api.report(db, "gpu-a", "md")
    assert "## By operator" in single and "## Failure taxonomy" in single
    assert "| NaN/Inf positions | 1 | 1 | aten::sort |" in single
    compared = api.report(db, ["gpu-a", "interp"], "md")
    difficulty = compared.split("## Difficulty")[1].split("## Failure taxonomy")[0]
    ranked = [line.split(" | ")[0].lstrip("| ") for line in difficulty.splitlines() if line.startswith("| ")]
    # unsolved first; then, all solved, by fewer runs (rms_norm: 1), then slower median speed-up (mul 0.5x)
    assert ranked[1:] == ["aten::sort", "cublas::cublasSaxpy_v2", "vllm::rms_norm", "aten::mul", "aten::add"]


def test_an_interpreter_run_says_not_timed_instead_of_drawing_speed(db, tmp_path):
    index = api.report_html(db, tmp_path / "site", ["interp"])
    html = index.read_text(encoding="utf-8")
    assert 'id="plot-statuses"' in html
    assert 'id="plot-accuracy-speedup"' not in html and 'id="plot-heatmap"' not in html
    assert "Not timed (no speed-up to show): interp." in html
    assert records(tables(index)["leaderboard"][0])["interp"]["speed-up geomean [95% CI]"] == "not timed"


@pytest.mark.parametrize("args, message", [
    (["--format", "html"], "--format html writes a folder: give it with --out DIR"),
    (["--format", "html", "--out", "{tmp}/site", "--runs", "gpu-a,nope"], "no run 'nope' in"),
])
def test_report_mistakes_are_one_line(db, tmp_path, args, message):
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    done = subprocess.run([sys.executable, "-m", "kernelgenbench.cli", "report", "--db", str(db), *args],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr
