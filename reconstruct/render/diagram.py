"""Plan diagrams in the manner of the 仪礼图: the ground from above, everyone's place marked.

One drawing is a list of primitives (lines, polygons, circles, text) in ground metres, written
out twice by the same code: as SVG (text, with the shipped CJK font named) and as PNG (drawn
with Pillow, which the project already uses — no cairo needed).  North is up, as in 杨复 and
张惠言; the hall is at the top, the target at the bottom.

The range is 60–70 m long and the hall some 20 m wide, so the drawing breaks the courtyard as
the old diagrams do: the court in front of the hall and the end of the range are drawn to
scale, the empty stretch between them is shortened and marked with a break line.
"""
from __future__ import annotations

import base64
import math

import drawsvg as dw
import numpy as np
from dataclasses import dataclass, field
from pathlib import Path

from PIL import Image, ImageDraw

from ..outputs import atomic_path
from ..model.plan import Plan
from ..text.fonts import font_subset_woff, pil_font

INK = "#222222"
PAPER = "#fbf8f0"
GREY = "#8a8578"
RED = "#b03a2e"
BLUE = "#1f5fa8"

# Who is drawn, with a short label (the text's own names).
SHORT = {"上耦上射": "上耦上", "上耦下射": "上耦下", "次耦上射": "次耦上", "次耦下射": "次耦下",
         "下耦上射": "下耦上", "下耦下射": "下耦下", "举觯者1": "举觯1", "举觯者2": "举觯2"}


def _coords(pts) -> list[float]:
    """x0, y0, x1, y1 … of pixel points, to a tenth of a pixel (as drawsvg's Lines takes them)."""
    return [round(v, 1) for p in pts for v in p]


