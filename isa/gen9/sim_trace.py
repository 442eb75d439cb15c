"""Simulator traces: the record of which lanes ran which instruction (Trace, the simulator's trace hook)
and lane-activity pictures of it, written as PNG with zlib + struct only (no dependency).

Why: divergence is easiest to judge by eye. One panel per thread, side by side; inside a panel
x = lanes and y = executed instructions in order (top to bottom). A lane cell is coloured by the kind
of instruction when the lane ran it, light grey when the lane sat it out. Left of the lanes a grey bar
shows the instruction address (darker = later in the program: loops look like saw teeth) and a strip
shows the instruction kind. The panel header carries the thread number. With a simulator Trace, y is
the workgroup's scheduling round, so a thread waiting at a barrier leaves a blank gap.

Colours: ALU green, control flow blue, SEND orange, WE_all/scalar instructions purple,
lane disabled light grey.
"""
from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass

import numpy as np

from . import opcodes
from .model import Instruction


@dataclass
class TraceEvent:
    thread: int
    address: int
    opcode: str
    mask: np.ndarray          # bool per lane of the thread's SIMD width: channels this instruction ran on
    simd: int
    we_all: bool = False
    time: int = 0             # scheduling round of the workgroup (threads run one instruction per round)
    predicated: bool = False  # a predicate narrowed `mask` (it may then be empty for a reason of its own)


class Trace:
    """A trace hook that records every executed instruction (use as `trace=Trace()`)."""

    def __init__(self):
        self.events: list[TraceEvent] = []
        self.time = 0

    def new_round(self) -> None:
        """Called by the scheduler once per round, so pictures can align threads in time."""
        self.time += 1

    def __call__(self, tid: int, address: int, inst: Instruction, mask: np.ndarray) -> None:
        self.events.append(TraceEvent(tid, address, inst.opcode, mask.copy(), mask.size, inst.mask_ctrl_we_all,
                                      self.time, inst.predicate is not None))



CF_OPS = frozenset(opcodes.BRANCHES)
SEND_OPS = frozenset(opcodes.SENDS_ALL)
COLOURS = {
    "alu": (46, 160, 67), "cf": (52, 110, 219), "send": (230, 126, 34), "scalar": (142, 68, 173),
    "off": (225, 225, 225), "bg": (255, 255, 255), "grid": (150, 150, 150), "text": (30, 30, 30),
}
MAX_ROWS = 6000

# 3x5 glyphs, one string of 15 bits each (rows top to bottom): digits and the legend's letters
_GLYPHS = dict(zip("0123456789", [
    "111101101101111", "010110010010111", "111001111100111", "111001111001111", "101101111001001",
    "111100111001111", "111100111101111", "111001001001001", "111101111101111", "111101111001111"]))
_GLYPHS.update({"A": "010101111101101", "L": "100100100100111", "U": "101101101101111",
                "C": "111100100100111", "F": "111100110100100", "S": "111100111001111",
                "E": "111100110100111", "N": "110101101101101", "D": "110101101101110",
                "W": "101101111111101", "O": "111101101101111", " ": "000000000000000",
                "B": "110101110101110", "G": "111100101101111", "H": "101101111101101", "I": "111010010010111",
                "J": "001001001101111", "K": "101101110101101", "M": "101111111101101", "P": "111101111100100",
                "Q": "111101101111001", "R": "110101110101101", "T": "111010010010010", "V": "101101101101010",
                "X": "101101010101101", "Y": "101101010010010", "Z": "111001010100111"})
LEGEND = [("alu", "ALU"), ("cf", "CF"), ("send", "SEND"), ("scalar", "W"), ("off", "OFF")]


def _kind(opcode: str, mask: np.ndarray, we_all: bool) -> str:
    if opcode in CF_OPS:
        return "cf"
    if opcode in SEND_OPS:
        return "send"
    if we_all:
        return "scalar"
    return "alu"


def _events(trace):
    """Normalise a Trace, a list of TraceEvent or of (thread, address, inst-or-opcode, mask) tuples."""
    events = getattr(trace, "events", trace)
    out = []
    for e in events:
        if isinstance(e, tuple):
            tid, addr, inst, mask = e
            opcode = getattr(inst, "opcode", inst)
            we_all = bool(getattr(inst, "mask_ctrl_we_all", False))
        else:
            tid, addr, opcode, mask, we_all = e.thread, e.address, e.opcode, e.mask, getattr(e, "we_all", False)
        out.append((tid, addr, opcode, np.asarray(mask, bool), we_all, getattr(e, "time", None)))
    # y position: the scheduling round when every event has one, else the order within its thread
    if not out or any(e[5] is None for e in out):
        seen: dict[int, int] = {}
        fixed = []
        for e in out:
            fixed.append(e[:5] + (seen.get(e[0], 0),))
            seen[e[0]] = seen.get(e[0], 0) + 1
        out = fixed
    else:
        t0 = min(e[5] for e in out)
        out = [e[:5] + (e[5] - t0,) for e in out]
    return out


def _text_width(text: str, scale: int = 2) -> int:
    return len(text) * 4 * scale


def _draw_text(img: np.ndarray, x: int, y: int, text, scale: int = 2) -> None:
    for k, ch in enumerate(str(text)):
        glyph = _GLYPHS[ch]
        for r in range(5):
            for c in range(3):
                if glyph[r * 3 + c] == "1":
                    y0, x0 = y + r * scale, x + (k * 4 + c) * scale
                    img[y0:y0 + scale, x0:x0 + scale] = COLOURS["text"]


