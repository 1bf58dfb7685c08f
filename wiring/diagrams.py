#!/usr/bin/env python3
"""Draws the wiring diagrams of wiring/README.md, and the README's overview of the whole set-up
(overview): each an SVG and a PNG beside this file.

    scripts/wiring.sh              # installs the pinned tools into .cache/wiring-py, runs this
    scripts/wiring.sh reed-switch  # just one drawing
    scripts/wiring.sh --check      # draws into a temporary folder, compares with wiring/, and
                                   # holds what the pictures say to what garaged takes (claims())

Every picture is drawn from the code below: edit here, never the pictures. The output is
repeatable byte for byte: a fixed salt for the SVG's ids, no dates in the metadata, text drawn
as outlines (the SVG does not depend on the reader's fonts, only on the DejaVu Sans shipped with
matplotlib).

Pin numbers are the physical pins of the Raspberry Pi's 40-pin header; GPIO numbers are BCM.
"""
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
matplotlib.rcParams.update({
    "svg.hashsalt": "garaged-wiring",   # stable ids inside the SVG
    "svg.fonttype": "path",             # text as outlines: the same look everywhere
    "font.family": "DejaVu Sans",       # shipped with matplotlib
    "mathtext.fontset": "dejavusans",
})
import matplotlib.pyplot as plt                          # noqa: E402
from matplotlib.text import Text                         # noqa: E402
from matplotlib.patches import Circle, FancyBboxPatch    # noqa: E402

import schemdraw                                         # noqa: E402
import schemdraw.elements as elm                         # noqa: E402
from schemdraw.segments import Segment, SegmentArc, SegmentPoly  # noqa: E402
from schemdraw.elements.elements import gap              # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = HERE         # where the pictures go: --out DIR for a check that compares them
PNG_DPI = 100
FONT = 14          # component labels
NOTE = 13          # captions under a drawing
TITLE = 15
PI = "#1f5fa8"     # the Raspberry Pi's own pins
NOTE_COLOUR = "#222222"
MODULE = "#7a4b00"  # a ready-made board's own parts
DRAWN = {}         # picture name -> every text it shows, for claims()


# ---------------------------------------------------------------------------------------------
# output

def _save_fig(fig, name):
    """Writes NAME.svg and NAME.png from a matplotlib figure, repeatable byte for byte."""
    DRAWN[name] = [t.get_text() for t in fig.findobj(Text) if t.get_text()]
    common = dict(bbox_inches="tight", pad_inches=0.25, facecolor="white", transparent=False)
    fig.savefig(os.path.join(OUT, name + ".svg"), format="svg",
                metadata={"Date": None, "Creator": None}, **common)
    fig.savefig(os.path.join(OUT, name + ".png"), format="png", dpi=PNG_DPI,
                metadata={"Software": None}, **common)
    plt.close(fig)
    print(f"{os.path.relpath(OUT)}/{name}.svg {os.path.relpath(OUT)}/{name}.png")


def save(d, name):
    fig = d.draw(show=False, canvas="matplotlib").getfig()
    fig.subplots_adjust(0, 0, 1, 1)
    _save_fig(fig, name)


def drawing():
    d = schemdraw.Drawing(show=False, canvas="matplotlib")
    d.config(fontsize=FONT, unit=2.5, lw=1.6, font="DejaVu Sans")
    return d


# ---------------------------------------------------------------------------------------------
# small pieces

class Buzzer(elm.Element2Term):
    """An active buzzer: a box with a dome, + marked at its end."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        w = 0.38
        self.segments.append(Segment([(0, 0), (0, 0), gap, (1, 0), (1, 0)]))
        self.segments.append(SegmentPoly([(0, -w), (1, -w), (1, w), (0, w)]))
        self.segments.append(SegmentArc((0.5, w), 0.8, 0.7, theta1=0, theta2=180))
        self.segments.append(Segment([(1.1, -w - 0.25), (1.1, -w - 0.55)]))   # + at the end
        self.segments.append(Segment([(0.95, -w - 0.4), (1.25, -w - 0.4)]))


def pi_pin(d, xy, label, side="left"):
    """An open terminal on the Pi's header, labelled with its name and physical pin."""
    d.add(elm.Dot(open=True, radius=0.13).at(xy).color(PI))
    x, y = xy
    dx = -0.3 if side == "left" else 0.3
    d.add(elm.Label().at((x + dx, y)).label(label, halign="right" if side == "left" else "left",
                                            valign="center", color=PI, fontsize=FONT))


def text(d, xy, s, size=FONT, halign="left", valign="center", color="black"):
    d.add(elm.Label().at(xy).label(s, halign=halign, valign=valign, fontsize=size, color=color))


def title(d, xy, s):
    text(d, xy, s, size=TITLE, valign="bottom")


def notes(d, xy, lines):
    """A caption block, its top-left corner at xy."""
    text(d, xy, "\n".join(lines), size=NOTE, valign="top", color=NOTE_COLOUR)


def dot(d, xy):
    d.add(elm.Dot(radius=0.09).at(xy))


def wire(d, *points, **style):
    for a, b in zip(points, points[1:]):
        line = elm.Line().at(a).to(b)
        if style.get("color"):
            line = line.color(style["color"])
        if style.get("ls"):
            line = line.linestyle(style["ls"]).linewidth(1.1)
        if style.get("lw"):
            line = line.linewidth(style["lw"])
        d.add(line)


def box(d, x0, y0, x1, y1, color="black", ls="--"):
    wire(d, (x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0), color=color, ls=ls)


def driver(d, kind, x, gpio, gnd_y, gnd_label, r1, r2, q_label):
    """The transistor stage shared by the relays and the buzzer: the Pi's pin through R1 to the
    gate (base), R2 from there to ground, the source (emitter) to ground. Returns the drain's
    (collector's) position and the height of the control line."""
    if kind == "fet":
        q = d.add(elm.NMos().scale(1.3).at((x, 0)).anchor("drain"))
        ctl, top, bottom = q.gate, q.drain, q.source
        pins = ("D", "G", "S")
    else:
        q = d.add(elm.BjtNpn(circle=True).scale(1.3).at((x, 0)).anchor("collector"))
        ctl, top, bottom = q.base, q.collector, q.emitter
        pins = ("C", "B", "E")
    cy = ctl[1]
    node = (x - 2.6, cy)
    wire(d, ctl, node)
    dot(d, node)
    left = node[0] - 2.8
    d.add(elm.Resistor().left().at(node).to((left, cy)))
    text(d, ((node[0] + left) / 2, cy + 0.55), r1, halign="center", valign="bottom")
    pi_pin(d, (0, cy), gpio)
    wire(d, (left, cy), (0, cy))
    d.add(elm.Resistor().down().at(node).to((node[0], gnd_y)))
    text(d, (node[0] - 0.6, (cy + gnd_y) / 2), r2, halign="right")
    dot(d, (node[0], gnd_y))
    wire(d, bottom, (x, gnd_y))
    pi_pin(d, (0, gnd_y), gnd_label)
    wire(d, (0, gnd_y), (x, gnd_y))
    text(d, (x + 0.75, (top[1] + bottom[1]) / 2), q_label, halign="left")
    small = FONT - 3
    text(d, (x + 0.2, top[1] - 0.05), pins[0], size=small, valign="top")
    text(d, (ctl[0] - (0.25 if kind == "bjt" else -0.05), cy + 0.15), pins[1], size=small,
         halign="right", valign="bottom")
    text(d, (x + 0.2, bottom[1] + 0.05), pins[2], size=small, valign="bottom")
    return top, cy


