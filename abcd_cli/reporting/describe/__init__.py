"""Plain-English descriptions of additive components (thesis ch. 4, "Automatic description").

Each component is one product of base kernels and change factors, described by a noun phrase
(:mod:`.phrases`), a paragraph (:mod:`.paragraphs`) and a sentence on its extrapolation
(:mod:`.extrapolation`); the report's summary and the model checks' verdict are in
:mod:`.summary`. Factors and their roles are in :mod:`.factors`, the data's range, spacing and
trends in :mod:`.shape`. Numbers, lengths and dates are worded by
:mod:`abcd_cli.reporting.wording`; nothing here writes HTML or draws.
"""

from abcd_cli.reporting.describe.extrapolation import describe_extrapolation
from abcd_cli.reporting.describe.paragraphs import CV_WARNING, component_paragraph
from abcd_cli.reporting.describe.phrases import noun_phrase
from abcd_cli.reporting.describe.shape import mean_trend
from abcd_cli.reporting.describe.summary import describe_checks, summary_sentences

__all__ = [
    "CV_WARNING",
    "component_paragraph",
    "describe_checks",
    "describe_extrapolation",
    "mean_trend",
    "noun_phrase",
    "summary_sentences",
]
