"""The site's plots as Plotly figures, each with the note that says what it leaves out.

A plot whose data does not exist (speed on runs that were not timed, cost of runs no model
generated) is not drawn empty: it becomes a note that says why."""

from __future__ import annotations

import math
from dataclasses import dataclass

import plotly.graph_objects as go

from ...metrics import fast_p, operator_speedups
from ..tables import STATUS_ORDER, _speed_rows
from ..taxonomy import difficulty
from .model import RunView, SiteData

STATUS_COLOURS = {
    "pass": "#2e7d32", "wrong_result": "#ef6c00", "compile_error": "#8e24aa", "runtime_error": "#c62828",
    "timeout": "#6d4c41", "crash": "#37474f", "hack_static": "#ad1457", "hack_ghost": "#d81b60",
    "hack_trace": "#ec407a", "hack_profile": "#f06292", "hack_timing": "#f48fb1", "hack_copied": "#880e4f",
    "infra_error": "#9e9e9e",
    "no_code": "#bdbdbd", "pending": "#e0e0e0",
}
P_GRID = [i / 50 for i in range(151)]  # fast_p for p from 0 to 3
FONT = {"family": "system-ui, -apple-system, 'Segoe UI', sans-serif", "size": 12}


@dataclass(frozen=True)
class Plot:
    """One plot of the page: its figure (None when there is nothing to draw) and what it leaves out."""

    id: str
    title: str
    figure: go.Figure | None
    note: str


def _layout(fig: go.Figure, **kw: object) -> go.Figure:
    defaults: dict[str, object] = {"margin": {"l": 60, "r": 20, "t": 10, "b": 50},
                                   "legend": {"orientation": "h", "y": -0.2}}
    fig.update_layout(template="plotly_white", font=FONT, **(defaults | kw))
    return fig


def _not_timed(runs: list[RunView]) -> str:
    names = [v.name for v in runs if not v.timed]
    return f"Not timed (no speed-up to show): {', '.join(names)}." if names else ""


def accuracy_vs_speedup(runs: list[RunView]) -> Plot:
    fig = go.Figure()
    for v in runs:
        speed = v.all.speed
        if speed is None or speed.speedup is None:
            continue
        acc = 100 * v.all.summary.accuracy
        lo, hi = speed.ci or (speed.speedup.geomean, speed.speedup.geomean)
        alo, ahi = v.accuracy_ci or (v.all.summary.accuracy, v.all.summary.accuracy)
        fig.add_trace(go.Scatter(
            x=[speed.speedup.geomean], y=[acc], name=v.name, mode="markers", marker={"size": 12},
            error_x={"type": "data", "symmetric": False, "array": [hi - speed.speedup.geomean],
                     "arrayminus": [speed.speedup.geomean - lo]},
            error_y={"type": "data", "symmetric": False, "array": [100 * ahi - acc], "arrayminus": [acc - 100 * alo]},
            hovertemplate="%{fullData.name}<br>speed-up geomean %{x:.3f}x<br>accuracy %{y:.1f}%<extra></extra>"))
    ticks = [2.0 ** k for k in range(-6, 7)]
    _layout(fig, xaxis={"title": "speed-up geomean over passed operators (log scale)", "type": "log",
                        "tickvals": ticks, "ticktext": [_times(t) for t in ticks]},
            yaxis={"title": "accuracy (%)", "rangemode": "tozero"})
    return Plot("accuracy-speedup", "Accuracy vs speed-up (95% bootstrap CIs)", fig if fig.data else None,
                _not_timed(runs))


def fast_p_curves(runs: list[RunView]) -> Plot:
    fig = go.Figure()
    for v in runs:
        if not v.timed:
            continue
        speeds = operator_speedups(_speed_rows(list(v.rows)))
        fig.add_trace(go.Scatter(x=P_GRID, y=[100 * fast_p(speeds, p) for p in P_GRID], name=v.name,
                                 mode="lines", line={"shape": "hv"},
                                 hovertemplate="%{fullData.name}: fast_%{x:.2f} = %{y:.1f}%<extra></extra>"))
    fig.add_vline(x=1.0, line={"dash": "dot", "color": "#888"})
    _layout(fig, xaxis={"title": "p (speed-up threshold)", "range": [0, 3]},
            yaxis={"title": "fast_p (%)", "rangemode": "tozero"})
    return Plot("fast-p", "fast_p curves: operators passed and faster than p (%)", fig if fig.data else None,
                _not_timed(runs))


