"""Where a page needs more than the site's Content-Security-Policy (settings), and why."""

from csp.constants import UNSAFE_INLINE
from csp.decorators import csp_update

# plotly.js styles what it draws through `style` attributes and a stylesheet it adds at run
# time, which `style-src 'self'` blocks. Pages with charts allow inline styles, and only
# styles: their scripts stay the app's own, and the Markdown they show is sanitised of style
# attributes before it is rendered.
CHART_STYLES = {"style-src": [UNSAFE_INLINE]}
chart_styles = csp_update(CHART_STYLES)


def chart_styles_allow(response):
    """`chart_styles` for the response of a page that draws charts only sometimes."""
    response._csp_update = CHART_STYLES
    return response
