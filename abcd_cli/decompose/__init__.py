"""Decomposition of a fitted model: additive components with their posteriors, their order by
cross-validated MAE, the R² table and the posterior predictive checks, as plain records for the
report (through the engine interface only).
"""
