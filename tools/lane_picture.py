"""Lane-activity pictures of Gen9 simulator traces (`reconverge trace`, `run --target gen --trace`),
drawn with matplotlib: PNG, SVG or PDF by the output file's name.

Why matplotlib and not our own pixels: real fonts (block names read as written, any character),
vector output (SVG, PDF) that stays sharp when zoomed into a long trace, text kept as text in the SVG
(a test, or a person, can search it), and axes, ticks and legends laid out by a library built for it.
Only the object API is used (matplotlib.figure.Figure with the Agg, SVG and PDF canvases): no pyplot
state, no display needed.

What a picture shows, per run (one `--cf` mode; `--compare-cf` draws several side by side on one
shared scale), one panel per hardware thread:
- x: the thread's lanes, numbered; y: the workgroup's scheduling rounds (or executed instructions),
  downwards. A lane cell takes the colour of the instruction's kind when the lane ran it, light grey
  when it sat it out, white where the thread ran nothing (finished, or waiting at a barrier).
- left of the lanes, the address bar (the instruction's address: darker = later in the program, so
  loops look like saw teeth) and a strip with the instruction's kind;
- further left, block labels: one where the thread enters a block (isa.gen9.sim_trace.block_entries:
  not once per loop iteration), placed without overlap (place_labels). A block's first entry is always
  labelled; a later entry when there is room near its row, else only its tick mark shows.
- a title (kernel, SIMD width, control-flow mode, work-group) and a legend for the colours and the
  address bar.
"""
from __future__ import annotations

import io
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from reconverge.isa.gen9.sim_trace import KINDS, Timeline, block_entries, timeline

if TYPE_CHECKING:
    from matplotlib.figure import Figure

COLOURS = {"alu": "#2ea043", "cf": "#346edb", "send": "#e67e22", "scalar": "#8e44ad", "off": "#e1e1e1"}
KIND_NAMES = {"alu": "ALU", "cf": "control flow", "send": "SEND (memory, end of thread)",
              "scalar": "scalar (WE_all / NoMask)", "off": "lane off"}
FORMATS = {".svg": "svg", ".pdf": "pdf", ".png": "png"}
MAX_ROWS = 6000              # rows drawn per run; a longer trace is cut (and the picture says so)

# sizes in points (1/72 inch)
LABEL_FONT = 7.0
LINE = 9.0                   # the height one block label takes
TICK = 6.5
TITLE_FONT = 10.0
ADDRESS_BAR, KIND_STRIP = 7.0, 4.0
PANEL_GAP, RUN_GAP = 14.0, 26.0
LEADER = 10.0                # the line from a label moved off its row back to the row
MARGIN = 10.0
Y_AXIS = 44.0                # room for the round numbers and their axis title, left of the first panel
PNG_DPI = 110


def picture_format(path: str | None) -> str:
    """The format a file name asks for: .svg and .pdf by name, anything else (and stdout) PNG."""
    return FORMATS.get(os.path.splitext(path or "")[1].lower(), "png")


@dataclass
class Run:
    """One traced run to draw: its trace and, when several runs share a figure, a heading for it."""
    trace: object
    heading: str | None = None


@dataclass
class Drawing:
    """A figure and the block labels placed on it (matplotlib Text objects, for checking their extents)."""
    figure: Figure
    labels: list


def title_of(trace, source: str | None = None, skip: tuple[str, ...] = ()) -> str:
    """What ran, from the trace's `about` (set by the Gen launcher, or by `trace` for a raw program),
    leaving out the `skip` facts (--compare-cf: the mode, which each run's heading says)."""
    about = {k: v for k, v in (getattr(trace, "about", None) or {}).items() if k not in skip}
    parts = []
    if about.get("kernel"):
        parts.append(f"@{about['kernel']}")
    elif source:
        parts.append(os.path.basename(source))
    if about.get("simd"):
        parts.append(f"SIMD{about['simd']}")
    if about.get("cf"):
        parts.append(f"--cf {about['cf']}")
    if about.get("local_size"):
        group = ",".join(str(g) for g in about.get("group") or (0, 0, 0))
        size = "x".join(str(s) for s in about["local_size"])              # type: ignore[union-attr]
        parts.append(f"work-group ({group}) of {size}")
    if about.get("global_size"):
        parts.append("global " + "x".join(str(s) for s in about["global_size"]))   # type: ignore[union-attr]
    if about.get("threads"):
        n = about["threads"]
        parts.append(f"{n} thread{'s' * (n != 1)}")
    return " · ".join(parts) or "lane activity"