def coil_with_diode(d, x, y0, rail_y, coil_label, diode_dx=-2.2):
    """A relay coil from (x, y0) up towards the supply rail, a 1N4001 across it (cathode to the
    supply). Returns the coil's bottom and top heights."""
    lo, hi = y0 + 0.5, y0 + 3.2
    wire(d, (x, y0), (x, lo))
    d.add(elm.Inductor2(loops=4).up().at((x, lo)).to((x, hi)))
    wire(d, (x, hi), (x, rail_y))
    xd = x + diode_dx
    for y in (lo, hi):
        dot(d, (x, y))
    wire(d, (x, lo), (xd, lo))
    d.add(elm.Diode().up().at((xd, lo)).to((xd, hi)))
    wire(d, (xd, hi), (x, hi))
    wire(d, (xd, hi), (xd, rail_y))
    dot(d, (xd, rail_y))
    dot(d, (x, rail_y))
    text(d, (xd - 0.5, (lo + hi) / 2), "D1\n1N4001", halign="right")
    text(d, (x + 0.7, (lo + hi) / 2 + 0.25), coil_label, halign="left", valign="bottom")
    return lo, hi


def contacts_to_opener(d, x, y_lo, y_hi, link_from_x):
    """The relay's normally-open contacts at x, a dashed link from the coil, and the opener's
    wall button wired in parallel with them."""
    ymid = (y_lo + y_hi) / 2
    wire(d, (link_from_x, ymid), (x - 0.5, ymid), ls="--")
    d.add(elm.Switch().up().at((x, y_lo)).to((x, y_hi)))
    text(d, (x + 0.45, ymid), "K1\nNO", halign="left")
    xb = x + 3.0
    xt = xb + 2.4
    wire(d, (x, y_hi), (xt, y_hi))
    wire(d, (x, y_lo), (xt, y_lo))
    dot(d, (xb, y_hi))
    dot(d, (xb, y_lo))
    d.add(elm.Button().up().at((xb, y_lo)).to((xb, y_hi)))
    text(d, (xb + 0.5, ymid), "wall\nbutton", halign="left", size=NOTE)
    for y in (y_lo, y_hi):
        d.add(elm.Dot(open=True, radius=0.13).at((xt, y)))
    text(d, (xt + 0.35, ymid), "opener's\nwall-button\nterminals", halign="left")


# ---------------------------------------------------------------------------------------------
# 1. relay through an N-MOSFET

def relay_mosfet():
    d = drawing()
    X, rail, gnd = 8.2, 5.2, -4.2
    top, _ = driver(d, "fet", X, "GPIO17\n(pin 11)", gnd, "GND\n(pin 9)",
                    "R1 100 Ω", "R2\n100 kΩ\npull-down", "Q1\n2N7000\nor BS170")
    wire(d, top, (X, 0.4))
    lo, hi = coil_with_diode(d, X, 0.4, rail, "K1 coil\n5 V relay\n≈ 70 mA")
    pi_pin(d, (0, rail), "5V\n(pin 2)")
    wire(d, (0, rail), (X, rail))
    contacts_to_opener(d, X + 4.0, lo, hi, X + 0.6)
    title(d, (-2.4, rail + 1.0),
          "Relay on GPIO17 through an N-MOSFET (the book's circuit at 3.3 V)")
    notes(d, (-2.4, gnd - 1.0), [
        "R2 holds the gate low whenever nothing drives GPIO17 (boot, a restart of garaged, after it"
        " dies):",
        "the relay stays off, the door stays shut. R1 limits the current that charges the gate.",
        "D1 (cathode to 5 V) takes the coil's kick when Q1 turns off. K1's contacts only bridge the"
        " wall button.",
        r"2N7000 / BS170: $V_\mathrm{GS(th)}$ ≈ 2 V typ., 3 V max.: a typical part switches a"
        " 70 mA coil from 3.3 V.",
        "Pinouts differ (flat face towards you, legs down): 2N7000 S-G-D, BS170 D-G-S.",
        "garaged --relay gpiochip0:17",
    ])
    save(d, "relay-mosfet")


# ---------------------------------------------------------------------------------------------
# 2. relay through an NPN transistor (the book's transistor variant at 3.3 V)

def relay_bjt():
    d = drawing()
    X, rail, gnd = 8.2, 5.2, -4.2
    top, _ = driver(d, "bjt", X, "GPIO17\n(pin 11)", gnd, "GND\n(pin 9)",
                    "R1 330 Ω", "R2\n10 kΩ\nbase to\nemitter", "Q1\nP2N2222A\n(2N2222)")
    wire(d, top, (X, 0.4))
    lo, hi = coil_with_diode(d, X, 0.4, rail, "K1 coil\n5 V relay\n≈ 70 mA")
    pi_pin(d, (0, rail), "5V\n(pin 2)")
    wire(d, (0, rail), (X, rail))
    contacts_to_opener(d, X + 4.0, lo, hi, X + 0.6)
    title(d, (-2.4, rail + 1.0),
          "Relay on GPIO17 through an NPN transistor (the book's variant at 3.3 V)")
    notes(d, (-2.4, gnd - 1.0), [
        r"Coil current $I_\mathrm{C}$ ≈ 70 mA (a typical 5 V relay: 5 V / 70 Ω). Saturate Q1 with a"
        r" forced gain of 10: $I_\mathrm{B}$ = 70 mA / 10 = 7 mA.",
        r"$R_\mathrm{B}$ = (3.3 V − 0.7 V) / 7 mA = 371 Ω  →  the next lower standard value, 330 Ω:"
        r"  $I_\mathrm{B}$ = 2.6 V / 330 Ω = 7.9 mA.",
        "Within the Pi's budget, taken here as at most 16 mA from one GPIO (and 7.9 mA is under its"
        " default 8 mA drive).",
        r"If the pin sags to 3.1 V, or $V_\mathrm{BE(sat)}$ is 0.85 V, $I_\mathrm{B}$ is still at"
        " least 7.3 mA; R2 takes only 0.7 V / 10 kΩ = 0.07 mA.",
        "R2 holds the base low whenever nothing drives GPIO17: the relay stays off at boot."
        " D1 takes the coil's kick.",
        "P2N2222A pinout (flat face towards you, legs down): E-B-C; other 2N2222s vary: check the"
        " datasheet.",
    ])
    save(d, "relay-bjt")


