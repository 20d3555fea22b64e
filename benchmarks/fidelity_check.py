"""Fidelity of sessite on real logs: every record shown, merged or left out with a reason.

    python benchmarks/fidelity_check.py ../shared/formats/real [--json] [--details N] [--site DIR]

Prints, per format: records and their fates (and any no reader accounts for), the
share of user prompts and assistant texts that appear on a built page, the calls
the source answers that are shown with their result, and raw-JSON events.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fidelity.check import check  # noqa: E402  (benchmarks/ is not a package)
from fidelity.report import as_rows, as_text  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("archive", type=Path)
    parser.add_argument("--json", action="store_true", help="figures as JSON")
    parser.add_argument("--details", type=int, default=5, help="examples listed per kind of gap")
    parser.add_argument("--site", type=Path, help="keep the built site here")
    args = parser.parse_args()
    report = check(args.archive.resolve(), args.site)
    if args.json:
        print(json.dumps({"formats": as_rows(report), "unread": [str(p) for p in report.unread]}, indent=2))
    else:
        print(as_text(report, args.details))
    return 0


if __name__ == "__main__":
    sys.exit(main())
