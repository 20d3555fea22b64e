"""Placeholder: being written."""
from pathlib import Path


class _Pending:
    name = "claude_ai"
    claims_directories = False

    def detect(self, path: Path) -> bool:
        return False

    def read(self, path, problems):
        return iter(())


READER = _Pending()
