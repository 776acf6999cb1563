"""gpulane: a cited knowledge graph of GPU software compatibility, and a query engine on it."""

__version__ = "0.1.0"
