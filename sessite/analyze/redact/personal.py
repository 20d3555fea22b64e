"""Personal data (opt-in, ``--redact-pii``): who the user is and which machines they use.

- A home folder in a path becomes ``~`` (``/home/alice``, ``/var/home/alice``,
  ``/Users/alice``, ``C:\\Users\\alice``, ``/root``, and the home folder of the
  account running the build, wherever it is).
- User names become ``[REDACTED:user]``: the login of a home folder, of a shell
  prompt (``alice@laptop:~$``, ``[alice@laptop dir]$``), of a URL
  (``https://alice@host``), of an scp-style or ssh target, and the value of a
  mapping entry that names the user (``"username": "alice"``). A login learnt so
  (three characters or more, not a generic account or a common word such as
  ``root``, ``git``, ``admin``, ``will``) is redacted wherever it stands as a
  whole word, in every form a path gives it (``-home-alice-proj``).
- E-mail addresses become ``[REDACTED:email]`` (not ``noreply@…``, not the
  RFC 2606 placeholders ``example.com``, ``*.test``; ``git@github.com:org/repo``
  is a git remote, not an address).
- Host names and IP addresses: see ``network``.

``pii_allow`` keeps what the user wants public: a glob matched, in any case,
against the value found (``*@mycompany.com``, ``10.0.*``, ``alice``), or a bare
domain, which keeps that host, the hosts under it and the addresses at them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from fnmatch import fnmatchcase
from pathlib import Path

from sessite.analyze.redact.network import (
    PRIVATE_HINTS,
    REMOTE_HINTS,
    after_escape,
    ip_addresses,
    is_placeholder_domain,
    is_public_host,
    private_hosts,
    remote_hosts,
    word_start,
)
from sessite.analyze.redact.types import ScanSpec, Span

# Accounts that belong to no one in particular, and words too common to redact wherever they stand.
_GENERIC_WORDS = """
    root admin administrator user users guest git hg svn ubuntu debian centos fedora ec2-user azureuser opc pi
    vagrant runner docker node www-data nobody daemon postgres mysql redis nginx apache jenkins gitlab-runner build
    builder ci deploy test tester dev developer app me you name username yourname your-name your_name your_user
    example default public shared linuxbrew home work code main master data server local host email ip redacted
    will mark bill max min art sun run job web key ray rose grace hope joy new old src tmp temp