# ---------------------------------------------------------------------------------------------
# 3. a ready-made active-low relay board

def relay_board_active_low():
    d = drawing()
    y5, y33, yin, ygnd = 7.2, 4.0, 0.0, -3.4
    bx0, bx1, by0, by1 = 5.6, 19.4, -4.6, 5.6       # the board's outline
    xr = 3.0                                        # the pull-up
    xl = 8.6                                        # the optocoupler's LED
    xj = 13.4                                       # JD-VCC
    xc = 15.2                                       # the coil and its driver
    xs = 16.3                                       # the contacts
    pi_pin(d, (0, y5), "5V\n(pin 2)")
    pi_pin(d, (0, y33), "3V3\n(pin 1)")
    pi_pin(d, (0, yin), "GPIO17\n(pin 11)")
    pi_pin(d, (0, ygnd), "GND\n(pin 6)")
    # the pull-up, beside the board
    wire(d, (0, y33), (bx0, y33))
    wire(d, (0, yin), (bx0, yin))
    wire(d, (0, ygnd), (bx0, ygnd))
    dot(d, (xr, y33))
    dot(d, (xr, yin))
    d.add(elm.Resistor().down().at((xr, y33)).to((xr, yin)))
    text(d, (xr + 0.5, (y33 + yin) / 2), "R1\n10 kΩ\npull-up", halign="left")
    # the board
    box(d, bx0, by0, bx1, by1, color=MODULE)
    text(d, (bx0 + 0.3, by0 + 0.3), "relay board: one channel, active-low, optocoupler"
         " (a typical one)", color=MODULE, valign="bottom", size=NOTE)
    for y, name in ((y33, "VCC"), (yin, "IN"), (ygnd, "GND")):
        d.add(elm.Dot(open=True, radius=0.13).at((bx0, y)).color(MODULE))
        text(d, (bx0 + 0.3, y + 0.25), name, color=MODULE, valign="bottom", size=NOTE)
    # JD-VCC from the top, its jumper to VCC removed
    wire(d, (0, y5), (xj, y5))
    d.add(elm.Dot(open=True, radius=0.13).at((xj, by1)).color(MODULE))
    wire(d, (xj, y5), (xj, by1))
    text(d, (xj - 0.3, by1 - 0.25), "JD-VCC", color=MODULE, halign="right", valign="top",
         size=NOTE)
    text(d, (xj + 0.5, y5 - 0.2), "JD-VCC–VCC\njumper removed", color=MODULE, halign="left",
         size=NOTE)
    # inside, the input side: VCC -> resistor -> the optocoupler's LED -> IN
    ya, yc = yin + 2.3, yin + 0.7                       # the LED's anode and cathode
    wire(d, (bx0, y33), (xl, y33), color=MODULE)
    d.add(elm.Resistor().down().at((xl, y33)).to((xl, ya)).color(MODULE))
    text(d, (xl - 0.5, (y33 + ya) / 2), "≈1 kΩ", color=MODULE, halign="right", size=NOTE)
    d.add(elm.Diode().down().at((xl, ya)).to((xl, yc)).color(MODULE))
    wire(d, (xl, yc), (xl, yin), (bx0, yin), color=MODULE)
    ym = (ya + yc) / 2
    for dy in (0.25, -0.25):
        d.add(elm.Arrow().right().at((xl + 0.45, ym + dy)).length(0.7).color(MODULE))
    photo = elm.BjtNpn().scale(1.4).theta(0)
    photo.segments.pop(0)                               # no base lead: light drives it
    photo = d.add(photo.at((xl + 0.5, ym)).anchor("base").color(MODULE))
    box(d, xl - 0.6, yc - 0.5, photo.collector[0] + 0.6, ya + 0.5, color=MODULE, ls="-")
    text(d, (xl - 0.95, ym), "opto-\ncoupler", color=MODULE, halign="right", size=NOTE - 1)
    # the output side, from JD-VCC: optocoupler transistor -> driver transistor -> coil
    yjd = 3.4
    wire(d, (xj, by1), (xj, yjd), color=MODULE)
    dot(d, (xj, yjd))
    wire(d, photo.collector, (photo.collector[0], yjd), (xc, yjd), color=MODULE)
    a = elm.BjtNpn().anchors                            # its base level with the emitter
    yq = photo.emitter[1] + (a["collector"][1] - a["base"][1]) * 1.1
    q = d.add(elm.BjtNpn().scale(1.1).theta(0).at((xc, yq)).anchor("collector").color(MODULE))
    wire(d, photo.emitter, q.base, color=MODULE)
    lo, hi = q.collector[1] + 0.3, yjd - 0.3
    wire(d, (xc, yjd), (xc, hi), color=MODULE)
    wire(d, q.collector, (xc, lo), color=MODULE)
    d.add(elm.Inductor2(loops=3).down().at((xc, hi)).to((xc, lo)).color(MODULE))
    xd = xc - 1.2
    wire(d, (xc, hi), (xd, hi), color=MODULE)
    wire(d, (xc, lo), (xd, lo), color=MODULE)
    d.add(elm.Diode().up().at((xd, lo)).to((xd, hi)).color(MODULE))
    dot(d, (xc, hi))
    dot(d, (xc, lo))
    wire(d, q.emitter, (xc, ygnd), (bx0, ygnd), color=MODULE)
    # the contacts, out to the right
    sw = d.add(elm.SwitchSpdt2().scale(2).theta(0).at((xs, 0.6)).anchor("a").color(MODULE))
    wire(d, ((xc + 0.7), (lo + hi) / 2), (sw.a[0] + 0.8, (lo + hi) / 2), (sw.a[0] + 0.8, 0.85),
         color=MODULE, ls="--")
    ync, yno, ycom = sw.b[1], sw.c[1], -1.6
    wire(d, sw.b, (bx1, ync), color=MODULE)
    wire(d, sw.c, (bx1, yno), color=MODULE)
    wire(d, sw.a, (sw.a[0], ycom), (bx1, ycom), color=MODULE)
    for y, name in ((ync, "NC"), (yno, "NO"), (ycom, "COM")):
        d.add(elm.Dot(open=True, radius=0.13).at((bx1, y)).color(MODULE))
        text(d, (bx1 - 0.3, y + 0.2), name, color=MODULE, halign="right", valign="bottom",
             size=NOTE)
    xo = bx1 + 1.6
    wire(d, (bx1, yno), (xo, yno))
    wire(d, (bx1, ycom), (xo, ycom))
    for y in (yno, ycom):
        d.add(elm.Dot(open=True, radius=0.13).at((xo, y)))
    text(d, (xo - 0.9, ycom - 0.5), "opener's\nwall-button\nterminals\n(the button\nstays)",
         halign="left", valign="top")
    title(d, (-2.4, y5 + 1.2), "A ready-made active-low relay board on GPIO17")
    notes(d, (-2.4, by0 - 0.8), [
        "Active-low: the relay closes when IN is pulled low. R1, 10 kΩ from IN to the board's VCC,"
        " makes \"no driver\" read high:",
        "the relay stays off while the Pi boots, while garaged restarts, after it dies.",
        "Remove the JD-VCC jumper: JD-VCC (the coil) from 5 V, VCC (the optocoupler's LED) from"
        " 3.3 V. With VCC at 5 V the pull-up",
        "would put 5 V on GPIO17 (not 5 V tolerant), and a 3.3 V high might not turn the LED"
        " fully off. Boards vary: check",
        "that IN to GND clicks the relay and IN left open releases it; test a reboot with the"
        " door disconnected.",
        "garaged --relay gpiochip0:17 --active-low",
    ])
    save(d, "relay-board-active-low")