@dataclass
class Canvas:
    """Primitives in ground metres; a piecewise y map compresses the middle of the range."""

    x0: float
    x1: float
    y_sections: list[tuple[float, float, float]]   # (y_top, y_bottom, pixels per metre) top to bottom
    scale: float                                     # pixels per metre across
    margin: float = 30.0
    title: str = ""
    ops: list[tuple] = field(default_factory=list)

    @property
    def width(self) -> int:
        return int((self.x1 - self.x0) * self.scale + 2 * self.margin)

    @property
    def height(self) -> int:
        return int(sum((a - b) * s for a, b, s in self.y_sections) + 2 * self.margin + 24)

    def px(self, x: float, y: float) -> tuple[float, float]:
        X = self.margin + (x - self.x0) * self.scale
        Y = self.margin + 24
        for top, bottom, s in self.y_sections:
            if y >= bottom:
                return X, Y + (top - min(y, top)) * s
            Y += (top - bottom) * s
        return X, Y

    # primitives (ground coordinates)
    def line(self, pts, color=INK, width=1.0, dash=False):
        self.ops.append(("line", [self.px(*p) for p in pts], color, width, dash))

    def poly(self, pts, fill="none", color=INK, width=1.0):
        self.ops.append(("poly", [self.px(*p) for p in pts], fill, color, width))

    def circle(self, x, y, r_px, fill=INK, color=INK):
        self.ops.append(("circle", self.px(x, y), r_px, fill, color))

    def text(self, x, y, s, size=12, color=INK, anchor="middle", dx=0.0, dy=0.0):
        X, Y = self.px(x, y)
        self.ops.append(("text", (X + dx, Y + dy), s, size, color, anchor))

    def text_px(self, X, Y, s, size=12, color=INK, anchor="start"):
        self.ops.append(("text", (X, Y), s, size, color, anchor))

    # writers
    @property
    def chars(self) -> str:
        """The characters the drawing writes (its labels, title and caption)."""
        return "".join(op[2] for op in self.ops if op[0] == "text")

    def svg(self, inline: bool = False, woff: bytes | None = None) -> str:
        """The drawing as SVG text (drawsvg), the page's colour behind, its Chinese in the shipped font cut down
        to the drawing's characters and embedded (the file shows its labels on a machine without the font);
        ``inline``: to stand inside an HTML page, without the XML declaration, in the page's own font.
        ``woff``: the font to embed instead, already cut to (at least) the drawing's characters: a booklet's
        drawings share one cut (:func:`shared_font`) rather than subsetting the font once per drawing."""
        if inline:          # the page's font (inherited)
            d = dw.Drawing(self.width, self.height)
        else:
            d = dw.Drawing(self.width, self.height, font_family="Noto Sans CJK SC, Noto Sans SC, sans-serif")
            if woff is None:
                woff = font_subset_woff(self.chars)
            d.append_css('@font-face { font-family: "Noto Sans CJK SC"; '
                         f'src: url("data:font/woff;base64,{base64.b64encode(woff).decode("ascii")}"); }}')
        d.append(dw.Rectangle(0, 0, "100%", "100%", fill=PAPER))
        for op in self.ops:
            kind = op[0]
            if kind == "line":
                _, pts, color, w, dash = op
                extra = {"stroke_dasharray": "5,4"} if dash else {}
                d.append(dw.Lines(*_coords(pts), fill="none", stroke=color, stroke_width=w,
                                  stroke_linejoin="round", stroke_linecap="round", **extra))
            elif kind == "poly":
                _, pts, fill, color, w = op
                d.append(dw.Lines(*_coords(pts), close=True, fill=fill, stroke=color, stroke_width=w))
            elif kind == "circle":
                _, (x, y), r, fill, color = op
                d.append(dw.Circle(round(x, 1), round(y, 1), r, fill=fill, stroke=color))
            elif kind == "text":
                _, (x, y), s, size, color, anchor = op
                d.append(dw.Text(s, size, round(x, 1), round(y + size * 0.35, 1), fill=color, text_anchor=anchor))
        return d.as_svg(header="" if inline else '<?xml version="1.0" encoding="UTF-8"?>\n')

    def png(self, ss: int = 2) -> Image.Image:
        W, H = self.width * ss, self.height * ss
        im = Image.new("RGB", (W, H), PAPER)
        dr = ImageDraw.Draw(im)
        def font(size):
            return pil_font(int(size * ss))

        for op in self.ops:
            kind = op[0]
            if kind == "line":
                _, pts, color, w, dash = op
                pts = [(x * ss, y * ss) for x, y in pts]
                if dash:
                    for a, b in zip(pts, pts[1:]):
                        L = math.dist(a, b)
                        n = max(1, int(L / (9 * ss)))
                        for i in range(n):
                            f0, f1 = i / n, (i + 0.55) / n
                            dr.line([(a[0] + (b[0] - a[0]) * f0, a[1] + (b[1] - a[1]) * f0),
                                     (a[0] + (b[0] - a[0]) * f1, a[1] + (b[1] - a[1]) * f1)],
                                    fill=color, width=max(1, int(w * ss)))
                else:
                    dr.line(pts, fill=color, width=max(1, int(w * ss)), joint="curve")
            elif kind == "poly":
                _, pts, fill, color, w = op
                dr.polygon([(x * ss, y * ss) for x, y in pts], fill=None if fill == "none" else fill,
                           outline=color, width=max(1, int(w * ss)))
            elif kind == "circle":
                _, (x, y), r, fill, color = op
                dr.ellipse([(x - r) * ss, (y - r) * ss, (x + r) * ss, (y + r) * ss],
                           fill=None if fill == "none" else fill, outline=color, width=ss)
            elif kind == "text":
                _, (x, y), s, size, color, anchor = op
                a = {"middle": "mm", "start": "lm", "end": "rm"}[anchor]
                dr.text((x * ss, y * ss), s, font=font(size), fill=color, anchor=a)
        return im.resize((self.width, self.height), Image.LANCZOS)

    def save(self, svg_path: str | Path, png_path: str | Path | None = None, woff: bytes | None = None) -> None:
        with atomic_path(svg_path) as tmp:
            tmp.write_text(self.svg(woff=woff), encoding="utf-8")
        if png_path:
            with atomic_path(png_path) as tmp:
                self.png().save(tmp, format="PNG")


# ---------------------------------------------------------------------------

def shared_font(canvases) -> bytes:
    """The font cut once to the characters of all ``canvases``, to embed in each (a booklet's drawings share
    most of their labels; cutting the font is most of the cost of writing one SVG)."""
    return font_subset_woff("".join(c.chars for c in canvases))


def _lm(plan: Plan, name: str) -> tuple[float, float] | None:
    lm = plan.landmarks.get(name)
    return (lm.position[0], lm.position[1]) if lm else None


