"""``sessite rekey SITE``: change, add or revoke a password of an encrypted site.

The site key is re-wrapped in ``keys.js``; no page is re-encrypted. Each password has its own
wrapped copy of the key, so removing one revokes that password (docs/encryption.md says what
revocation cannot undo: a key already taken from an open tab).
"""

from __future__ import annotations

from pathlib import Path

import click

from sessite.cli.app import main
from sessite.cli.password import (
    NEW_PASSWORD_ENV,
    PASSWORD_ENV,
    password_file_option,
    read_password,
    strong_enough,
)
from sessite.publish.keyring_file import read_keyring, write_keyring
from sessite.publish.vault import KEYS_URL, VaultError


@main.command("rekey")
@click.argument("site", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--add", "mode", flag_value="add", help="Add a password (the current ones keep working).")
@click.option("--remove", "mode", flag_value="remove", help="Revoke the password given (others keep working).")
@password_file_option(help=f"The current password, from this file's first line (else ${PASSWORD_ENV}, else a prompt).")
@password_file_option(
    "--new-password-file",
    help=f"The new password, from this file's first line (else ${NEW_PASSWORD_ENV}, else a prompt).",
)
def rekey_command(site: Path, mode: str | None, password_file: Path | None, new_password_file: Path | None) -> None:
    """Change the password of an encrypted SITE (or --add one, or --remove one); no page is re-encrypted."""
    try:
        ring = read_keyring(site)
    except VaultError as exc:
        raise click.ClickException(str(exc)) from None
    current = read_password(password_file, PASSWORD_ENV, "Current password")
    opened = ring.open(current)
    if opened is None:
        raise click.ClickException(f"{site / KEYS_URL}: the password opens none of this site's keys")
    entry, key = opened
    if mode == "remove":
        if len(ring.entries) == 1:
            raise click.ClickException(
                f"{site / KEYS_URL}: this is the site's only password; add another first (sessite rekey --add)"
            )
        ring.remove(entry)
        done = f"password {entry} revoked"
    else:
        new = read_password(new_password_file, NEW_PASSWORD_ENV, "New password", confirm=True)
        strong_enough(new)
        if ring.open(new) is not None:
            raise click.ClickException("the new password already opens this site")
        if mode != "add":
            ring.remove(entry)
        added = ring.add(new, key)
        done = f"password {added} added" if mode == "add" else f"password {entry} replaced by {added}"
    try:
        write_keyring(site, ring)
    except OSError as exc:
        raise click.ClickException(f"{site / KEYS_URL}: {exc.strerror or exc}; the keys are as they were") from None
    count = len(ring.entries)
    click.echo(f"{done}; {count} password{'s' if count != 1 else ''} open {site}; no page re-encrypted")