# ---------------------------------------------------------------------------------------------
# 4. a reed switch with its pull-up

def reed_switch():
    d = drawing()
    y33, yio, ygnd = 4.0, 0.0, -3.5
    xr, xc, xs = 4.5, 7.0, 15.0
    pi_pin(d, (0, y33), "3V3\n(pin 1)")
    pi_pin(d, (0, yio), "GPIO27\n(pin 13)")
    pi_pin(d, (0, ygnd), "GND\n(pin 14)")
    wire(d, (0, y33), (xr, y33))
    d.add(elm.Resistor().down().at((xr, y33)).to((xr, yio)))
    text(d, (xr + 0.55, (y33 + yio) / 2), "R1 10 kΩ\npull-up", halign="left")
    wire(d, (0, yio), (xs, yio))
    dot(d, (xr, yio))
    dot(d, (xc, yio))
    d.add(elm.Capacitor().down().at((xc, yio)).to((xc, ygnd)))
    text(d, (xc + 0.55, (yio + ygnd) / 2), "C1 100 nF\n(optional)", halign="left")
    wire(d, (0, ygnd), (xs, ygnd))
    dot(d, (xc, ygnd))
    d.add(elm.SwitchReed().down().at((xs, yio)).to((xs, ygnd)))
    text(d, (xs + 0.65, (yio + ygnd) / 2),
         "S1 reed switch\nnormally open,\nclosed when the\ndoor is shut", halign="left")
    box(d, -2.6, ygnd - 0.9, 10.2, y33 + 1.0, color="#777777")
    text(d, (10.0, ygnd - 0.75), "beside the Pi", color="#555555", halign="right",
         valign="bottom", size=NOTE)
    text(d, (12.6, yio + 0.2), "cable", color="#555555", halign="center", valign="bottom",
         size=NOTE)
    text(d, (12.6, ygnd + 0.2), "cable", color="#555555", halign="center", valign="bottom",
         size=NOTE)
    text(d, (xs, yio + 0.7), "on the door frame\n(magnet on the door)", color="#555555",
         halign="center", valign="bottom", size=NOTE)
    title(d, (-2.6, y33 + 1.6), "Door-closed reed switch on GPIO27")
    notes(d, (-2.6, ygnd - 1.5), [
        "Door shut: S1 closes and pulls GPIO27 low, so the switch is active-low."
        " Door not shut: R1 holds the line high.",
        "R1 goes to 3.3 V, never 5 V: the Pi's inputs are not 5 V tolerant."
        " C1, beside the Pi, quiets a long cable.",
        "garaged --sensor-closed gpiochip0:27 --sensor-closed-active-low",
        "The door-open switch is the same on GPIO22 (pin 15), GND pin 20:"
        " --sensor-open gpiochip0:22 --sensor-open-active-low",
    ])
    save(d, "reed-switch")


# ---------------------------------------------------------------------------------------------
# 5. the warning buzzer (or LED beacon)

def warning_buzzer():
    d = drawing()
    X, rail, gnd = 8.2, 4.6, -4.2
    top, _ = driver(d, "fet", X, "GPIO23\n(pin 16)", gnd, "GND\n(pin 20)",
                    "R1 100 Ω", "R2\n100 kΩ\npull-down", "Q1\n2N7000\nor BS170")
    lo, hi = 0.8, 3.2
    wire(d, top, (X, lo))
    d.add(Buzzer().up().at((X, lo)).to((X, hi)))
    wire(d, (X, hi), (X, rail))
    text(d, (X - 1.0, (lo + hi) / 2), "BZ1\nactive 5 V\nbuzzer\n(< 100 mA)", halign="right")
    # the optional diode, for an electromagnetic buzzer
    xd = X + 2.0
    dot(d, (X, lo + 0.25))
    dot(d, (X, rail))
    wire(d, (X, lo + 0.25), (xd, lo + 0.25), ls="--")
    d.add(elm.Diode().up().at((xd, lo + 0.25)).to((xd, rail)).linestyle("--").linewidth(1.1))
    wire(d, (xd, rail), (X, rail), ls="--")
    text(d, (xd + 0.5, (lo + rail) / 2), "D1 1N4001\nonly for an\nelectromagnetic\nbuzzer",
         halign="left", size=NOTE)
    pi_pin(d, (0, rail), "5V\n(pin 4)")
    wire(d, (0, rail), (X, rail))
    title(d, (-2.4, rail + 1.0), "Warning buzzer (or LED beacon) on GPIO23")
    notes(d, (-2.4, gnd - 1.0), [
        "An active buzzer has its own oscillator: 5 V on it sounds it. A 5 V LED beacon"
        " under 100 mA goes in its place.",
        "R2 holds the gate low whenever nothing drives GPIO23: silent at boot.",
        "garaged --warn gpiochip0:23  (sounds --warn-s, default 5 s, before every close press,"
        " and while the door closes)",
        "A mains or 12 V beacon: a second relay, wired as the relay on GPIO17.",
    ])
    save(d, "warning-buzzer")