def render(trace) -> np.ndarray:
    """The picture as an (height, width, 3) uint8 array. A trace with `labels` ({address: name}, as the
    Gen backend gives for its blocks) gets each name beside the row where a thread entered that block."""
    events = _events(trace)
    threads = sorted({e[0] for e in events}) or [0]
    per_thread = {t: [e for e in events if e[0] == t and e[5] < MAX_ROWS] for t in threads}
    lanes = max([e[3].size for e in events] or [8])
    rows = min(MAX_ROWS, max([e[5] for e in events] or [0]) + 1)
    row_h = 6 if rows <= 120 else 4 if rows <= 300 else 2 if rows <= 1500 else 1
    lane_w = 10 if lanes <= 16 else 6
    labels = {a: "".join(c for c in str(n).upper() if c in _GLYPHS) for a, n in
              (getattr(trace, "labels", None) or {}).items()}
    label_w = max([_text_width(n, 1) for n in labels.values()] or [0]) + (4 if labels else 0)
    gutter = 14 + label_w                        # labels, address bar (8) + kind strip (4) + gap
    panel_w = gutter + lanes * lane_w + 1
    header = 16
    gap = 12
    legend_h = 18
    legend_w = sum(14 + _text_width(word) + 10 for _, word in LEGEND) + gap
    width = max(len(threads) * panel_w + (len(threads) + 1) * gap, legend_w)
    height = header + rows * row_h + gap + legend_h
    img = np.empty((height, width, 3), np.uint8)
    img[:] = COLOURS["bg"]
    max_addr = max([e[1] for e in events] or [1]) or 1
    for p, t in enumerate(threads):
        x0 = gap + p * (panel_w + gap)
        _draw_text(img, x0 + gutter, 3, t)
        lane_x = x0 + gutter
        last = 0
        for _, addr, opcode, mask, we_all, r in per_thread[t]:
            y = header + r * row_h
            last = max(last, r + 1)
            kind = _kind(opcode, mask, we_all)
            shade = int(220 - 190 * addr / max_addr)
            if addr in labels and y + 5 <= img.shape[0]:
                _draw_text(img, x0, y, labels[addr], 1)
            img[y:y + row_h, x0 + label_w:x0 + label_w + 8] = (shade, shade, shade)
            img[y:y + row_h, x0 + label_w + 9:x0 + label_w + 13] = COLOURS[kind]
            cells = np.where(mask[:lanes, None], 1, 0)
            row = np.empty((lanes, 3), np.uint8)
            row[:] = COLOURS["off"]
            row[cells[:, 0] == 1] = COLOURS[kind]
            block = np.repeat(row, lane_w, axis=0)
            block[lane_w - 1::lane_w] = COLOURS["bg"]            # 1-px gap between lanes
            img[y:y + row_h, lane_x:lane_x + lanes * lane_w] = block[None]
        # a grid line every 8 lanes helps counting
        for k in range(0, lanes + 1, 8):
            img[header - 2:header + last * row_h, lane_x + k * lane_w - 1] = COLOURS["grid"]
    x, y = gap, height - legend_h + 2
    for kind, word in LEGEND:
        img[y:y + 10, x:x + 10] = COLOURS[kind]
        _draw_text(img, x + 14, y, word)
        x += 14 + _text_width(word) + 10
    return img


def encode_png(img: np.ndarray) -> bytes:
    """8-bit RGB PNG bytes (filter 0 on every row)."""
    h, w, _ = img.shape
    raw = np.zeros((h, 1 + 3 * w), np.uint8)
    raw[:, 1:] = img.reshape(h, 3 * w)

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw.tobytes(), 6)) + chunk(b"IEND", b""))


def trace_png(trace) -> bytes:
    """The lane-activity timeline of `trace` as PNG bytes (the caller decides where they go)."""
    return encode_png(render(trace))


PICTURE_KINDS = (".png", ".svg")
OTHER_PICTURES = (".pdf", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".tif", ".tiff", ".eps", ".ps")


def picture_kind(path: str) -> str:
    """The picture format a file name asks for: .svg, else .png (any other name, '-' too); a ValueError
    for a picture format we do not write."""
    import os
    suffix = os.path.splitext(path)[1].lower() if path != "-" else ""
    if suffix in OTHER_PICTURES:
        raise ValueError(f"{path}: cannot draw a '{suffix}' picture (the lane picture is written as .png or "
                         f".svg)")
    return ".svg" if suffix == ".svg" else ".png"


def trace_picture(trace, path: str) -> bytes:
    """The picture of `trace` in the format `path`'s name asks for (picture_kind): PNG, or an SVG document
    that holds the same raster picture (an <image> with the PNG as a data: URI, SVG 1.1 section 5.7)."""
    png = trace_png(trace)
    if picture_kind(path) == ".png":
        return png
    import base64
    w, h = struct.unpack(">II", png[16:24])                  # IHDR's width and height
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}">\n'
            f'<title>reconverge lane activity</title>\n'
            f'<image width="{w}" height="{h}" style="image-rendering:pixelated" '
            f'href="data:image/png;base64,{base64.b64encode(png).decode()}"/>\n</svg>\n').encode()
