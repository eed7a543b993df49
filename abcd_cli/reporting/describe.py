"""Plain-English descriptions of additive components (thesis ch. 4, "Automatic description").

The entry point of the wording of components. Each component is one product of base kernels and
change factors, described by a noun phrase (:mod:`abcd_cli.reporting.phrases`), a paragraph
(:mod:`~abcd_cli.reporting.paragraphs`) and a sentence on its extrapolation
(:mod:`~abcd_cli.reporting.extrapolation`); the report's summary and the model checks' verdict
are in :mod:`~abcd_cli.reporting.summary`. Factors and their roles are in
:mod:`~abcd_cli.reporting.factors`, the data's range, spacing and trends in
:mod:`~abcd_cli.reporting.trends`. Numbers, lengths and dates are worded by
:mod:`~abcd_cli.reporting.wording`; nothing here writes HTML or draws.
"""

from abcd_cli.reporting.curves import mean_trend
from abcd_cli.reporting.extrapolation import describe_extrapolation
from abcd_cli.reporting.paragraphs import component_paragraph
from abcd_cli.reporting.phrases import noun_phrase
from abcd_cli.reporting.statistics_text import CV_WARNING
from abcd_cli.reporting.summary import describe_checks, summary_sentences

__all__ = [
    "CV_WARNING",
    "component_paragraph",
    "describe_checks",
    "describe_extrapolation",
    "mean_trend",
    "noun_phrase",
    "summary_sentences",
]
