"""Where a machine shows in text: IP addresses and host names that name a private machine.

A host name alone cannot say whether it is private, so only these count
(see ``private_hosts`` and ``remote_hosts``): names under a suffix that is
never public (``.local``, ``.lan``, ``.internal``, ``.intranet``, ``.corp``,
``.localdomain``, ``.home.arpa``), and the machine an ssh, scp, rsync, sftp
or mosh command reaches (unless it is a public forge such as github.com).
The names of public sites in URLs, imports and prose are left alone.

IP addresses: every IPv4 and IPv6 address, except the ones that name no
machine (loopback, unspecified, broadcast, net masks, multicast, the cloud
metadata address) and a version number written like one (``v1.2.3.4``,
``version 1.2.3.4``, ``Chrome/120.0.0.0``, ``==1.2.3.4``).
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable

from sessite.analyze.redact.types import Span

Allowed = Callable[[str, str], bool]  # (kind, value) -> kept as it is


def word_start(before: str) -> str:
    """A lookbehind saying a value starts here: not after one of ``before`` (a character class's
    inside), nor on the letter of a ``\\n``/``\\t``/``\\r`` escape, but right after one (text
    held in JSON: ``\\n\\n@bp.get`` is no e-mail, ``\\njane@x.io`` is one)."""
    return rf"(?:(?<![{before}])(?!(?<=\\)[ntr])|(?<=\\[ntr]))"


def after_escape(text: str, start: int) -> bool:
    return text[start - 2 : start] in ("\\n", "\\t", "\\r")


# Hosts anyone may name: forges and registries reached over ssh, and the well-known internal names of tools.
PUBLIC_HOSTS = frozenset(
    {
        "github.com",
        "gitlab.com",
        "bitbucket.org",
        "codeberg.org",
        "git.sr.ht",
        "ssh.dev.azure.com",
        "vs-ssh.visualstudio.com",
        "source.developers.google.com",
        "heroku.com",
        "hf.co",
        "huggingface.co",
        "localhost",
        "host.docker.internal",
        "gateway.docker.internal",
        "kubernetes.docker.internal",
        "metadata.google.internal",
    }
)
# RFC 2606 names: placeholders by definition.
_EXAMPLE = re.compile(r"(?:^|\.)(?:example\.(?:com|org|net)|[^.]+\.(?:example|test|invalid|localhost))$|^example$")


def is_placeholder_domain(host: str) -> bool:
    return _EXAMPLE.search(host.lower()) is not None


def is_public_host(host: str) -> bool:
    host = host.lower().rstrip(".")
    return host in PUBLIC_HOSTS or any(host.endswith("." + public) for public in PUBLIC_HOSTS if "." in public)


# ---------------------------------------------------------------- IP addresses

_OCTET = r"(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
_IPV4_GATE = re.compile(r"\.[0-9]{1,3}\.[0-9]{1,3}\.")
_IPV4 = re.compile(word_start(r"\w.") + rf"{_OCTET}(?:\.{_OCTET}){{3}}(?!\w|\.[0-9])")
# What before an address says it is a version: v1.2.3.4, version 1.2.3.4, Chrome/120.0.0.0, ==1.2.3.4, ^1.2.3.4
_VERSION_BEFORE = re.compile(r"(?:\bv|(?i:version|ver\.?|release|build)[ \t:=]*|[A-Za-z]/|[=<>~^]=?)$")
_V6_CORE = re.compile(r":[0-9A-Fa-f]{0,4}:[0-9A-Fa-f:]*")
_ZONE = re.compile(r"[\w.]+")
_HEX = frozenset("0123456789abcdefABCDEF")
_V6_BEFORE = frozenset("ghijklmnopqrstuvwxyzGHIJKLMNOPQRSTUVWXYZ0123456789abcdefABCDEF_:.")
_V6_AFTER = frozenset("ghijklmnopqrstuvwxyzGHIJKLMNOPQRSTUVWXYZ_:.")
_KEPT_V4 = frozenset({"0.0.0.0", "255.255.255.255", "169.254.169.254"})


def ip_addresses(text: str, allowed: Allowed) -> list[Span]:
    """Every IP address that names a machine (see the module's note)."""
    spans: list[Span] = []
    if _IPV4_GATE.search(text):  # (a literal first: ten times as fast as the address pattern on prose)
        for m in _IPV4.finditer(text):
            address = m.group(0)
            if address in _KEPT_V4 or address.startswith(("127.", "255.")) or 224 <= int(address.split(".")[0]) < 240:
                continue
            if _VERSION_BEFORE.search(text, max(0, m.start() - 12), m.start()) or allowed("ip", address):
                continue
            spans.append(("ip", *m.span()))
    for start, end in _v6_candidates(text):
        if _names_a_v6_machine(text[start:end]) and not allowed("ip", text[start:end]):
            spans.append(("ip", start, end))
    return spans


def _v6_candidates(text: str) -> list[tuple[int, int]]:
    """Stretches of hex digits and two colons or more, standing alone: found from their colons
    (a literal, so the search is fast), widened to the hex digits before."""
    found = []
    last = 0
    for m in _V6_CORE.finditer(text):
        start, end = m.start(), m.end()
        while start > max(last, m.start() - 4) and text[start - 1] in _HEX:
            start -= 1
        if end < len(text) and text[end] == "%":
            zone = _ZONE.match(text, end + 1)
            end = zone.end() if zone else end
        last = end
        if (start and text[start - 1] in _V6_BEFORE and not after_escape(text, start)) or (
            end < len(text) and text[end] in _V6_AFTER
        ):
            continue
        found.append((start, end))
    return found


def _names_a_v6_machine(candidate: str) -> bool:
    groups = [g for g in candidate.split("%")[0].split(":") if g]
    if len(groups) < 2 or max(len(g) for g in groups) < 3:  # (A::B2 in C++ is no address)
        return False
    try:
        address = ipaddress.IPv6Address(candidate.split("%")[0])
    except ValueError:
        return False
    return not (address.is_loopback or address.is_unspecified or address.is_multicast)


# ---------------------------------------------------------------- host names

_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}[A-Za-z0-9])?"
PRIVATE_SUFFIXES = ("local", "lan", "internal", "intranet", "corp", "localdomain", "home.arpa")
PRIVATE_HINTS = tuple(f".{suffix}" for suffix in PRIVATE_SUFFIXES)
_PRIVATE_HOST = re.compile(
    word_start(r"\w.\-@%")
    + rf"(?:{_LABEL}\.)+(?:local|lan|internal|intranet|corp|localdomain|home\.arpa)(?![\w\-(=]|\.[A-Za-z0-9])"
)
# First labels that make ``x.local`` code, not a host (threading.local, self.internal, settings.local,
# the Java package com.example.internal); a suffix in capitals is a namespace (NUnit.Framework.Internal).
_CODE_WORDS = """
self this cls threading os obj ctx config cfg settings state app env data node window document module exports
props process np pd torch com org net io java javax android androidx kotlin scala
"""
_CODE_NAMES = frozenset(_CODE_WORDS.split())