def speedup_heatmap(data: SiteData, links: dict[str, str]) -> Plot:
    """Operators x runs, coloured by log2 of the operator's speed-up (1x white); blank: not passed or timed."""
    runs = [v for v in data.runs if v.timed]
    speeds = {v.name: operator_speedups(_speed_rows(list(v.rows))) for v in runs}
    ranked = [d.op for d in difficulty({v.name: list(v.rows) for v in runs})]
    ops = [op for op in ranked if any(speeds[v.name].get(op) is not None for v in runs)]
    if not ops:
        return Plot("heatmap", "Speed-up per operator", None, _not_timed(list(data.runs)) or "No operator was timed.")
    z = [[_log2(speeds[v.name].get(op)) for v in runs] for op in ops]
    text = [["" if (s := speeds[v.name].get(op)) is None else f"{s:.2f}x" for v in runs] for op in ops]
    fig = go.Figure(go.Heatmap(
        z=z, x=[v.name for v in runs], y=ops, text=text, texttemplate="%{text}", colorscale="RdBu", zmid=0,
        zmin=-3, zmax=3, xgap=1, ygap=1, customdata=[[links[op]] * len(runs) for op in ops],
        colorbar={"title": "speed-up", "tickvals": [-3, -2, -1, 0, 1, 2, 3],
                  "ticktext": [_times(2.0 ** k) for k in range(-3, 4)]},
        hovertemplate="%{y} in %{x}: %{text}<extra></extra>"))
    _layout(fig, height=max(300, 22 * len(ops) + 120), yaxis={"autorange": "reversed", "automargin": True},
            xaxis={"side": "top"}, margin={"l": 10, "r": 10, "t": 60, "b": 10})
    note = ("Hardest operators first; blank: not passed or not timed in that run. Click a cell for the operator's "
            "page. " + _not_timed(list(data.runs)))
    return Plot("heatmap", "Speed-up per operator (over the native baseline)", fig, note.strip())


def _times(x: float) -> str:
    return f"{x:g}x" if x >= 1 else f"1/{1 / x:g}x"


def _log2(speedup: float | None) -> float | None:
    return None if speedup is None else math.log2(speedup)


def status_bars(runs: list[RunView]) -> Plot:
    present = [s for s in STATUS_ORDER if any(s in v.all.summary.statuses for v in runs)]
    names = [v.name for v in runs]
    fig = go.Figure([go.Bar(y=names, x=[v.all.summary.statuses.get(s, 0) for v in runs], name=s, orientation="h",
                            marker={"color": STATUS_COLOURS.get(s, "#777")},
                            hovertemplate="%{y}: %{x} " + s + "<extra></extra>") for s in present])
    _layout(fig, barmode="stack", showlegend=True, height=max(260, 40 * len(runs) + 140), xaxis={"title": "attempts"},
            yaxis={"autorange": "reversed", "automargin": True})
    return Plot("statuses", "Status breakdown", fig if runs else None, "")


def cost_vs_accuracy(runs: list[RunView]) -> Plot:
    generated = [v for v in runs if v.generated and v.cost.generated > v.cost.unknown]
    priced = all(v.cost.usd is not None for v in generated)
    fig = go.Figure()
    for v in generated:
        x = v.cost.usd if priced else v.cost.tokens_in + v.cost.tokens_out
        fig.add_trace(go.Scatter(x=[x], y=[100 * v.all.summary.accuracy], name=v.name, mode="markers",
                                 marker={"size": 12},
                                 hovertemplate="%{fullData.name}: %{x} → %{y:.1f}%<extra></extra>"))
    _layout(fig, xaxis={"title": "cost (USD)" if priced else "tokens in + out", "rangemode": "tozero"},
            yaxis={"title": "accuracy (%)", "rangemode": "tozero"})
    left_out = [v.name for v in runs if v not in generated]
    note = (f"No generation cost recorded (candidates not generated by a model, or tokens not reported): "
            f"{', '.join(left_out)}." if left_out else "")
    return Plot("cost", "Cost vs accuracy", fig if fig.data else None, note)


def all_plots(data: SiteData, links: dict[str, str]) -> list[Plot]:
    runs = list(data.runs)
    return [accuracy_vs_speedup(runs), fast_p_curves(runs), status_bars(runs), cost_vs_accuracy(runs),
            speedup_heatmap(data, links)]
