"""Writes the static site: index.html, one page per operator, and the assets beside them.

Everything from the store (candidate source, model replies, reasons, run names) is untrusted: the
templates escape it, plot data travels as JSON in non-executable script elements with `<`, `>`
and `&` escaped, and the pages' Content-Security-Policy runs only the site's own script files."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import plotly
from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer

from ...verify.verdict import Status
from ..gap import MIN_PAIRS
from ..tables import BASELINE_NAMES, STATUS_ORDER
from ..taxonomy import difficulty, failing_semantics, family_of, summaries_by
from .model import AttemptView, SiteData
from .plots import STATUS_COLOURS, Plot, all_plots

HERE = Path(__file__).parent
CODE_STYLE = HtmlFormatter(cssclass="source", linenos="table")
FAILING_CASES_SHOWN = 20


def page_name(op: str) -> str:
    """The operator page's file name: the id with `::` as `--` and anything else odd as `-`."""
    return re.sub(r"[^A-Za-z0-9_.-]", "-", op.replace("::", "--")) + ".html"


def json_for_script(value: Any) -> Markup:
    """JSON that cannot end its <script> element or open another: `<`, `>`, `&` as \\u escapes."""
    text = value if isinstance(value, str) else json.dumps(value)
    for ch in "<>&\u2028\u2029":
        text = text.replace(ch, f"\\u{ord(ch):04x}")
    return Markup(text)


def _speedup(x: float | None, missing: str = "not timed") -> str:
    return missing if x is None else f"{x:.3f}x"


def _pct(x: float | None) -> str:
    return "" if x is None else f"{100 * x:.1f}%"


def _ci(ci: tuple[float, float] | None, percent: bool = False) -> str:
    if ci is None:
        return ""
    lo, hi = ci
    return f"[{100 * lo:.0f}, {100 * hi:.0f}]" if percent else f"[{lo:.3f}, {hi:.3f}]"


def _sci(x: float | None) -> str:
    return "" if x is None else f"{x:.3g}"


def _code(source: str) -> Markup:
    return Markup(highlight(source, PythonLexer(), CODE_STYLE))


def _environment() -> Environment:
    env = Environment(loader=FileSystemLoader(HERE / "templates"), autoescape=True, undefined=StrictUndefined,
                      trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    env.filters.update(speedup=_speedup, pct=_pct, ci=_ci, sci=_sci, code=_code, page=page_name,
                       json_script=json_for_script)
    env.globals.update(status_colours=STATUS_COLOURS, baseline_names=BASELINE_NAMES, PASS=Status.PASS.value,
                       shown=FAILING_CASES_SHOWN)
    return env


def _plot_json(plot: Plot) -> Markup | None:
    return None if plot.figure is None else json_for_script(plot.figure.to_json())


def _failing_cases(attempt: AttemptView) -> list[Any]:
    if attempt.verdict is None:
        return []
    return [c for c in attempt.verdict.cases if c.status is not Status.PASS]


def build_site(data: SiteData, out: Path, *, title: str) -> Path:
    """Write the site for `data` into `out` (created if needed); returns the index page's path."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "ops").mkdir(exist_ok=True)
    assets = out / "assets"
    assets.mkdir(exist_ok=True)
    for asset in (HERE / "assets").iterdir():
        shutil.copyfile(asset, assets / asset.name)
    shutil.copyfile(Path(plotly.__file__).parent / "package_data" / "plotly.min.js", assets / "plotly.min.js")
    (assets / "code.css").write_text(CODE_STYLE.get_style_defs(".source"), encoding="utf-8")

    env = _environment()
    links = {op: f"ops/{page_name(op)}" for op in data.attempts}
    plots = all_plots(data, links)
    rows = data.all_rows
    sources = sorted({sv.source for v in data.runs for sv in v.sources[:-1]}, key=("aten", "vllm", "cublas").index)
    present = [s for s in STATUS_ORDER if any(s in v.all.summary.statuses for v in data.runs)]
    index = env.get_template("index.html.j2").render(
        title=title, root="", data=data, runs=data.runs, sources=sources, statuses=present,
        plots=[(p, _plot_json(p)) for p in plots], links=links,
        difficulty=difficulty(data.rows_by_run),
        by_source=summaries_by(rows, lambda r: r.source),
        by_family=summaries_by(rows, lambda r: family_of(r.op)),
        semantics=failing_semantics(rows), min_pairs=MIN_PAIRS)
    target = out / "index.html"
    target.write_text(index, encoding="utf-8")
    page = env.get_template("operator.html.j2")
    for op, attempts in data.attempts.items():
        (out / links[op]).write_text(page.render(
            title=op, root="../", op=op, family=family_of(op),
            items=[(a, _failing_cases(a)) for a in attempts]), encoding="utf-8")
    return target