def make_canvas(plans: list[Plan], title: str = "", scale: float = 26.0) -> Canvas:
    """A canvas that holds the ground of one or more plans (all their landmarks)."""
    xs, ys = [], []
    y_low = 0.0
    for p in plans:
        for lm in p.landmarks.values():
            xs.append(lm.position[0])
            ys.append(lm.position[1])
        # and everyone's places (the 堂西 files reach well west of the hall)
        for a in p.actors.values():
            k = a.track.keys
            near = k[k["y"] > -20.0]["x"]
            xs.extend((near + np.where(near > 0, 1.0, -1.0)).tolist())
            # the lowest anyone stands (the guests' files outside the gate at the end)
            y_low = min(y_low, float(k["y"].min()))
    hall_top = max(ys) + 1.5
    y_fa = max(_lm(p, "乏")[1] for p in plans if _lm(p, "乏"))
    y_hou = min(_lm(p, "侯")[1] for p in plans if _lm(p, "侯"))
    y_gate = min((_lm(p, "门") or (0.0, y_hou))[1] for p in plans)
    y_hou = min(y_hou, y_gate + 1.0)
    court_bottom = -14.0
    fa_top = y_fa + 4.0
    x_half = max(16.0, max(abs(x) for x in xs if abs(x) < 30) + 2.0)
    sections = [(hall_top, court_bottom, scale), (court_bottom, fa_top, 60.0 / max(1.0, court_bottom - fa_top)),
                (fa_top, min(y_hou - 3.0, y_low - 1.5), scale * 0.55)]
    return Canvas(-x_half, x_half, sections, scale, title=title)


def draw_ground(c: Canvas, plan: Plan, color: str = INK, labels: bool = True, light: bool = False) -> None:
    """The ground of a plan in the manner of the 仪礼图: the hall, its stairs and marks, the court's
    walls and the shortened range, the target, the fixtures and the standing places."""
    L = plan.landmarks
    w = 0.8 if light else 1.2
    hall = plan.hall.get("footprint") or (L["堂"].footprint if "堂" in L else None)
    if hall:
        c.poly([tuple(p) for p in hall], fill="none" if light else "#efe6d2", color=color, width=w * 1.4)
    _draw_hall(c, L, hall, color, w, labels, light)
    _draw_stairs_and_marks(c, L, color, w, labels, light)
    _draw_range(c, L, labels, light)
    _draw_target(c, L, color, labels, light)
    _draw_fixtures(c, L, color, w, labels, light)


def _draw_hall(c: Canvas, L, hall, color: str, w: float, labels: bool, light: bool) -> None:
    """Rooms, walls, purlin lines and columns of the hall."""
    for name in ("室", "东房"):
        if name in L and L[name].footprint:
            c.poly([tuple(p) for p in L[name].footprint], fill="none" if light else "#e2d5b8", color=color, width=w)
            x, y = L[name].position[:2]
            if labels:
                c.text(x, y, name, 13, color)
    for name in ("东序", "西序"):
        if name in L and L[name].footprint:
            fp = L[name].footprint
            xm = sum(p[0] for p in fp) / len(fp)
            c.line([(xm, min(p[1] for p in fp)), (xm, max(p[1] for p in fp))], color, w * 2.2)
            if labels:
                c.text(xm, max(p[1] for p in fp) - 0.6, name, 11, color, dx=-14 if name == "西序" else 14)
    for name in ("楣", "栋"):
        if name in L and hall:
            y = L[name].position[1]
            xs = [p[0] for p in hall]
            c.line([(min(xs), y), (max(xs), y)], GREY if not light else color, 0.6, dash=True)
            if labels:
                c.text(max(xs) + 0.2, y, name, 10, GREY, anchor="start")
    for name in ("东楹", "西楹"):
        if name in L:
            x, y = L[name].position[:2]
            c.circle(x, y, 4.5, fill=color if not light else "none", color=color)
            if labels:
                c.text(x, y, name, 10, color, dy=-11)


def _draw_stairs_and_marks(c: Canvas, L, color: str, w: float, labels: bool, light: bool) -> None:
    """The two stairs (three steps each) and the archers' marks."""
    for name in ("阼阶", "西阶"):
        if name in L and L[name].footprint:
            fp = [tuple(p) for p in L[name].footprint]
            c.poly(fp, fill="none", color=color, width=w)
            ys = [p[1] for p in fp]
            xs = [p[0] for p in fp]
            for k in range(1, 3):
                yy = min(ys) + (max(ys) - min(ys)) * k / 3
                c.line([(min(xs), yy), (max(xs), yy)], color, 0.5)
            if labels:
                c.text(sum(xs) / 4, min(ys) - 0.5, name, 11, color)
    for name in ("上物", "下物"):
        if name in L:
            x, y = L[name].position[:2]
            c.line([(x, y - 0.35), (x, y + 0.35)], RED if not light else color, 1.4)
            c.line([(x - 0.14, y), (x + 0.14, y)], RED if not light else color, 1.4)