def place_labels(wanted: list[float], must: list[bool], height: float, line: float = LINE,
                 max_shift: float | None = None) -> list[float | None]:
    """Tops for labels of height `line` in a column `height` high, none overlapping: label i wants its
    top at wanted[i]. The `must` labels are all placed, in order, as near as they can be (pushed down
    from their wish, then up from the bottom when they run out of room; the column must hold them all);
    each other label goes where it wants or within max_shift of it if that is free, else it is left out
    (None)."""
    max_shift = line * 1.5 if max_shift is None else max_shift
    limit = max(height - line, 0.0)
    place: list[float | None] = [None] * len(wanted)
    order = sorted((i for i in range(len(wanted)) if must[i]), key=lambda i: wanted[i])
    tops: list[float] = []
    for i in order:                              # down from the wishes...
        top = min(max(wanted[i], 0.0), limit)
        tops.append(top if not tops else max(top, tops[-1] + line))
    for k in range(len(tops) - 1, -1, -1):       # ...and back up from the bottom
        tops[k] = min(tops[k], limit if k == len(tops) - 1 else tops[k + 1] - line)
    for i, top in zip(order, tops):
        place[i] = top
    taken = sorted(tops)
    for i in sorted((i for i in range(len(wanted)) if not must[i]), key=lambda i: wanted[i]):
        want = min(max(wanted[i], 0.0), limit)
        for top in sorted({want, *(t + line for t in taken), *(t - line for t in taken)},
                          key=lambda t: abs(t - want)):
            if abs(top - want) > max_shift or top < 0 or top > limit:
                continue
            if all(abs(top - t) >= line - 1e-9 for t in taken):
                place[i] = top
                taken.append(top)
                break
    return place


def _text_width(text: str, size: float, family: str = "DejaVu Sans Mono") -> float:
    from matplotlib.backends.backend_agg import RendererAgg
    from matplotlib.font_manager import FontProperties
    renderer = RendererAgg(1, 1, 72)                       # 72 dpi: pixels are points
    width, _, _ = renderer.get_text_width_height_descent(text, FontProperties(family=family, size=size), False)
    return float(width)