"""
_GENERIC = frozenset(_GENERIC_WORDS.split())
# Logins that are also words of code and prose (a login "python" or "github" is real, but redacting
# the word wherever it stands would turn "python -m pytest" into "[REDACTED:user] -m pytest" and
# break every github.com link): such a login is redacted only where it stands as the login.
_COMMON_WORDS_TEXT = """
python python3 java javascript ruby rust golang go perl php swift kotlin scala haskell lua julia node deno bun
npm pip yarn cargo gem brew conda class def func function import export return module package object string
github gitlab bitbucket google apple amazon microsoft linux unix windows macos darwin android ios docker
kubernetes chrome firefox safari code coder coding hacker admin owner staff team project projects workspace
desktop laptop mac macbook cloud dev devops ops bot agent claude codex gemini cursor openai anthropic
alpha beta gamma delta omega zero one two three hello world foo bar baz test tests demo sample
"""
_COMMON_WORDS = frozenset(_COMMON_WORDS_TEXT.split())
_LOGIN_BEFORE = re.compile(r"(?i)(?:home|users)[-/\\]+\Z")
_LOGIN = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]{1,31}")
_PERSON = re.compile(r"[A-Z][a-z]+(?:[ '\-][A-Z][A-Za-z'\-]+){1,3}")
# Mapping entries whose value is the user (key lower-cased, - and _ dropped).
_IDENTITY_KEYS = frozenset(
    {"user", "username", "userlogin", "login", "fullname", "authorname", "committername", "gitauthorname", "ownername"}
)

_BOUNDARY_AFTER = r"(?=$|[/\\\s\"'`:;,)\]}>|])"
# Each pattern starts with a literal (the engine of ``re`` then skips ahead with a fast search);
# what stands before it is checked in ``_home_start``.
_UNIX_HOME = re.compile(r"/(?:home|Users)/(?P<name>[A-Za-z0-9_][A-Za-z0-9_.@\-]{0,63})" + _BOUNDARY_AFTER)
_WINDOWS_HOME = re.compile(r"Users(?P<sep>\\+|/)(?P<name>[^\\/\r\n\"'<>|:*?]{1,64}(?=[\\/])|[^\\/\s\"'<>|:*?]{1,64})")
_ROOT_HOME = re.compile(r"/root" + _BOUNDARY_AFTER)
_HOME_HINTS = ("/home/", "/users/", "\\users\\", "/root")
_NOT_A_HOME = frozenset({"shared", "public", "default", "all users", "default user", "linuxbrew", "guest"})

_LOCAL_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._%+-")
_DOMAIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9\-]*(?:\.[A-Za-z0-9\-]+)*")
_URL_USER = re.compile(r"://(?P<user>[A-Za-z0-9._%+\-]{1,64})(?=(?::[^@/\s]*)?@)")
_EMAIL_DOMAIN = re.compile(r".*\.[A-Za-z]{2,24}")
_PROMPT_AFTER = re.compile(r"(?::(?:~|/)|[ \t]+(?:~|/)\S*[ \t]*[%$#])")  # alice@laptop:~$, alice@laptop ~ %
_DIGESTS = frozenset({"md5", "sha1", "sha224", "sha256", "sha384", "sha512", "blake2b", "blake3"})
_NOREPLY = frozenset({"noreply", "no-reply", "donotreply", "do-not-reply", "git"})
_HOST_LIKE = re.compile(r".*[0-9\-.]")  # a learnt host name must look like one (not "laptop")


class Personal:
    """What is redacted as personal data, and the names learnt so far (a login once seen in a
    path is redacted everywhere after). ``generation`` grows with each name learnt, so a walk
    can tell that strings it redacted before the name was known must be redacted again."""

    def __init__(self, allow: Iterable[str] = (), home: str | None = None) -> None:
        self._globs = tuple(a.lower() for a in allow if a and any(c in a for c in "*?["))
        self._domains = tuple(a.lower().lstrip(".") for a in allow if a and not any(c in a for c in "*?[@"))
        self._exact = frozenset(a.lower() for a in allow if a)
        self._names: dict[str, str] = {}  # lower-cased name -> kind (user, host)
        self._known: re.Pattern[str] | None = None
        self.generation = 0
        self._home = home.rstrip("/\\") if home else None
        if self._home and (len(self._home) < 4 or Path(self._home).name.lower() in _GENERIC):
            self._home = None  # (/, /app, /root: a generic home is no one's; /root is a home anyway)
        if self._home:
            self.learn_user(Path(self._home).name)

    # ------------------------------------------------------------ the rules

    def scans(self) -> tuple[ScanSpec, ...]:
        """The rules, in the order they run (after the secrets rules): paths first, names last."""
        home_hints = _HOME_HINTS + ((self._home.lower(),) if self._home else ())
        return (
            ("home", home_hints, self.homes),
            ("email", ("@",), self.at_signs),
            ("host", REMOTE_HINTS, lambda text: remote_hosts(text, self.allowed, self.generic_user)),
            ("host", PRIVATE_HINTS, lambda text: private_hosts(text, self.allowed)),
            ("ip", (), lambda text: ip_addresses(text, self.allowed)),
            ("user", (), self.known_names),
        )

    def homes(self, text: str) -> list[Span]:
        spans = self._local_home(text) if self._home else []
        for regex in (_UNIX_HOME, _WINDOWS_HOME, _ROOT_HOME):
            for m in regex.finditer(text):
                begin = _home_start(m)
                name = m.groupdict().get("name")
                if begin is None or (name and (name.lower() in _NOT_A_HOME or name[0] in "$<{%")):
                    continue
                if name and self.allowed("user", name):
                    continue
                if name:
                    self.learn_user(name)
                spans.append(("home", begin, m.end()))
        return spans

    def _local_home(self, text: str) -> list[Span]:
        """The home folder of the account building, wherever it is (/srv/people/alice)."""
        home = self._home or ""
        spans: list[Span] = []
        start = text.find(home)
        while start != -1:
            end = start + len(home)
            if end == len(text) or text[end] in "/\\ \t\n\"'`:;,)]}>|":
                spans.append(("home", start, end))
            start = text.find(home, end)
        return spans

    def at_signs(self, text: str) -> list[Span]:
        """E-mail addresses, and the user (and host) of ``user@host:`` (a prompt, an scp or git
        target) and of a URL (``https://alice@host``)."""
        spans: list[Span] = []
        for m in _URL_USER.finditer(text):
            if not self.generic_user(m.group("user")) and not self.allowed("user", m.group("user")):
                spans.append(("user", *m.span("user")))
        for start, at, end in _addresses(text):
            local, domain = text[start:at], text[at + 1 : end]
            if text.endswith("://", 0, start) or not any(c.isalnum() for c in local) or domain.lower() in _DIGESTS:
                continue  # (a URL's user: above; image@sha256:…, x+@y)
            prompt = _PROMPT_AFTER.match(text, end) is not None or (
                text.endswith("[", 0, start) and text.startswith(" ", end)
            )
            if prompt or text.startswith(":", end):
                spans.extend(self._user_at_host(start, at, end, text, learn=prompt))
            elif _EMAIL_DOMAIN.fullmatch(domain):
                if not self._kept_email(local, domain):
                    spans.append(("email", start, end))
            elif self._names.get(local.lower()) == "user":  # alice@laptop: a known user at a machine
                spans.extend(self._user_at_host(start, at, end, text, learn=True))
        return spans

    def _user_at_host(self, start: int, at: int, end: int, text: str, learn: bool) -> list[Span]:
        local, domain = text[start:at], text[at + 1 : end]
        spans: list[Span] = []
        if not self.generic_user(local) and not self.allowed("user", local):
            spans.append(("user", start, at))
            if learn:
                self.learn_user(local)
        if not (is_public_host(domain) or is_placeholder_domain(domain) or self.allowed("host", domain)):
            spans.append(("host", at + 1, end))
            if learn and _HOST_LIKE.match(domain) and len(domain) >= 4:
                self._learn(domain, "host")
        return spans

    def _kept_email(self, local: str, domain: str) -> bool:
        return local.lower() in _NOREPLY or is_placeholder_domain(domain) or self.allowed("email", f"{local}@{domain}")

    def known_names(self, text: str) -> list[Span]:
        """Every whole-word occurrence of a name learnt so far; one that is also a common word of
        code or prose only where it stands as the login (``-home-python-``, ``python@host``)."""
        if self._known is None:
            return []
        lowered = text.lower()
        if not any(name in lowered for name in self._names):
            return []
        spans: list[Span] = []
        for m in self._known.finditer(text):
            name = m.group(0).lower()
            if name in _COMMON_WORDS and not _as_login(text, m.start(), m.end()):
                continue
            spans.append((self._names.get(name, "user"), *m.span()))
        return spans

    # ------------------------------------------------------------ learning

    def learn_from(self, *texts: str | None) -> None:
        """Learn the names a session's own fields show (cwd, project, source path), before its
        text is redacted, so that the first strings already know them."""
        for text in texts:
            if text and isinstance(text, str):
                self.homes(text)
                if "@" in text:
                    self.at_signs(text)

    def identity(self, key: str, value: str) -> str | None:
        """The kind of a mapping entry's value that names the user (``"username": "alice"``), learnt."""
        if key.lower().replace("_", "").replace("-", "") not in _IDENTITY_KEYS:
            return None
        value = value.strip()
        if not (_LOGIN.fullmatch(value) or _PERSON.fullmatch(value)) or self.generic_user(value):
            return None
        if self.allowed("user", value):
            return None
        self.learn_user(value)
        return "user"

    def learn_user(self, name: str) -> None:
        if len(name) >= 3 and not self.generic_user(name) and not self.allowed("user", name):
            self._learn(name, "user")

    def _learn(self, name: str, kind: str) -> None:
        lowered = name.lower()
        forms = {lowered, re.sub(r"[^a-z0-9]+", "-", lowered)}  # (a path folded into a folder name)
        new = [form for form in forms if form not in self._names and len(form) >= 3]
        if not new:
            return
        for form in new:
            self._names[form] = kind
        names = sorted(self._names, key=len, reverse=True)
        self._known = re.compile(
            word_start("A-Za-z0-9") + "(?:" + "|".join(map(re.escape, names)) + r")(?![A-Za-z0-9])", re.IGNORECASE
        )
        self.generation += 1

    # ------------------------------------------------------------ what is kept

    def generic_user(self, name: str) -> bool:
        return name.lower() in _GENERIC or name[:1] in "$<{%["

    def allowed(self, kind: str, value: str) -> bool:
        """``pii_allow`` keeps it: a glob, an exact value, or (for hosts and addresses) a bare domain."""
        lowered = value.lower()
        if lowered in self._exact or any(fnmatchcase(lowered, glob) for glob in self._globs):
            return True
        if kind in ("host", "email") and self._domains:
            host = lowered.rsplit("@", 1)[-1]
            return any(host == d or host.endswith("." + d) for d in self._domains)
        return False


def _as_login(text: str, start: int, end: int) -> bool:
    """The word at ``start:end`` stands as a login: after a home folder (``/home/``, ``-home-``,
    ``Users\\``) or before an ``@`` (``python@laptop``)."""
    return text.startswith("@", end) or _LOGIN_BEFORE.search(text, max(0, start - 8), start) is not None


def _addresses(text: str) -> list[tuple[int, int, int]]:
    """Each ``local@domain``: (start, the @, end). Found from the @ (a literal: far faster than a
    pattern on a long page); the local part does not start on the letter of a ``\\n`` escape."""
    found = []
    at = text.find("@")
    while at != -1:
        start = at
        while start > 0 and at - start <= 64 and text[start - 1] in _LOCAL_CHARS:
            start -= 1
        if start < at and after_escape(text, start + 1) and text[start] in "ntr":
            start += 1  # (JSON's "\\njane@…")
        domain = _DOMAIN.match(text, at + 1)
        if start < at and at - start <= 64 and domain is not None:
            found.append((start, at, domain.end()))
        at = text.find("@", at + 1)
    return found


def _home_start(m: re.Match[str]) -> int | None:
    """Where a home folder's path starts (``/var/home/…``, ``C:\\Users\\…``), or None when what stands
    before the match makes it no home (``/srv/home/x``, ``~/Users/x``)."""
    text, start = m.string, m.start()
    if m.re is _WINDOWS_HOME:  # C: and the same separator before Users
        sep = m.group("sep")
        drive = start - len(sep) - 2
        if drive < 0 or text[drive + 2 : start] != sep or text[drive + 1] != ":" or not text[drive].isalpha():
            return None
        start = drive
    elif m.re is _UNIX_HOME and text.endswith("/var", 0, start):
        start -= 4
    if start and (text[start - 1].isalnum() or text[start - 1] in "_.-~") and not after_escape(text, start):
        return None
    return start


def local_home() -> str | None:
    """The home folder of the account running sessite (its sessions name it, wherever it is)."""
    try:
        return str(Path.home())
    except (RuntimeError, KeyError, OSError):
        return None
