"""Numbers in the analysis tables: `figure` and `share` as people read them, `raw` for the
table's data-value attributes, which charts and CSV downloads read (full precision)."""

from django import template

register = template.Library()

MISSING = "\N{EM DASH}"


@register.filter
def raw(value) -> str:
    """The number as Python writes it back exactly; "" for none."""
    if value is None or value == "":
        return ""
    return repr(float(value)) if isinstance(value, float) else str(value)


@register.filter
def figure(value, digits: int = 2) -> str:
    """A whole number as it is, another with `digits` decimals; a dash for none."""
    if value is None or value == "":
        return MISSING
    if isinstance(value, int) or float(value).is_integer():
        return str(int(value))
    return f"{value:.{int(digits)}f}"


@register.filter
def share(value) -> str:
    """A share as a percentage with one decimal."""
    return MISSING if value is None else f"{100 * value:.1f}%"


@register.filter
def p_value(value) -> str:
    return MISSING if value is None else ("< 0.001" if value < 0.001 else f"{value:.3f}")


@register.filter
def at(sequence, index):
    """The sequence's element at `index` (templates cannot subscript with a variable)."""
    return sequence[index]