def _draw_range(c: Canvas, L, labels: bool, light: bool) -> None:
    """The court's side walls and the break where the range is shortened in the drawing."""
    court = (L["庭"].footprint if "庭" in L else None)
    if court:
        xs = [p[0] for p in court]
        for x in (min(xs), max(xs)):
            if c.x0 <= x <= c.x1:
                c.line([(x, max(p[1] for p in court)), (x, c.y_sections[-1][1])], GREY, 0.8)
    # the break in the range
    top, bottom, _ = c.y_sections[1]
    for yy in (top, bottom):
        c.line([(c.x0, yy), (c.x1, yy)], GREY, 0.6, dash=True)
    if not light and labels:
        X, Y = c.px(c.x0 + 0.5, (top + bottom) / 2)
        c.text_px(X, Y, "… 侯道 shortened in the drawing …", 10, GREY)


def _draw_target(c: Canvas, L, color: str, labels: bool, light: bool) -> None:
    """The 侯: its width (左个–右个), the 侯中 and the posts."""
    if "侯" in L:
        hx, hy = L["侯"].position[:2]
        if "左个" in L and "右个" in L:
            xl, xr = L["左个"].position[0], L["右个"].position[0]
            c.line([(xl, hy), (xr, hy)], color, 3.0)
            if labels:
                c.text(xl, hy, "左个", 11, color, dy=14)
                c.text(xr, hy, "右个", 11, color, dy=14)
        if "侯中" in L:
            c.line([(hx - 1.1, hy), (hx + 1.1, hy)], RED if not light else color, 5.0)
        if labels:
            c.text(hx, hy, "侯", 13, color, dy=16)
        for name in ("西植", "东植"):
            if name in L:
                x, y = L[name].position[:2]
                c.circle(x, y, 2.5, fill=color, color=color)


def _draw_fixtures(c: Canvas, L, color: str, w: float, labels: bool, light: bool) -> None:
    """Fixtures, mats and vessels (outlined, labelled) and the standing places (small crosses)."""
    fixtures = {"乏": 13, "洗": 12, "水": 10, "篚": 10, "县": 11, "鼓": 11, "楅": 12, "中": 12, "尊": 11,
                "上篚": 10, "丰位": 10, "宾席": 11, "主人席": 11, "大夫席": 11, "众宾席1": 10, "众宾席2": 10,
                "众宾席3": 10, "工席": 10, "门": 12, "户牖间": 9}
    for name, size in fixtures.items():
        if name not in L:
            continue
        lm = L[name]
        x, y = lm.position[:2]
        fp = lm.footprint
        if fp:
            c.poly([tuple(p) for p in fp], fill="none" if light else "#ffffff", color=color, width=w)
        else:
            c.circle(x, y, 2.5, fill="none", color=color)
        if labels:
            short = {"众宾席1": "众宾", "众宾席2": "众宾", "众宾席3": "众宾", "丰位": "丰"}.get(name, name)
            if name == "户牖间":
                continue
            off = -12 if name not in ("宾席", "主人席", "大夫席", "众宾席1", "众宾席2", "众宾席3", "工席") else 0
            c.text(x, y, short, size, color, dy=off if fp else -10)
    for name in ("司射位", "司马位", "射位", "觯位", "堂西", "堂东", "阶前"):
        if name in L and labels and not light:
            x, y = L[name].position[:2]
            c.line([(x - 0.15, y - 0.15), (x + 0.15, y + 0.15)], GREY, 0.6)
            c.line([(x - 0.15, y + 0.15), (x + 0.15, y - 0.15)], GREY, 0.6)


def _tick(h: float) -> tuple[float, float]:
    a = math.radians(h)
    return math.sin(a), math.cos(a)


def draw_people(c: Canvas, plan: Plan, t: float, since: float | None, color: str = BLUE,
                highlight: set[str] | None = None, label: bool = True) -> None:
    """Each person a mark with a facing tick and his name; his path since ``since`` as a line."""
    highlight = highlight or set()
    placed: list[tuple[float, float]] = []
    for ident, actor in plan.actors.items():
        tr = actor.track
        xyz, hd = tr.at([t])
        x, y = float(xyz[0, 0]), float(xyz[0, 1])
        h, posture = float(hd[0]), str(tr.posture_at([t])[0])
        if not (c.x0 - 5 < x < c.x1 + 5):
            continue
        if since is not None and since < t:
            k = tr.keys[(tr.t > since) & (tr.t < t)]
            a = tr.at([since])[0][0]
            pts = [(float(a[0]), float(a[1])), *zip(k["x"].tolist(), k["y"].tolist()), (x, y)]
            if sum(math.dist(p, q) for p, q in zip(pts, pts[1:])) > 0.3:
                c.line(pts, color, 1.0 if ident not in highlight else 1.8, dash=ident not in highlight)
        hot = ident in highlight
        col = RED if hot else color
        r = 5.5 if hot else 4.5
        fill = col if posture in ("kneel", "kneel_bow") else PAPER
        c.circle(x, y, r, fill=fill, color=col)
        if h is not None:
            ux, uy = _tick(h)
            X, Y = c.px(x, y)
            c.ops.append(("line", [(X + ux * r, Y - uy * r), (X + ux * (r + 9), Y - uy * (r + 9))], col, 2.0, False))
        if label:
            X, Y = c.px(x, y)
            dy = -13
            for (px_, py_) in placed:
                if abs(px_ - X) < 34 and abs(py_ - (Y + dy)) < 12:
                    dy += 24 if dy < 0 else 12
            placed.append((X, Y + dy))
            c.ops.append(("text", (X, Y + dy), SHORT.get(ident, ident), 11 if hot else 10, col, "middle"))