def private_hosts(text: str, allowed: Allowed) -> list[Span]:
    """Names under a suffix that is never public (``nas.lan``, ``Janes-MacBook-Pro.local``)."""
    spans: list[Span] = []
    for m in _PRIVATE_HOST.finditer(text):
        host = m.group(0)
        if host.split(".", 1)[0].lower() in _CODE_NAMES or is_public_host(host) or allowed("host", host):
            continue
        spans.append(("host", *m.span()))
    return spans


REMOTE_HINTS = ("ssh", "scp", "rsync", "sftp", "mosh")
_REMOTE = re.compile(r"(?<![\w.\-])(?P<cmd>ssh|autossh|mosh|sftp|scp|rsync)(?=(?P<args>[ \t][^\n;|&]{0,400}))")
_SSH_OPTIONS_WITH_VALUE = frozenset("BbcDEeFIiJLlmOopQRSWw")
_COMMAND_START = re.compile(r"(?:^|[\n`\"'(;|&>]|[$#%] |\bsudo |\bexec |\bthen |\bdo |-c )[ \t]*\Z")
_TOKEN = re.compile(r"[^\s'\"]+")
_TARGET = re.compile(rf"(?:(?P<user>[A-Za-z0-9._\-]+)@)?(?P<host>{_LABEL}(?:\.{_LABEL})*)(?::[0-9]*)?$")
_COPY_TARGET = re.compile(rf"(?<=[\s'\"])(?P<host>{_LABEL}(?:\.{_LABEL})*):(?!//)(?=[/~\w.])")


def remote_hosts(text: str, allowed: Allowed, generic_user: Callable[[str], bool]) -> list[Span]:
    """The machine (and remote user) of an ssh/mosh/sftp command, and ``host:path`` of scp and rsync;
    only where a command starts (a line, a prompt, a quote, after ; | && sudo), not in prose ("ssh into it")."""
    spans: list[Span] = []
    for m in _REMOTE.finditer(text):
        command = _COMMAND_START.search(text, max(0, m.start() - 12), m.start()) is not None
        if m.group("cmd") in ("scp", "rsync"):
            if not command:
                continue
            for c in _COPY_TARGET.finditer(text, m.start("args"), m.end("args")):
                spans.extend(_host_span(c.group("host"), c.start("host"), allowed))
            continue
        spans.extend(_ssh_target(m, allowed, generic_user, command))
    return spans


def _ssh_target(m: re.Match[str], allowed: Allowed, generic_user: Callable[[str], bool], command: bool) -> list[Span]:
    """``ssh [options] [user@]host``: the first word that is neither an option nor an option's value
    (in prose, only ``user@host``: "ssh into it" names no host)."""
    spans: list[Span] = []
    option = ""  # the option whose value the next word is
    for token in _TOKEN.finditer(m.string, m.start("args"), m.end("args")):
        word = token.group(0)
        if option:
            if option == "-l" and not generic_user(word) and not allowed("user", word):
                spans.append(("user", *token.span()))  # ssh -l USER host
            option = ""
            continue
        if word.startswith("-"):
            option = word if len(word) == 2 and word[1] in _SSH_OPTIONS_WITH_VALUE else ""
            continue
        word = word.removeprefix("ssh://")
        target = _TARGET.match(word)
        if target is None or not (command or target.group("user")):
            return spans
        offset = token.end() - len(word)
        user = target.group("user")
        if user and not generic_user(user) and not allowed("user", user):
            spans.append(("user", offset + target.start("user"), offset + target.end("user")))
        spans.extend(_host_span(target.group("host"), offset + target.start("host"), allowed))
        return spans
    return spans


def _host_span(host: str, start: int, allowed: Allowed) -> list[Span]:
    if _IPV4.fullmatch(host) or is_public_host(host) or is_placeholder_domain(host) or len(host) < 2:
        return []  # (an address is the IP rule's)
    return [] if allowed("host", host) else [("host", start, start + len(host))]
