"""A title or axis label broken into lines as wide as its axes, through matplotlib's
public API.

matplotlib's own ``wrap=True`` breaks a text at the figure's edges only, so a title
wider than its axes ran over the legend beside them or the next panel. The width of the
axes is known only once the layout has placed them, so the break is made there: a
figure's layout engine is :class:`WrappingLayout`, matplotlib's constrained layout that
first breaks the texts given to it (:func:`wrap_to_axes`) at the axes' width, lays the
figure out, and breaks and lays it out once more where the layout changed that width
enough to move a break. A figure with a layout engine of its own (a notebook's
``plt.subplots(layout="tight")``) keeps it, and its text is broken once, at the width its
axes have when it is drawn on them.

Imported by the plotting functions only, as it imports matplotlib.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from matplotlib import cbook
from matplotlib.layout_engine import ConstrainedLayoutEngine
from matplotlib.textpath import text_to_path

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.text import Text

__all__ = ["WrappingLayout", "broken", "wrap_to_axes"]


class WrappingLayout(ConstrainedLayoutEngine):
    """Constrained layout that breaks its figure's wrapped texts at their axes' width.

    Parameters
    ----------
    **kwargs
        As :class:`matplotlib.layout_engine.ConstrainedLayoutEngine`'s.
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        #: Each text to break: its axes, its whole text, and the lines it was last given.
        self.wrapped: dict[Text, tuple[Axes, str, str]] = {}

    def execute(self, fig: Figure) -> None:
        """Break the texts at their axes' width, lay ``fig`` out, and again where the
        layout moved a break.

        Parameters
        ----------
        fig : matplotlib Figure
            The figure being drawn.
        """
        self._break_all()
        super().execute(fig)
        if self._break_all():
            super().execute(fig)

    def _break_all(self) -> bool:
        """Break every text at its axes' width; whether any text changed."""
        changed = False
        for text, (ax, whole, given) in list(self.wrapped.items()):
            if text.get_text() != given:  # set anew since (a report's own panel titles)
                del self.wrapped[text]
                continue
            lines = broken(whole, text, ax.get_window_extent().width)
            changed |= lines != given
            text.set_text(lines)
            self.wrapped[text] = (ax, whole, lines)
        return changed


def wrap_to_axes(text: Text, ax: Axes) -> None:
    """Keep ``text`` (a title or axis label of ``ax``) broken at spaces into lines no
    wider than ``ax``: at every layout of a figure with a :class:`WrappingLayout`, else
    once, now.

    Parameters
    ----------
    text : matplotlib Text
        Its text, with a no-break space (U+00A0) where it must not be broken.
    ax : matplotlib Axes
        Whose width the lines keep within.
    """
    engine = ax.figure.figure.get_layout_engine()  # a subfigure's figure is the whole
    if isinstance(engine, WrappingLayout):
        engine.wrapped[text] = (ax, text.get_text(), text.get_text())
    else:
        text.set_text(broken(text.get_text(), text, ax.get_window_extent().width))


def broken(whole: str, text: Text, room: float) -> str:
    """``whole`` broken at its spaces into lines of at most ``room`` pixels in ``text``'s
    font, as many words on a line as fit (a word wider than ``room`` on a line of its
    own); its own line breaks kept.

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
        for word in given.split(" "):
            longer = f"{line} {word}" if line else word
            if line and _width(longer, text) > room:
                lines.append(line)
                longer = word
            line = longer
        lines.append(line)
    return "\n".join(lines)


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
