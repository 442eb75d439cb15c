"""Lane pictures (tools.lane_picture) read back as a person would: the SVG's text (title, lane numbers,
every block label, none overlapping), the formats by file name, the label layout, `trace --compare-cf`."""
import os
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from reconverge.isa.gen9.sim_trace import Trace, TraceEvent
from reconverge.lowering.errors import CompileError
from reconverge.tools.lane_picture import Run, draw, picture, picture_format, place_labels, trace_picture
from reconverge.tools.usage import UsageError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SVG = "{http://www.w3.org/2000/svg}"
MAGIC = {"png": b"\x89PNG\r\n\x1a\n", "pdf": b"%PDF-", "svg": b"<?xml"}

KERNEL = """
kernel void k(global int *a, int n) {
  int i = get_global_id(0);
  int s = 0;
  for (int j = 0; j < i; j++) { if (j & 1) s += j; else s -= 1; }
  if (i < n) a[i] = s; else a[i] = 7;
}
"""


def crowded_trace(blocks=12, iterations=3):
    """One thread running `blocks` one-instruction blocks in a row (every row a new block: the labels
    must move apart), then looping over the last two blocks."""
    trace = Trace()
    trace.labels = {16 * b: f"block{b}_{'x' * (b % 3)}" for b in range(blocks)}
    trace.about.update(kernel="crowd", simd=8, cf="structured", local_size=(8,), group=(0,), global_size=(8,))
    addresses = [16 * b for b in range(blocks)] + [16 * (blocks - 2), 16 * (blocks - 1)] * iterations
    for t, a in enumerate(addresses):
        mask = np.arange(8) < (8 - t % 8)
        trace.events.append(TraceEvent(0, a, "cmp" if t % 2 else "add", mask, 8, time=t))
    return trace


def svg_texts(data: bytes) -> list[tuple[str, str, float, float]]:
    """(group id, text, x, y) of every <text> element, the id being the nearest enclosing <g>'s."""
    out = []

    def walk(node, gid):
        gid = node.get("id", gid) if node.tag == f"{SVG}g" else gid
        if node.tag == f"{SVG}text":
            out.append((gid, "".join(node.itertext()), float(node.get("x")), float(node.get("y"))))
        for child in node:
            walk(child, gid)
    walk(ET.fromstring(data), "")
    return out


def assert_no_overlap(drawing):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.text import Text
    renderer = FigureCanvasAgg(drawing.figure).get_renderer()
    labels = [t.get_window_extent(renderer) for t in drawing.labels]
    others = [t.get_window_extent(renderer) for t in drawing.figure.findobj(Text)
              if t.get_text() and t.get_visible() and t not in drawing.labels]

    def overlap(a, b):
        return min(a.x1, b.x1) - max(a.x0, b.x0) > 0.5 and min(a.y1, b.y1) - max(a.y0, b.y0) > 0.5
    for i, a in enumerate(labels):
        assert not any(overlap(a, b) for b in labels[i + 1:]), drawing.labels[i].get_text()
        assert not any(overlap(a, b) for b in others), drawing.labels[i].get_text()


def test_svg_has_the_title_lane_numbers_and_every_block_label_once_without_overlap():
    trace = crowded_trace()
    data = trace_picture(trace, "t.svg")
    texts = svg_texts(data)
    words = [t for _, t, _, _ in texts]
    assert "@crowd · SIMD8 · --cf structured · work-group (0) of 8 · global 8" in words
    assert {str(lane) for lane in range(8)} <= set(words)
    labels = [(gid, t, y) for gid, t, _, y in texts if gid.startswith("block-label-")]
    # each block once: the loop over the last two blocks adds no label per iteration
    assert sorted(t for _, t, _ in labels) == sorted(trace.labels.values())
    ys = sorted(y for _, _, y in labels)
    assert all(b - a >= 7.0 for a, b in zip(ys, ys[1:])), ys       # 7 px font: no two lines on each other
    assert_no_overlap(draw([Run(trace)], "t"))


def test_formats_follow_the_file_name_and_equal_runs_give_equal_files():
    trace = crowded_trace(4, 1)
    for name, fmt in (("t.svg", "svg"), ("T.PDF", "pdf"), ("t.png", "png"), ("t.out", "png"), ("-", "png")):
        assert picture_format(name) == fmt
    for name in ("T.PDF", "t.png"):
        assert picture([Run(trace)], name, "x").startswith(MAGIC[picture_format(name)])
    svg = trace_picture(trace, "a.svg")
    assert svg.startswith(MAGIC["svg"]) and svg == trace_picture(trace, "b.svg")    # no dates, fixed ids


@pytest.mark.parametrize("wanted,must,height", [
    ([0, 1, 2, 3, 4], [True] * 5, 100),                  # all want the top: pushed down
    ([90, 91, 92, 93], [True] * 4, 100),                 # all want the bottom: pushed back up
    ([0, 50, 5, 52, 8, 99], [True, True, False, False, False, True], 100),
])
def test_place_labels_never_overlaps_and_places_every_must_label(wanted, must, height):
    tops = place_labels(wanted, must, height, line=9)
    assert all(t is not None for t, m in zip(tops, must) if m)
    placed = sorted(t for t in tops if t is not None)
    assert all(b - a >= 9 - 1e-9 for a, b in zip(placed, placed[1:]))
    assert all(0 <= t <= height - 9 for t in placed)
    for t, w, m in zip(tops, wanted, must):
        if t is not None and not m:
            assert abs(t - w) <= 9 * 1.5                  # an optional label stays near its row