# ---------------------------------------------------------------------------------------------
# 6. the 40-pin header

# physical pin -> (name, kind); kind: 3v3, 5v, gnd, up (GPIO pulled up at power-up), down
HEADER = {
    1: ("3V3", "3v3"), 2: ("5V", "5v"),
    3: ("GPIO2 SDA", "up"), 4: ("5V", "5v"),
    5: ("GPIO3 SCL", "up"), 6: ("GND", "gnd"),
    7: ("GPIO4", "up"), 8: ("GPIO14 TXD", "down"),
    9: ("GND", "gnd"), 10: ("GPIO15 RXD", "down"),
    11: ("GPIO17", "down"), 12: ("GPIO18", "down"),
    13: ("GPIO27", "down"), 14: ("GND", "gnd"),
    15: ("GPIO22", "down"), 16: ("GPIO23", "down"),
    17: ("3V3", "3v3"), 18: ("GPIO24", "down"),
    19: ("GPIO10 MOSI", "down"), 20: ("GND", "gnd"),
    21: ("GPIO9 MISO", "down"), 22: ("GPIO25", "down"),
    23: ("GPIO11 SCLK", "down"), 24: ("GPIO8 CE0", "up"),
    25: ("GND", "gnd"), 26: ("GPIO7 CE1", "up"),
    27: ("GPIO0 ID_SD", "up"), 28: ("GPIO1 ID_SC", "up"),
    29: ("GPIO5", "up"), 30: ("GND", "gnd"),
    31: ("GPIO6", "up"), 32: ("GPIO12", "down"),
    33: ("GPIO13", "down"), 34: ("GND", "gnd"),
    35: ("GPIO19", "down"), 36: ("GPIO16", "down"),
    37: ("GPIO26", "down"), 38: ("GPIO20", "down"),
    39: ("GND", "gnd"), 40: ("GPIO21", "down"),
}
# the lines this guide uses: physical pin -> (role, the setting that names it). claims() holds
# them to the lines packaging/garaged.conf.example suggests, one line per setting.
USED = {
    11: ("relay", "relay"),
    13: ("door closed", "sensor-closed"),
    15: ("door open", "sensor-open"),
    16: ("warning", "warn"),
    18: ("light", "light"),
    36: ("photo-eye", "sensor-obstruction"),
}
FILL = {"3v3": "#f5a623", "5v": "#d0021b", "gnd": "#333333", "up": "#ffffff", "down": "#b9e3a9"}
EDGE = {"3v3": "#9a6200", "5v": "#7a0010", "gnd": "#000000", "up": "#c0392b", "down": "#3d7a2a"}
WIDTH = {"up": 3.0}                    # a pulled-up pin: a thick red ring, not only a colour
USED_COLOUR = "#1f5fa8"


def _gpio(pin):
    """The BCM name of a physical pin that is a GPIO: GPIO17."""
    return HEADER[pin][0].split()[0]


def _pin(ax, x, y, kind, r=0.4):
    ax.add_patch(Circle((x, y), r, fc=FILL[kind], ec=EDGE[kind], lw=WIDTH.get(kind, 1.2),
                        zorder=3))


def header_map():
    fig, ax = plt.subplots(figsize=(9.6, 14.6))
    ax.set_xlim(-7.2, 8.2)
    ax.set_ylim(-27.2, 2.4)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.text(0.5, 1.9, "Raspberry Pi 40-pin header: the level of each GPIO at power-up",
            ha="center", va="center", fontsize=15)
    ax.text(0.5, 1.15, "physical pin numbers in the circles, BCM GPIO numbers beside them",
            ha="center", va="center", fontsize=11.5, color="#444444")
    ax.add_patch(FancyBboxPatch((-0.55, -19.55), 2.1, 20.1,
                                boxstyle="round,pad=0.05,rounding_size=0.2",
                                fc="#1d1d1d", ec="#1d1d1d", zorder=1))
    for pin, (name, kind) in HEADER.items():
        row, col = (pin - 1) // 2, (pin - 1) % 2
        x, y = col * 1.0, -row * 1.0
        used = pin in USED
        _pin(ax, x, y, kind)
        if used:
            ax.add_patch(Circle((x, y), 0.5, fc="none", ec=USED_COLOUR, lw=3.0, zorder=4))
        ax.text(x, y, str(pin), ha="center", va="center", fontsize=10, zorder=5,
                color="white" if kind in ("gnd", "5v") else "black", fontweight="bold")
        side = -1 if col == 0 else 1
        align = "right" if side < 0 else "left"
        ax.text(x + side * 0.75, y, name, ha=align, va="center", fontsize=12,
                fontweight="bold" if used else "normal",
                color=USED_COLOUR if used else "black")
        far = -4.1 if side < 0 else 5.2
        if used:
            ax.text(far, y, f"{USED[pin][0]}  --{USED[pin][1]}", ha=align, va="center", fontsize=11.5, color=USED_COLOUR,
                    fontweight="bold")
        if pin in (3, 5):
            ax.text(far, y, "1.8 kΩ pull-up on the board", ha=align, va="center",
                    fontsize=10.5, color=EDGE["up"])
        if pin in (27, 28):
            ax.text(far, y, "HAT EEPROM: leave free", ha=align, va="center", fontsize=10.5,
                    color=EDGE["up"])
    # the legend
    items = [
        ("up", "GPIO 0-8: pulled UP at power-up, high at boot: never drive a relay from them"),
        ("down", "GPIO 9-27: pulled DOWN at power-up, low at boot: use these for outputs"),
        ("3v3", "3.3 V supply (pins 1, 17)"),
        ("5v", "5 V supply (pins 2, 4)"),
        ("gnd", "ground (pins 6, 9, 14, 20, 25, 30, 34, 39)"),
    ]
    ly = -20.7
    for i, (kind, label) in enumerate(items):
        y = ly - i * 0.8
        _pin(ax, -6.6, y, kind, r=0.28)
        ax.text(-6.1, y, label, va="center", fontsize=11.5)
    y = ly - len(items) * 0.8
    ax.add_patch(Circle((-6.6, y), 0.34, fc="white", ec=USED_COLOUR, lw=3.0))
    ax.text(-6.1, y, "used in this guide: " + ", ".join(
                f"{_gpio(pin)} {role}" for pin, (role, _) in sorted(USED.items())),
            va="center", fontsize=11.5, color=USED_COLOUR)
    ax.text(-6.9, y - 0.8, "Pin 1 has a square solder pad, at the end of the header away from"
            " the USB ports (Pi 2 to 4 B);\nthe odd pins are the row nearer the middle of the"
            " board. Pulls as the BCM2835/6/7 and BCM2711\ndatasheets give them (Pi 1 B+ to"
            " Pi 4, Zero); on a Pi 5 (RP1) check with `pinctrl get`. GPIO14 (TXD)\nidles high"
            " when the serial console is on. The pull-downs in these drawings keep the relay"
            " off\nwhatever the SoC does.",
            va="top", fontsize=10.5, color="#444444", linespacing=1.35)
    _save_fig(fig, "header-map")


