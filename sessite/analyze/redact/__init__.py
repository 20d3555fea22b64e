"""Secret redaction: credentials are replaced by a visible ``[REDACTED:kind]`` marker
before anything is rendered, indexed or exported.

``by_shape`` knows secrets by their shape (a vendor prefix and body), ``by_place`` by
where they stand (after a name that says secret, in a header, a URL, a command
option), ``pii`` card and social security numbers, ``scanners`` what needs a whole
string (a Kubernetes Secret, a key's last lines); ``rules`` puts them in order.
``engine`` redacts one string (cheap tests first: most strings run no pattern at
all), ``normalize`` takes a second look through escapes and line continuations,
``redactor`` walks values and sessions, ``split`` joins keys cut across events.
With ``--redact-pii``, ``personal`` (home folders, user names, e-mails) and
``network`` (host names, IP addresses) add their rules after the secrets ones.
"""

from sessite.analyze.redact.redactor import Redactor
from sessite.analyze.redact.rules import PATTERNS, SCANS, RedactionConfigError, compile_extra

__all__ = ["PATTERNS", "SCANS", "RedactionConfigError", "Redactor", "compile_extra"]
