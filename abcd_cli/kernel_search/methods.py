"""The inference methods' registry: each method is one module whose ``search`` runs it, and
one line here. It names modules and imports none of them (``infer`` runs the one the settings
name), so the settings can check a method's name without importing any method.
"""

#: Each method's name (``settings.method``, ``--method``) and the module whose ``search`` runs
#: it: "greedy" chooses one structure by BIC (the original ABCD search); "posterior" weighs the
#: greedy search's best structures by their evidence, with their parameters integrated out and
#: drawn (``posterior``); with several seeds, the best structures of all their searches, jointly
#: (``joint``); "smc" samples structures and parameters by sequential Monte Carlo (``smc``).
REGISTRY: dict[str, str] = {
    "greedy": "abcd_cli.kernel_search.greedy",
    "posterior": "abcd_cli.kernel_search.pool_posterior",
    "smc": "abcd_cli.kernel_search.smc_method",
}
#: The methods' names, in the registry's order.
METHODS: tuple[str, ...] = tuple(REGISTRY)
