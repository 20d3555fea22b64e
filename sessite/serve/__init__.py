"""The preview server: incremental rebuilds, live reload and the agents' RPC endpoints."""

from sessite.serve.server import serve

__all__ = ["serve"]