def diagram(plan: Plan, t: float, since: float | None = None, title: str = "", caption: str = "",
            highlight: set[str] | None = None) -> Canvas:
    c = make_canvas([plan], title)
    draw_ground(c, plan)
    draw_people(c, plan, t, since, highlight=highlight)
    c.text_px(c.margin, 20, title, 15, INK)
    if caption:
        c.text_px(c.margin, c.height - 14, caption, 10, GREY)
    _compass(c)
    return c


def _compass(c: Canvas) -> None:
    X, Y = c.width - c.margin - 10, c.margin + 40
    c.ops.append(("line", [(X, Y + 16), (X, Y - 14)], INK, 1.2, False))
    c.ops.append(("line", [(X - 4, Y - 8), (X, Y - 14), (X + 4, Y - 8)], INK, 1.2, False))
    c.ops.append(("text", (X, Y - 24), "北", 12, INK, "middle"))


def overlay(plan_a: Plan, plan_b: Plan, name_a: str, name_b: str) -> Canvas:
    """Two readings' grounds on one sheet: A in blue, B in red, with moved landmarks joined."""
    c = make_canvas([plan_a, plan_b], f"{name_a} (blue) / {name_b} (red)")
    draw_ground(c, plan_a, BLUE, labels=True, light=True)
    draw_ground(c, plan_b, RED, labels=False, light=True)
    La, Lb = plan_a.landmarks, plan_b.landmarks
    placed: list[tuple[float, float]] = []
    for k in La:
        if k in Lb:
            pa, pb = La[k].position, Lb[k].position
            if math.dist(pa[:2], pb[:2]) > 0.05:
                c.line([tuple(pa[:2]), tuple(pb[:2])], "#7a4f9a", 0.9)
                c.circle(pb[0], pb[1], 2.5, fill=RED, color=RED)
                X, Y = c.px(pb[0], pb[1])
                if all(abs(X - u) > 70 or abs(Y - v) > 14 for u, v in placed):   # one label per crowd
                    placed.append((X, Y))
                    c.text(pb[0], pb[1], f"{k} → {math.dist(pa[:2], pb[:2]):.2f} m", 10, RED, dy=12)
    for k in Lb:
        if k not in La:
            x, y = Lb[k].position[:2]
            c.text(x, y, f"{k} (only here)", 10, RED, dy=-12)
    c.text_px(c.margin, 20, c.title, 15, INK)
    _compass(c)
    return c


def evidence_map(plan: Plan, title: str = "") -> Canvas:
    """The ground with every landmark marked in the colour of its evidence (issue 32: text, 鄭, 賈, a later
    reading, an excavation, CHOSEN; the colours of ``model/evidence.py``) and a legend."""
    from ..model.evidence import EVIDENCE_STYLE

    c = make_canvas([plan], title)
    draw_ground(c, plan, GREY, labels=False, light=True)
    placed: list[tuple[float, float]] = []
    style = {str(k): v for k, v in EVIDENCE_STYLE.items()}
    for ident, lm in plan.landmarks.items():
        if lm.evidence not in style or lm.kind in ("court",):
            continue
        col = style[lm.evidence][1]
        x, y = lm.position[0], lm.position[1]
        c.circle(x, y, 4.2, fill=col, color=INK)
        X, Y = c.px(x, y)
        if all(abs(X - u) > 30 or abs(Y - v) > 11 for u, v in placed):
            placed.append((X, Y))
            c.text(x, y, SHORT.get(ident, ident), 9, col, dy=-7)
    X, Y = c.width - c.margin - 430, c.height - c.margin - 30 - 26 * len(style)
    for k, (label, col) in style.items():
        c.ops.append(("circle", (X + 8, Y), 8.0, col, INK))
        c.text_px(X + 22, Y + 6, label, 17, INK)
        Y += 26
    c.text_px(c.margin, 20, title, 18, INK)
    _compass(c)
    return c