# ---------------------------------------------------------------------------------------------
# the whole picture, for the README: who talks to the Pi, and what the Pi drives

OVERVIEW_PI = "#1f5fa8"
OVERVIEW_COMING = "#8a8a8a"

# How the Pi moves a door, drawn on the overview's right. `opener` is the protocol (or a tuple of
# them) of the setting `opener = PROTOCOL:DEVICE` that drives it (None: the relay, `relay =`); `coming` draws
# it greyed out and marked "(coming)": not in garaged yet. claims() holds this list to what the
# settings catalog accepts, so a picture cannot call a supported opener "coming", or leave one out.
DRIVES = [
    dict(head="Relay \u2192 opener's wall button", y=9.7, link="GPIO", both=False, opener=None,
         coming=False, body="a dry-contact opener: shorting its\nbutton terminals moves the door"),
    # `auto` draws no box of its own: it finds which of these two wires the opener speaks.
    dict(head="Security+ 2.0 or 1.0 opener", y=7.5, link="UART", both=True, opener=("secplus2", "secplus1", "auto"),
         coming=False, body="a yellow, or purple, red or orange learn\nbutton: its own wire, through the UART"),
]


def _node(ax, x, y, w, h, head, body, colour="black", dashed=False, fill="white"):
    """A rounded box centred at (x, y): a bold first line, then smaller lines."""
    ax.add_patch(FancyBboxPatch((x - w / 2, y - h / 2), w, h,
                                boxstyle="round,pad=0.02,rounding_size=0.18",
                                fc=fill, ec=colour, lw=1.6, ls="--" if dashed else "-", zorder=2))
    ax.text(x, y + h / 2 - 0.3, head, ha="center", va="top", fontsize=12.5, fontweight="bold",
            color=colour, zorder=3)
    if body:
        ax.text(x, y + h / 2 - 0.78, body, ha="center", va="top", fontsize=10.5,
                color=colour if dashed else NOTE_COLOUR, linespacing=1.3, zorder=3)


def _link(ax, a, b, label, colour="black", dashed=False, both=False, above=True):
    """An arrow from a to b with its label over (or under) the middle of the line."""
    ax.annotate("", xy=b, xytext=a, zorder=1,
                arrowprops=dict(arrowstyle="<|-|>" if both else "-|>", color=colour, lw=1.5,
                                ls="--" if dashed else "-", shrinkA=0, shrinkB=0,
                                mutation_scale=14))
    mx, my = (a[0] + b[0]) / 2, (a[1] + b[1]) / 2
    ax.text(mx, my + (0.14 if above else -0.14), label, ha="center",
            va="bottom" if above else "top", fontsize=10.5, color=colour, zorder=3,
            bbox=dict(fc="white", ec="none", pad=0.6))


def overview():
    fig, ax = plt.subplots(figsize=(15.0, 8.0))
    ax.set_xlim(0, 20)
    ax.set_ylim(0.9, 11.5)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.text(10, 11.2, "garaged: a Raspberry Pi between the household and the garage door opener",
            ha="center", va="center", fontsize=15)

    # who asks: left column
    left = 2.6
    asks = [
        (9.6, "iPhone: the book's app", "Bluetooth LE, a PIN;\nthe Pi is also its iBeacon"),
        (7.4, "iPhone, Watch, CarPlay", "Apple Home (HomeKit), Siri;\naway: an Apple TV or HomePod"),
        (5.2, "Home Assistant", "MQTT discovery: a cover,\nwho opened it, faults"),
        (3.0, "A shell on the Pi", "garage-pins: open, PINs,\nhistory, who came and went"),
    ]
    for y, head, body in asks:
        _node(ax, left, y, 4.6, 1.8, head, body)

    # the Pi
    px, py, pw, ph = 9.4, 6.3, 4.4, 7.4
    _node(ax, px, py, pw, ph, "Raspberry Pi", "", colour=OVERVIEW_PI, fill="#eef4fb")
    ax.text(px, py + 2.6, "garaged", ha="center", va="center", fontsize=15, fontweight="bold",
            color=OVERVIEW_PI, zorder=3)
    ax.text(px, py + 1.9, "one gate for every press:\nnever at boot, never stale,\n"
            "never toward where the\ndoor is, warned before\na close",
            ha="center", va="top", fontsize=10.5, color=NOTE_COLOUR, linespacing=1.3, zorder=3)
    ax.text(px, py - 1.3, "PIN table (the book's EEPROM\nlayout), history, doctor",
            ha="center", va="top", fontsize=10.5, color=NOTE_COLOUR, linespacing=1.3, zorder=3)
    pl, pr = px - pw / 2, px + pw / 2
    links = ["Bluetooth LE", "Wi-Fi: HomeKit", "MQTT", "Unix socket"]
    for (y, _, _), label in zip(asks, links):
        _link(ax, (left + 2.3, y), (pl, y), label, both=True)

    # what the Pi drives and reads: right column
    right = 16.6
    for drive in DRIVES:
        colour = OVERVIEW_COMING if drive["coming"] else "black"
        _node(ax, right, drive["y"], 5.2, 1.7, drive["head"],
              drive["body"] + (" (coming)" if drive["coming"] else ""), colour=colour,
              dashed=drive["coming"])
        _link(ax, (pr, drive["y"]), (right - 2.6, drive["y"]), drive["link"], colour=colour,
              dashed=drive["coming"], both=drive["both"])
    _node(ax, right, 5.2, 5.2, 1.7, "Door sensors",
          "reed switches (closed, open),\nthe opener's photo-eye")
    _node(ax, right, 3.0, 5.2, 1.7, "Warning and light",
          "a flashing light or buzzer before\nevery close; the garage light")
    _link(ax, (right - 2.6, 5.2), (pr, 5.2), "GPIO in")
    _link(ax, (pr, 3.0), (right - 2.6, 3.0), "GPIO")
    ax.text(10, 1.4, "The opener's own safety (photo-eyes, force limit) stays in charge: garaged"
            " only ever asks it to move, as its wall button does.",
            ha="center", va="center", fontsize=11, color=NOTE_COLOUR)
    _save_fig(fig, "overview")


