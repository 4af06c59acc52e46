"""A title or axis label broken into lines that fit its axes, through matplotlib's public
API.

matplotlib's own ``wrap=True`` breaks a text at the figure's edges only, so a title
wider than its axes ran over the legend beside them or the next panel, and a y label
longer than its axes are tall ran past a short plot's top and bottom and was cut at the
figure's edge. A title or x label is kept to its axes' width, a y label to their height
(:func:`axes_room`). That room is known only once the layout has placed the axes, so the
break is made there, at every layout of the figure (:meth:`Breaks.lay_out`): the texts
are broken at their axes' room, the figure is laid out, and the texts are broken and the
figure laid out once more where the layout changed that room enough to move a break.

The layout is the figure's own engine's. A figure simlab makes, or one with none, gets
:class:`WrappingLayout`, matplotlib's constrained layout that breaks its texts so. A
figure whose layout engine the user chose (a notebook's ``plt.subplots(layout="tight")``)
keeps it, the very engine with its settings: its ``execute``, which the figure calls
when drawn, runs the engine's own layout with the texts broken around it
(:class:`BrokenAround`): broken once, at the room the axes had before any layout, a title
that fitted then ran past the figure's edge once the engine had made room for a legend
beside the axes.

Imported by the plotting functions only, as it imports matplotlib.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any

import matplotlib
from matplotlib import cbook
from matplotlib.layout_engine import ConstrainedLayoutEngine, LayoutEngine
from matplotlib.textpath import text_to_path

if TYPE_CHECKING:
    from collections.abc import Callable

    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.text import Text

__all__ = [
    "Breaks",
    "BrokenAround",
    "WrappingLayout",
    "axes_room",
    "broken",
    "png_bytes",
    "wrap_to_axes",
]


class Breaks:
    """The texts of one figure kept broken at their axes' room (:func:`axes_room`)."""

    def __init__(self) -> None:
        #: Each text to break: its axes, its whole text, and the lines it was last given.
        self.wrapped: dict[Text, tuple[Axes, str, str]] = {}

    def keep(self, text: Text, ax: Axes) -> None:
        """Keep ``text`` broken at the room of ``ax``, from the next layout on.

        Parameters
        ----------
        text : matplotlib Text
            Its text, with a no-break space (U+00A0) where it must not be broken.
        ax : matplotlib Axes
            Whose room the lines keep within.
        """
        self.wrapped[text] = (ax, text.get_text(), text.get_text())

    def lay_out(self, execute: Callable[[Figure], Any], fig: Figure) -> None:
        """Break the texts at their axes' room, lay ``fig`` out with ``execute`` (a layout
        engine's), and again where the layout moved a break.

        Parameters
        ----------
        execute : callable
            A layout engine's layout of a figure.
        fig : matplotlib Figure
            The figure being drawn.
        """
        self._break_all()
        execute(fig)
        if self._break_all():
            execute(fig)

    def _break_all(self) -> bool:
        """Break every text at its axes' room; whether any text changed."""
        changed = False
        for text, (ax, whole, given) in list(self.wrapped.items()):
            if text.get_text() != given:  # set anew since (a report's own panel titles)
                del self.wrapped[text]
                continue
            lines = broken(whole, text, axes_room(text, ax))
            changed |= lines != given
            text.set_text(lines)
            self.wrapped[text] = (ax, whole, lines)
        return changed


