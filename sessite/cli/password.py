"""Where a password comes from: ``SESSITE_PASSWORD``, a file, or a prompt; never the command line
(it would show in the shell's history and in every other user's ``ps``)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

PASSWORD_ENV = "SESSITE_PASSWORD"
NEW_PASSWORD_ENV = "SESSITE_NEW_PASSWORD"
MIN_LENGTH = 12  # shorter ones are refused for a new key: docs/encryption.md says why


def password_file_option(name: str = "--password-file", help: str = "") -> Callable[[Any], Any]:
    return click.option(
        name,
        type=click.Path(exists=True, dir_okay=False, path_type=Path),
        default=None,
        help=help or f"Read the password from this file's first line (else ${PASSWORD_ENV}, else a prompt).",
    )


def read_password(file: Path | None, env: str, prompt: str, confirm: bool = False) -> str:
    """The password from ``file`` (first line), else ``$env``, else asked for (hidden, twice when ``confirm``)."""
    if file is not None:
        try:
            text = file.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise click.ClickException(f"{file}: cannot read the password ({exc})") from None
        value = text[0] if text else ""
    elif os.environ.get(env):
        value = os.environ[env]
    else:
        value = click.prompt(prompt, hide_input=True, confirmation_prompt=confirm, err=True)
    if not value:
        raise click.ClickException(f"{file or env}: the password is empty")
    return value


def strong_enough(password: str) -> None:
    """Refuse a password too short to stand an offline guessing attack on the published files."""
    if len(password) < MIN_LENGTH:
        raise click.ClickException(
            f"the password has {len(password)} characters; an encrypted site needs at least {MIN_LENGTH} "
            "(anyone with the files can guess offline; see docs/encryption.md)"
        )