# ---------------------------------------------------------------------------------------------
# 8. a Security+ 2.0 opener's wire on the UART, non-inverting both ways

def opener_secplus2():
    d = drawing()
    y5, y33, ytx, yg2, yl = 9.0, 7.0, 3.0, 5.2, 7.6
    pi_pin(d, (0, y5), "5V\n(pin 2)")
    pi_pin(d, (0, y33), "3V3\n(pin 1)")
    pi_pin(d, (0, ytx), "GPIO14 TXD\n(pin 8)")
    # transmit: TXD -> Q1 (inverts) -> Q2 (inverts again) pulls the line low while TXD is low
    n1 = (2.6, ytx)
    wire(d, (0, y33), (n1[0], y33))
    wire(d, (0, ytx), n1)
    dot(d, n1)
    d.add(elm.Resistor().up().at(n1).to((n1[0], y33)))
    text(d, (n1[0] + 0.5, (ytx + y33) / 2), "R2 4.7 kΩ\npull-up", halign="left")
    q1 = d.add(elm.NMos().scale(1.3).theta(0).anchor("gate").at((6.6, ytx)))
    d.add(elm.Resistor().right().at(n1).to((5.0, ytx)))
    text(d, (3.8, ytx - 0.55), "R1 100 Ω", halign="center", valign="top")
    wire(d, (5.0, ytx), q1.gate)
    d.add(elm.Ground().at(q1.source))
    text(d, (q1.drain[0] + 0.7, ytx), "Q1\n2N7000", halign="left")
    a = (q1.drain[0], yg2)
    wire(d, q1.drain, a)
    dot(d, a)
    d.add(elm.Resistor().up().at(a).to((a[0], y5)))
    wire(d, (0, y5), (a[0], y5))
    text(d, (a[0] - 0.5, (yg2 + y5) / 2), "R3\n10 kΩ", halign="right")
    q2 = d.add(elm.NMos().scale(1.3).theta(0).anchor("gate").at((11.6, yg2)))
    wire(d, a, q2.gate)
    d.add(elm.Ground().at(q2.source))
    text(d, (q2.drain[0] + 0.7, yg2 - 0.2), "Q2\n2N7000", halign="left")
    xl = 18.5
    wire(d, q2.drain, (q2.drain[0], yl))
    d.add(elm.Resistor().right().at((q2.drain[0], yl)).to((q2.drain[0] + 2.6, yl)))
    text(d, (q2.drain[0] + 1.3, yl + 0.55), "R6 47 Ω", halign="center", valign="bottom")
    # receive: Q3 as a level shifter (gate at 3.3 V): the line low pulls RXD low, 12 V leaves it high
    y33b, yrx = -1.0, -3.6
    pi_pin(d, (0, y33b), "3V3\n(pin 17)")
    pi_pin(d, (0, yrx), "GPIO15 RXD\n(pin 10)")
    n3 = (3.6, yrx)
    dot(d, (n3[0], y33b))
    d.add(elm.Resistor().down().at((n3[0], y33b)).to(n3))
    text(d, (n3[0] + 0.5, (y33b + yrx) / 2 + 0.2), "R4 10 kΩ\npull-up", halign="left", valign="bottom")
    wire(d, (0, yrx), n3)
    dot(d, n3)
    q3 = d.add(elm.NMos().scale(1.3).theta(-90).anchor("source").at((6.4, yrx)))
    wire(d, n3, q3.source)
    wire(d, q3.gate, (q3.gate[0], y33b), (0, y33b))
    text(d, (q3.gate[0] + 0.4, yrx - 1.2), "Q3 BSS138\nor 2N7000", halign="center", valign="top")
    d.add(elm.Resistor().right().at(q3.drain).to((q3.drain[0] + 2.6, yrx)))
    text(d, (q3.drain[0] + 1.3, yrx + 0.55), "R5 1 kΩ", halign="center", valign="bottom")
    wire(d, (q3.drain[0] + 2.6, yrx), (xl, yrx), (xl, yl), (q2.drain[0] + 2.6, yl))
    xt = xl + 2.6
    ymid = (yl + yrx) / 2
    dot(d, (xl, ymid))
    wire(d, (xl, ymid), (xt, ymid), color="#b00000", lw=2.4)
    d.add(elm.Dot(open=True, radius=0.13).at((xt, ymid)))
    text(d, (xt + 0.35, ymid), "opener's red terminal\n(\"eserial\" outside\nNorth America): the\nwire, 12 V idle", halign="left")
    yg = -8.2
    pi_pin(d, (0, yg), "GND\n(pin 6)")
    wire(d, (0, yg), (xt, yg))
    d.add(elm.Dot(open=True, radius=0.13).at((xt, yg)))
    text(d, (xt + 0.35, yg), "opener's white\nterminal (common)", halign="left")
    d.add(elm.Ground().at((xl, yg)))
    dot(d, (xl, yg))
    title(d, (-2.6, y5 + 1.2), "A Security+ 2.0 opener's wire on the Pi's UART, non-inverting both ways")
    notes(d, (-2.6, yg - 1.4), [
        "Sending: TXD idles high, so Q1 conducts, Q2's gate is low and the line is free. TXD low"
        " (a 0 bit, the break) turns Q1 off,",
        "R3 lifts Q2's gate to 5 V and Q2 pulls the wire to ground: low on TXD is low on the wire."
        " R2 keeps the line free while the Pi boots.",
        "Receiving: Q3's gate sits at 3.3 V. The wire at 12 V leaves Q3 off and R4 holds RXD high;"
        " the wire pulled low (by anyone)",
        "pulls RXD low through Q3: low on the wire is low on RXD. garaged hears its own packets too,"
        " and ignores them.",
        "The Pi is powered by its own supply, not from the wire. All grounds (Pi, Q1, Q2, the"
        " opener's white terminal) are one.",
        "Pi 3, 4, 400, Zero 2 W: config.txt enable_uart=1, dtoverlay=miniuart-bt, core_freq=250"
        " (Bluetooth kept); garaged --opener secplus2:/dev/serial0.",
        "Pi 5: config.txt dtparam=uart0=on; garaged --opener secplus2:/dev/ttyAMA0."
        " No serial console on it (cmdline.txt).",
    ])
    save(d, "opener-secplus2")


