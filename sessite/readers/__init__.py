"""Format readers: the toolkit they share, the formats, and archive discovery.

- ``formats/<name>/``: one package per format, each exposing ``READER``; ``formats.FORMATS`` is
  the detection order.
- ``discovery``: the walk that hands each path to the reader that claims it (``discover``), and
  the reader registry (``registry``).
- The toolkit beside them: ``base`` (the Reader, one sniff per file, times), ``files`` (reading
  files inside the archive only), ``safejson`` (JSON no value can break), ``finish`` (what every
  session passes on its way out), ``builder`` (a session's bookkeeping), ``tools`` (tool
  categories and a call's command, path and diff), ``ledger`` (each record's fate) and ``_util``.
"""

from sessite.model import Problems
from sessite.readers.base import Reader, Sniff, parse_time, sniff
from sessite.readers.discovery import Claim, DiscoveryResult, SourceFilter, discover, group_copies, registry
from sessite.readers.files import iter_jsonl, load_json

__all__ = [
    "Claim",
    "DiscoveryResult",
    "Problems",
    "Reader",
    "Sniff",
    "SourceFilter",
    "discover",
    "group_copies",
    "iter_jsonl",
    "load_json",
    "parse_time",
    "registry",
    "sniff",
]
