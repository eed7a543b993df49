"""The kernel search: settings, the grammar of operators, starting values and bounds from the
data, fitting one candidate through an engine, BIC scores, the level loop and checkpoints.
"""