# ---------------------------------------------------------------------------------------------
# what the pictures say garaged does, held to what it does

def _gpio_number(pin):
    return int(_gpio(pin)[len("GPIO"):])


def claims():
    """What the pictures claim that garaged does not bear out, one sentence each (none: all hold).
    What garaged takes comes from docs/configuration.md, which `garaged settings-reference`
    writes from the settings catalog (CI checks the committed page is what the catalog makes):
    its settings, and the protocols its `opener` row accepts (secplus2:DEVICE). The lines the
    header map marks come from packaging/garaged.conf.example, the config the package ships.
    Checked: the openers the overview draws (DRIVES) against the accepted protocols, both ways;
    every --flag a picture shows is a setting, every PROTOCOL:/dev/... an accepted opener, every
    `--KEY gpiochip0:N` the line the example suggests for KEY; and the header map's lines are
    the example's, one setting each."""
    root = os.path.dirname(HERE)
    with open(os.path.join(root, "docs", "configuration.md"), encoding="utf-8") as f:
        reference = f.read()
    with open(os.path.join(root, "packaging", "garaged.conf.example"), encoding="utf-8") as f:
        example = f.read()
    problems = []
    rows = re.findall(r"^\| `([a-z0-9-]+)` \| `--(\[no-\])?", reference, re.M)
    flags = {key for key, _ in rows} | {"no-" + key for key, negatable in rows if negatable}
    opener_row = re.search(r"^\| `opener` \|.*$", reference, re.M)
    protocols = set(re.findall(r"\b([a-z][a-z0-9]*):DEVICE\b", opener_row.group(0))) if opener_row else set()
    if not rows or not protocols:
        return ["docs/configuration.md has no settings table with an `opener` row naming"
                " PROTOCOL:DEVICE; claims() in wiring/diagrams.py reads that table: update it to"
                " the page's form"]
    accepted = ", ".join(f"{p}:DEVICE" for p in sorted(protocols))

    # A box may draw several openers (`opener` a tuple of protocols).
    def drawn(d):
        return (d["opener"],) if isinstance(d["opener"], str) else tuple(d["opener"] or ())
    working = {p for d in DRIVES if not d["coming"] for p in drawn(d)}
    coming = {p for d in DRIVES if d["coming"] for p in drawn(d)}
    for p in sorted(working - protocols):
        problems.append(f"overview: draws the {p} opener as working, but garaged's opener setting"
                        f" takes only {accepted}: mark it coming=True in DRIVES, or remove it")
    for p in sorted(coming & protocols):
        problems.append(f"overview: draws the {p} opener as coming, but garaged takes"
                        f" opener = {p}:DEVICE: set coming=False for it in DRIVES")
    for p in sorted(protocols - working - coming):
        problems.append(f"overview: garaged takes opener = {p}:DEVICE, but the overview does not"
                        f" draw that opener: add it to DRIVES")

    top = example.split("\n# [door ", 1)[0]
    suggested = {}
    for key, n in re.findall(r"^(?:# )?([a-z-]+) = gpiochip0:(\d+)$", top, re.M):
        suggested.setdefault(key, set()).add(int(n))
    for name, texts in sorted(DRAWN.items()):
        for text_ in texts:
            for flag in re.findall(r"(?<![\w-])--([a-z][a-z0-9-]*)", text_):
                if flag not in flags:
                    problems.append(f"wiring/{name}: shows --{flag}, which is no setting of garaged"
                                    " (docs/configuration.md lists them)")
            for p in re.findall(r"\b([a-z][a-z0-9]*):/dev/", text_):
                if p not in protocols:
                    problems.append(f"wiring/{name}: shows the opener {p}:/dev/..., but garaged"
                                    f" takes only {accepted}")
            for key, n in re.findall(r"--([a-z-]+) gpiochip0:(\d+)", text_):
                if suggested.get(key) != {int(n)}:
                    problems.append(f"wiring/{name}: shows --{key} gpiochip0:{n}, but"
                                    f" packaging/garaged.conf.example suggests {key} ="
                                    f" {_lines(suggested.get(key))}")
    by_line = {}
    for key, numbers in suggested.items():
        for n in numbers:
            by_line.setdefault(n, []).append(key)
    for n, keys in sorted(by_line.items()):
        if len(keys) > 1:
            problems.append(f"packaging/garaged.conf.example suggests gpiochip0:{n} for"
                            f" {' and '.join(sorted(keys))}: give each a line of its own")
    marked = {key: _gpio_number(pin) for pin, (_, key) in USED.items()}
    for key in sorted(set(marked) | set(suggested)):
        if suggested.get(key) != ({marked[key]} if key in marked else None):
            problems.append(f"header-map: marks {f'GPIO{marked[key]}' if key in marked else 'no line'}"
                            f" for {key}, but packaging/garaged.conf.example suggests"
                            f" {_lines(suggested.get(key))}: make USED and the example agree")
    return problems


def _lines(numbers):
    return " and ".join(f"gpiochip0:{n}" for n in sorted(numbers)) if numbers else "no line"


# ---------------------------------------------------------------------------------------------

DRAWINGS = {
    "relay-mosfet": relay_mosfet,
    "relay-bjt": relay_bjt,
    "relay-board-active-low": relay_board_active_low,
    "reed-switch": reed_switch,
    "warning-buzzer": warning_buzzer,
    "header-map": header_map,
    "overview": overview,
    "opener-secplus2": opener_secplus2,
}


def main():
    """diagrams.py [--out DIR] [--claims] [NAME ...]: draws the pictures named (all by default)
    into DIR (beside this file by default); with --claims, then checks what they say against
    the code (claims()) and exits 1 when any claim does not hold."""
    global OUT
    args = sys.argv[1:]
    if args[:1] == ["--out"] and len(args) >= 2:
        OUT = os.path.abspath(args[1])
        args = args[2:]
    check = args[:1] == ["--claims"]
    if check:
        args = args[1:]
    names = args or list(DRAWINGS)
    unknown = [n for n in names if n not in DRAWINGS]
    if unknown:
        sys.exit(f"diagrams.py: no drawing named {', '.join(unknown)}; there are:"
                 f" {', '.join(DRAWINGS)}")
    for name in names:
        DRAWINGS[name]()
    if check:
        problems = claims()
        for problem in problems:
            print(f"diagrams.py: {problem}", file=sys.stderr)
        if problems:
            sys.exit(1)


if __name__ == "__main__":
    main()