class WrappingLayout(ConstrainedLayoutEngine):
    """Constrained layout that breaks its figure's wrapped texts at their axes' room.

    Parameters
    ----------
    **kwargs
        As :class:`matplotlib.layout_engine.ConstrainedLayoutEngine`'s.
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.breaks = Breaks()

    def execute(self, fig: Figure) -> None:
        """Lay ``fig`` out with its texts broken (:meth:`Breaks.lay_out`).

        Parameters
        ----------
        fig : matplotlib Figure
            The figure being drawn.
        """
        self.breaks.lay_out(super().execute, fig)


class BrokenAround:
    """The ``execute`` of a layout engine the user chose, set on that engine alone: its
    own class's layout, with the texts broken around it (:meth:`Breaks.lay_out`). The
    figure keeps its engine, of its class and with its settings (``get()``, ``set()``),
    and a figure pickled with it is unpickled with it.

    Parameters
    ----------
    engine : matplotlib LayoutEngine
        The figure's layout engine.
    """

    def __init__(self, engine: LayoutEngine) -> None:
        self.engine = engine
        self.breaks = Breaks()

    def __call__(self, fig: Figure) -> None:
        """Lay ``fig`` out as its engine does, its texts broken around the layout.

        Parameters
        ----------
        fig : matplotlib Figure
            The figure being drawn.
        """
        self.breaks.lay_out(self._own_layout, fig)

    def _own_layout(self, fig: Figure) -> None:
        type(self.engine).execute(self.engine, fig)


def _breaks_of(engine: LayoutEngine) -> Breaks:
    """The texts ``engine`` keeps broken: a :class:`WrappingLayout`'s, or those broken
    around the layout of an engine the user chose (:class:`BrokenAround`, set as its
    ``execute`` the first time)."""
    if isinstance(engine, WrappingLayout):
        return engine.breaks
    around = vars(engine).get("execute")
    if not isinstance(around, BrokenAround):
        around = BrokenAround(engine)
        engine.execute = around  # type: ignore[method-assign]
    return around.breaks


def wrap_to_axes(text: Text, ax: Axes) -> None:
    """Keep ``text`` (a title or axis label of ``ax``) broken at spaces into lines that
    fit ``ax`` (:func:`axes_room`): at every layout of its figure, by whichever layout engine
    the figure has (:func:`_breaks_of`); once, now, on a figure with none.

    Parameters
    ----------
    text : matplotlib Text
        Its text, with a no-break space (U+00A0) where it must not be broken.
    ax : matplotlib Axes
        Whose room the lines keep within.
    """
    engine = ax.figure.figure.get_layout_engine()  # a subfigure's figure is the whole
    if engine is None:
        text.set_text(broken(text.get_text(), text, axes_room(text, ax)))
    else:
        _breaks_of(engine).keep(text, ax)


def axes_room(text: Text, ax: Axes) -> float:
    """The longest line ``text`` may have on ``ax``, in pixels: the axes' height for a
    text drawn upright (a y label), else their width.

    Parameters
    ----------
    text : matplotlib Text
        A title or axis label of ``ax``.
    ax : matplotlib Axes
        Its axes.

    Returns
    -------
    float
        The room, in pixels.
    """
    box = ax.get_window_extent()
    return float(box.height if text.get_rotation() % 180 == 90 else box.width)


def broken(whole: str, text: Text, room: float) -> str:
    """``whole`` broken at its spaces into lines of at most ``room`` pixels in ``text``'s
    font, as many words on a line as fit; a word wider than ``room`` broken at its
    no-break spaces too (``(HP, misses 0)`` on a y axis 60 px tall ran past the figure's
    edge), a part of it wider still on a line of its own; its own line breaks kept.

    Parameters
    ----------
    whole : str
        The text.
    text : matplotlib Text
        The artist it is drawn as (its font and figure).
    room : float
        The widest line, in pixels.

    Returns
    -------
    str
        The lines, joined by newlines.
    """
    lines: list[str] = []
    for given in whole.split("\n"):
        line = ""
        for word in _words(given, text, room):
            longer = f"{line} {word}" if line else word
            if line and _width(longer, text) > room:
                lines.append(line)
                longer = word
            line = longer
        lines.append(line)
    return "\n".join(lines)


#: The space a text is not broken at while its word fits (``simlab.report.plots.NO_BREAK``).
NO_BREAK = "\u00a0"


def _words(line: str, text: Text, room: float) -> list[str]:
    """The words of ``line`` (between its spaces), each one wider than ``room`` in
    ``text``'s font split at its no-break spaces."""
    words: list[str] = []
    for word in line.split(" "):
        wide = NO_BREAK in word and _width(word, text) > room
        words += word.split(NO_BREAK) if wide else [word]
    return words


def _width(line: str, text: Text) -> float:
    """The width of ``line`` in ``text``'s font, in pixels: measured by the figure's
    renderer where its canvas has one (Agg: reports and notebooks), else from the font's
    outlines."""
    fig = text.get_figure(root=True)
    prop, math = text.get_fontproperties(), cbook.is_math_text(line)
    get_renderer = getattr(fig.canvas, "get_renderer", None) if fig is not None else None
    if get_renderer is not None:
        return float(get_renderer().get_text_width_height_descent(line, prop, math)[0])
    dpi = fig.dpi if fig is not None else 72.0
    points = text_to_path.get_text_width_height_descent(line, prop, math)[0]
    return float(points) * dpi / 72.0


def png_bytes(fig: Figure, **options: Any) -> bytes:
    """``fig`` saved as a PNG (``savefig``), its layout made once.

    ``savefig`` on a figure with a layout engine goes over every artist twice: a draw
    that renders nothing, for the layout, then the drawing itself. The first pass, all
    but its layout, cost a report's plot about a tenth of its time. Here the layout is
    made by the figure's own engine at the resolution ``savefig`` draws at, and the
    figure saved without an engine, so drawn once: the same pixels.

    Parameters
    ----------
    fig : matplotlib Figure
        A figure on an Agg canvas (a report's), its layout engine's layout not made yet.
    **options
        As ``savefig``'s (``metadata=...``); not ``dpi`` or ``bbox_inches``.

    Returns
    -------
    bytes
        The PNG.
    """
    dpi = matplotlib.rcParams["savefig.dpi"]
    if dpi != "figure":  # savefig draws at that resolution: so is the layout made
        fig.set_dpi(dpi)
    engine = fig.get_layout_engine()
    if engine is not None:
        engine.execute(fig)
        with matplotlib.rc_context({"figure.autolayout": False,
                                    "figure.constrained_layout.use": False}):  # fmt: skip
            fig.set_layout_engine(None)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", **options)
    return buf.getvalue()