def _cells(line: Timeline, tid: int, rows: int, lanes: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """RGB lane cells (rows x lanes), the kind strip (rows x 1 RGB) and the address bar (rows, NaN: none)."""
    from matplotlib.colors import to_rgb
    rgb = {k: np.array(to_rgb(c)) for k, c in COLOURS.items()}
    cells = np.ones((rows, lanes, 3))
    strip = np.ones((rows, 1, 3))
    address = np.full((rows, 1), np.nan)
    for s in line.steps[tid]:
        if s.row >= rows:
            break
        n = min(s.mask.size, lanes)
        cells[s.row, :n] = rgb["off"]
        cells[s.row, :n][s.mask[:n]] = rgb[s.kind]
        strip[s.row, 0] = rgb[s.kind]
        address[s.row, 0] = s.address
    return cells, strip, address


def draw(runs: list[Run], title: str) -> Drawing:
    """The figure: per run a group of thread panels (lanes across, rounds down, all on one scale), the
    block labels beside each, a title above and the legends below."""
    from matplotlib import colormaps
    from matplotlib.colors import ListedColormap
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    lines = [timeline(run.trace) for run in runs]
    rows = max(1, min(MAX_ROWS, max(line.rows for line in lines)))
    cut = any(line.rows > MAX_ROWS for line in lines)
    lanes = max(line.lanes for line in lines)
    lane_w = 11.0 if lanes <= 16 else 7.0
    entries = [{t: [e for e in block_entries(steps, line.labels) if e.row < rows]
                for t, steps in line.steps.items()} for line in lines]
    label_w = [max([_text_width(name, LABEL_FONT) for name in {e.name for es in ent.values() for e in es}] or [0.0])
               for ent in entries]
    must = max([sum(e.first for e in es) for ent in entries for es in ent.values()] or [0])
    row_pt = 6.0 if rows <= 60 else 4.0 if rows <= 150 else 2.5 if rows <= 400 else 1.2 if rows <= 1500 else 0.5
    height = max(rows * row_pt, must * LINE + LINE, 60.0)
    row_pt = height / rows
    max_address = max(line.max_address for line in lines) or 1

    # horizontal layout, in points from the left edge
    lane_span = lanes * lane_w
    columns = []                   # per run: per thread (label x, label width, bar x, strip x, lanes x)
    x = MARGIN + Y_AXIS
    for r, line in enumerate(lines):
        if r:
            x += RUN_GAP - PANEL_GAP
        panels = []
        for _ in sorted(line.steps):
            lw = label_w[r] + LEADER + 8.0 if label_w[r] else 0.0
            panels.append((x, lw, x + lw, x + lw + ADDRESS_BAR + 1.5, x + lw + ADDRESS_BAR + KIND_STRIP + 4.5))
            x = panels[-1][4] + lane_span + PANEL_GAP
        columns.append(panels)
    width = max(x - PANEL_GAP + MARGIN, 330.0, _text_width(title, TITLE_FONT, "DejaVu Sans") * 1.1 + 2 * MARGIN)
    legend_cols = 5 if width >= 560 else 3 if width >= 380 else 2
    legend_rows = -(-5 // legend_cols)
    top = MARGIN + 16.0 + (14.0 if any(run.heading for run in runs) else 0.0) + 30.0
    bottom = 30.0 + legend_rows * 11.0 + 34.0 + (12.0 if cut else 0.0)
    fig_h = top + height + bottom
    fig = Figure(figsize=(width / 72, fig_h / 72))

    def axes(x0: float, w: float, **kw):
        return fig.add_axes((x0 / width, bottom / fig_h, w / width, height / fig_h), **kw)

    grey = ListedColormap(colormaps["Greys"](np.linspace(0.12, 0.9, 256)))     # never white: white is "no row"
    placed: list = []
    shared = None                  # the first lane axes: every other axes shares its y (the rows)
    y_label = "scheduling round" if all(line.timed for line in lines) else "executed instruction"
    for r, (run, line) in enumerate(zip(runs, lines)):
        for p, tid in enumerate(sorted(line.steps)):
            lx, lw, bx, sx, cx = columns[r][p]
            cells, strip, address = _cells(line, tid, rows, lanes)
            ax = axes(cx, lane_span, sharey=shared)
            _lanes(ax, cells, tid, lanes, rows)
            shared = shared or ax
            bar = axes(bx, ADDRESS_BAR, sharey=shared)
            bar.imshow(address, aspect="auto", interpolation="nearest", cmap=grey, vmin=0, vmax=max_address,
                       extent=(0, 1, rows - 0.5, -0.5))
            kinds = axes(sx, KIND_STRIP, sharey=shared)
            kinds.imshow(strip, aspect="auto", interpolation="nearest", extent=(0, 1, rows - 0.5, -0.5))
            left = axes(lx, lw or 1.0, sharey=shared, frame_on=False)
            for a in (bar, kinds, left) if r or p else (bar, kinds):
                a.set_axis_off()
            if not (r or p):                               # the rows' numbers, once, left of everything
                left.yaxis.set_major_locator(MaxNLocator(nbins=max(2, int(height // 36)), integer=True))
                left.tick_params(axis="y", labelsize=TICK, length=2, pad=1)
                left.set_ylabel(y_label, fontsize=TICK + 0.5)
                left.xaxis.set_visible(False)
            left.set_xlim(0, 1)
            placed += _draw_labels(left, entries[r][tid], row_pt, height, lw, f"block-label-{r}-{tid}")
        if run.heading:
            x0, x1 = columns[r][0][0], columns[r][-1][4] + lane_span
            fig.text((x0 + x1) / 2 / width, (bottom + height + 31.0) / fig_h, run.heading, ha="center",
                     va="bottom", fontsize=TITLE_FONT - 1, fontweight="bold")
    fig.text(0.5, 1 - MARGIN / fig_h, title, ha="center", va="top", fontsize=TITLE_FONT, fontweight="bold",
             gid="title")
    _legends(fig, width, fig_h, legend_cols, grey, max_address)
    if cut:
        fig.text(MARGIN / width, 2.0 / fig_h, f"only the first {MAX_ROWS} rows are drawn", fontsize=TICK,
                 ha="left", va="bottom", style="italic")
    return Drawing(fig, placed)


def _lanes(ax, cells: np.ndarray, tid: int, lanes: int, rows: int) -> None:
    """One thread's lane cells, the lanes numbered along the top (every 4th of 32), a thin white gap
    between lanes and a grey line every 8 to count by."""
    from matplotlib.ticker import FixedLocator
    ax.imshow(cells, aspect="auto", interpolation="nearest", extent=(-0.5, lanes - 0.5, rows - 0.5, -0.5))
    for k in range(1, lanes):
        ax.axvline(k - 0.5, color="white" if k % 8 else "#969696", linewidth=0.5 if k % 8 else 0.8)
    ax.set_xlim(-0.5, lanes - 0.5)
    ax.set_ylim(rows - 0.5, -0.5)
    ax.xaxis.tick_top()
    ax.xaxis.set_major_locator(FixedLocator(list(range(0, lanes, 1 if lanes <= 16 else 4))))
    ax.tick_params(axis="x", labelsize=TICK, length=2, pad=1)
    ax.tick_params(axis="y", left=False, labelleft=False)
    ax.set_title(f"thread {tid}: lanes", fontsize=TICK + 1, pad=12)
    for spine in ax.spines.values():
        spine.set_linewidth(0.5)


def _legends(fig, width: float, fig_h: float, columns: int, grey, max_address: int) -> None:
    """Below the panels: the instruction kinds' colours, and the address bar's scale in bytes."""
    from matplotlib.patches import Patch
    from matplotlib.ticker import FixedLocator, FuncFormatter
    handles = [Patch(facecolor=COLOURS[k], edgecolor="none", label=KIND_NAMES[k]) for k in (*KINDS, "off")]
    fig.legend(handles=handles, loc="lower left", bbox_to_anchor=(MARGIN / width, 40.0 / fig_h),
               ncol=columns, fontsize=TICK + 0.5, frameon=False, handlelength=1.2, handleheight=0.9,
               columnspacing=1.2, borderaxespad=0, borderpad=0,
               title="instruction kind (lane cells and the strip beside the address bar)",
               title_fontsize=TICK + 0.5, alignment="left")
    scale = fig.add_axes((MARGIN / width, 14.0 / fig_h, min(200.0, width - 2 * MARGIN) / width, 6.0 / fig_h))
    scale.imshow(np.linspace(0, max_address, 256)[None], aspect="auto", cmap=grey, vmin=0, vmax=max_address,
                 extent=(0, max_address, 0, 1))
    scale.set_yticks([])
    scale.xaxis.set_major_locator(FixedLocator([0, max_address]))
    scale.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{int(v):#x}"))
    scale.tick_params(axis="x", labelsize=TICK, length=2, pad=1)
    scale.set_title("address bar: the instruction's byte address (darker = later in the program)",
                    fontsize=TICK + 0.5, loc="left", pad=2)


def _draw_labels(ax, entries: list, row_pt: float, height: float, width: float, gid: str) -> list:
    """Block labels in a label column (ax: x 0..1 across `width` points, y the rows): right-aligned
    text, a tick at every entry's row, a leader line where the text had to move off its row."""
    if not entries:
        return []
    from matplotlib.collections import LineCollection
    wanted = [(e.row + 0.5) * row_pt - LINE / 2 for e in entries]
    tops = place_labels(wanted, [e.first for e in entries], height)
    lead = LEADER / width                                # the leader's share of the column
    texts, ticks, leaders = [], [], []
    for k, (e, top) in enumerate(zip(entries, tops)):
        ticks.append([(1 - 3.0 / width, e.row), (1, e.row)])
        if top is None:
            continue
        y = (top + LINE / 2) / row_pt - 0.5              # the text's centre, in rows
        leaders.append([(1 - lead + 1.5 / width, y), (1 - 3.0 / width, e.row)])
        texts.append(ax.text(1 - lead, y, e.name, ha="right", va="center", fontsize=LABEL_FONT,
                             family="DejaVu Sans Mono", gid=f"{gid}-{k}"))
    ax.add_collection(LineCollection(ticks, colors="#555555", linewidths=0.6, clip_on=False), autolim=False)
    ax.add_collection(LineCollection(leaders, colors="#999999", linewidths=0.4, clip_on=False), autolim=False)
    return texts


def render(drawing: Drawing, fmt: str) -> bytes:
    """The figure as PNG, SVG (text kept as <text>) or PDF bytes, without dates, so equal runs give
    equal files."""
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.backends.backend_pdf import FigureCanvasPdf
    from matplotlib.backends.backend_svg import FigureCanvasSVG
    canvas = {"png": FigureCanvasAgg, "svg": FigureCanvasSVG, "pdf": FigureCanvasPdf}[fmt]
    metadata = {"png": {"Software": None}, "svg": {"Date": None}, "pdf": {"CreationDate": None}}[fmt]
    buffer = io.BytesIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "reconverge"}):
        canvas(drawing.figure).print_figure(buffer, format=fmt, dpi=PNG_DPI, metadata=metadata)
    return buffer.getvalue()


def picture(runs: list[Run], path: str | None, title: str) -> bytes:
    """The lane picture of `runs` in the format `path` names (see picture_format)."""
    return render(draw(runs, title), picture_format(path))


def trace_picture(trace, path: str | None, source: str | None = None) -> bytes:
    """One run's picture, titled from its trace (see title_of)."""
    return picture([Run(trace)], path, title_of(trace, source))
