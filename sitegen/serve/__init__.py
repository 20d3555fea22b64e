"""The preview server: incremental rebuilds, live reload and the agents' RPC endpoints."""

from sitegen.serve.server import serve

__all__ = ["serve"]
