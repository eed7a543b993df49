"""The report: one function per section, the English (phrases, paragraphs, summary), the one
number formatter, the figures, and HTML / PDF / JSON rendering. It presents; it computes nothing.
"""
