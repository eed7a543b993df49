"""One-off studies: questions asked once of the engine, the search or the accuracy benchmark,
kept with their outputs (see ``benchmarks/studies/README.md``)."""
