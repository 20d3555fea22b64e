"""The text that runs ``sessite collect ARCHIVE`` every day, for the system it is asked on.

Linux with systemd: a user service and timer; other Unix: a crontab line; macOS: a launchd
agent; Windows: a Task Scheduler command. Paths are absolute, since none of these runs a shell
with the user's ``PATH``; ``Persistent``/``RunAtLoad`` catch up a day the machine was off.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from xml.sax.saxutils import escape

LABEL = "org.sessite.collect"


def schedule_for(system: str, sessite: str, archive: Path, systemd: bool = True) -> str:
    """``system`` is ``linux``, ``darwin`` or ``windows``; ``systemd``: the user has a systemd session."""
    if system == "darwin":
        return _launchd(sessite, archive)
    if system == "windows":
        return _windows(sessite, archive)
    return _systemd(sessite, archive) if systemd else _cron(sessite, archive)


def _cron(sessite: str, archive: Path) -> str:
    return (
        "# crontab -e, then add this line (every day at 12:30):\n"
        f"30 12 * * * {shlex.quote(sessite)} collect {shlex.quote(str(archive))} >/dev/null\n"
    )


def _systemd(sessite: str, archive: Path) -> str:
    cmd = f"{shlex.quote(sessite)} collect {shlex.quote(str(archive))}"
    return f"""# ~/.config/systemd/user/sessite-collect.service
[Unit]
Description=Collect coding-agent sessions into {archive}

[Service]
Type=oneshot
ExecStart={cmd}

# ~/.config/systemd/user/sessite-collect.timer
[Unit]
Description=Collect coding-agent sessions daily

[Timer]
OnCalendar=daily
Persistent=true

[Install]
WantedBy=timers.target

# then: systemctl --user daemon-reload && systemctl --user enable --now sessite-collect.timer
"""


def _launchd(sessite: str, archive: Path) -> str:
    args = "".join(f"\n    <string>{escape(a)}</string>" for a in (sessite, "collect", str(archive)))
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<!-- save as ~/Library/LaunchAgents/{LABEL}.plist, then run:
     launchctl bootstrap gui/$(id -u) ~/Library/LaunchAgents/{LABEL}.plist -->
<plist version="1.0">
<dict>
  <key>Label</key>
  <string>{LABEL}</string>
  <key>ProgramArguments</key>
  <array>{args}
  </array>
  <key>StartCalendarInterval</key>
  <dict>
    <key>Hour</key>
    <integer>12</integer>
    <key>Minute</key>
    <integer>30</integer>
  </dict>
  <key>RunAtLoad</key>
  <true/>
</dict>
</plist>
"""


def _windows(sessite: str, archive: Path) -> str:
    run = f'\\"{sessite}\\" collect \\"{archive}\\"'
    return (
        "REM in a Command Prompt (Task Scheduler, every day at 12:30):\n"
        f'schtasks /Create /SC DAILY /ST 12:30 /TN "sessite collect" /TR "{run}"\n'
    )
