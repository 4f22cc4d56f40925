"""xrelax: Relax on xDSL."""