def test_place_labels_keeps_labels_on_their_rows_when_there_is_room():
    assert place_labels([10, 40, 70], [True, False, True], 100, line=9) == [10, 40, 70]


def _cli(*argv):
    from reconverge.tools.cli import main
    return main([str(a) for a in argv])


@pytest.fixture
def kernel(tmp_path):
    path = tmp_path / "k.cl"
    path.write_text(KERNEL)
    return path


LAUNCH = ["--global", "8", "--arg", "a=zeros:8:int32", "--arg", "n=5", "--simd", "8", "-O0"]


def test_compare_cf_draws_each_mode_side_by_side(tmp_path, kernel):
    out = tmp_path / "modes.svg"
    assert _cli("trace", kernel, *LAUNCH, "--compare-cf", "structured,blockip", "-o", out) == 0
    words = [t for _, t, _, _ in svg_texts(out.read_bytes())]
    assert "--cf structured" in words and "--cf blockip" in words
    assert "@k · SIMD8 · work-group (0) of 8 · global 8" in words        # the mode: in each heading
    # each mode's own block labels (structured's Gen notes name ifs and loops, blockip's its blocks)
    groups = {gid.rsplit("-", 2)[0] for gid, _, _, _ in svg_texts(out.read_bytes()) if gid.startswith("block-")}
    assert groups == {"block-label-0", "block-label-1"}


def test_a_compiled_kernels_picture_labels_every_block_it_ran(tmp_path, kernel):
    """Every block a thread ran (an instruction address inside it, by the launcher's own labels) has its
    name in the SVG, and nothing else is labelled."""
    from reconverge.isa.gen9.simulator import Trace
    from reconverge.tools.targets import harness
    program = harness.load_program(str(kernel), "-O0")
    trace = Trace()
    harness.run_target("gen", program, "k", [np.zeros(8, np.int32), 5], (8,), (8,),
                       harness.GenRunOptions(8, "structured", trace))
    starts = sorted(trace.labels) + [1 << 62]
    ran = {trace.labels[a] for a, b in zip(starts, starts[1:]) for e in trace.events if a <= e.address < b}
    assert len(ran) >= 5
    data = trace_picture(trace, "t.svg")
    assert {t for gid, t, _, _ in svg_texts(data) if gid.startswith("block-label-")} == ran


def test_run_and_trace_write_svg_and_pdf_by_name(tmp_path, kernel):
    assert _cli("trace", kernel, *LAUNCH, "-o", tmp_path / "t.pdf") == 0
    assert (tmp_path / "t.pdf").read_bytes().startswith(MAGIC["pdf"])
    assert _cli("run", kernel, *LAUNCH, "--target", "gen", "--out", tmp_path / "res", "--trace", tmp_path / "r.svg") == 0
    words = [t for _, t, _, _ in svg_texts((tmp_path / "r.svg").read_bytes())]
    assert any(w.startswith("@k · SIMD8 · --cf ") for w in words)


@pytest.mark.parametrize("extra,message,error", [
    (["--compare-cf", "structured"], "two or more", UsageError),
    (["--compare-cf", "structured,sideways"], "unknown control-flow mode 'sideways'", UsageError),
    (["--compare-cf", "structured,blockip", "--cf", "hybrid"], "--cf and --compare-cf", UsageError),
])
def test_compare_cf_refusals_leave_no_file(tmp_path, kernel, extra, message, error):
    import argparse

    from reconverge.tools.trace_command import add_commands, run_trace
    parser = argparse.ArgumentParser()
    add_commands(parser.add_subparsers())
    args = parser.parse_args(["trace", str(kernel), *LAUNCH, *extra, "-o", str(tmp_path / "no.svg")])
    with pytest.raises(error, match=message):
        run_trace(args)
    assert not (tmp_path / "no.svg").exists()


def test_a_drawing_failure_leaves_no_file(tmp_path, kernel, monkeypatch):
    import reconverge.tools.lane_picture as lane_picture

    def broken(*_):
        raise CompileError("cannot draw")
    monkeypatch.setattr(lane_picture, "render", broken)
    assert _cli("trace", kernel, *LAUNCH, "-o", tmp_path / "t.png") == 1
    assert not (tmp_path / "t.png").exists()


def test_compare_cf_refuses_to_draw_modes_that_disagree(tmp_path, kernel, monkeypatch):
    """A mode whose buffers differ from the first mode's is a miscompilation: reported, not drawn."""
    from reconverge.tools.targets import harness
    real = harness.run_target

    def wrong_in_blockip(target, program, kernel, values, global_size, local_size, options):
        results = real(target, program, kernel, values, global_size, local_size, options)
        if options.cf == "blockip":
            results[0][3] += 1
        return results
    monkeypatch.setattr(harness, "run_target", wrong_in_blockip)
    argv = ["trace", kernel, *LAUNCH, "--compare-cf", "structured,blockip", "-o", tmp_path / "no.svg"]
    with pytest.raises(CompileError, match=r"--cf blockip differs from --cf structured: buffer 'a' \[3\]"):
        from reconverge.tools.cli import build_parser
        args = build_parser().parse_args([str(a) for a in argv])
        args.func(args)
    assert not (tmp_path / "no.svg").exists()
