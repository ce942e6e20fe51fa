"""Each host as resolved, with the block of the SSH config that named it: what `nfstune run --dry-run` and the
desktop's plan say first. The SSH config is a real file read by the real `ssh -G` (and by the fallback parser when
there is no ssh client); nothing is connected to."""

from __future__ import annotations

import getpass
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from nfstune.remote import openssh_config, resolve


def configs(tmp_path: Path) -> tuple[Path, Path]:
    """~/.ssh/config as an admin writes it, with the NAS in a file it Includes; the main file and that file."""
    included = tmp_path / "config.d" / "nas.conf"
    included.parent.mkdir()
    included.write_text(
        "# the NAS, behind the bastion\n"
        "Host mynas\n  HostName 127.0.0.1\n  Port 2222\n  User admin\n  ProxyJump bastion\n\n"
        "Host bastion\n  HostName 127.0.0.2\n  User jumper\n"
    )
    main = tmp_path / "config"
    main.write_text(f"Include {tmp_path}/config.d/*.conf\n\nHost *\n  ServerAliveInterval 15\n")
    return main, included


def test_an_alias_from_an_included_file_names_that_file_and_its_jump_host(tmp_path: Path) -> None:
    main, included = configs(tmp_path)
    target = resolve("mynas", ssh_config=main)
    assert (target.user, target.hostname, target.port) == ("admin", "127.0.0.1", 2222)
    assert target.config_source == f"{included} line 2 (Host mynas)"
    assert target.jump is not None and target.jump.config_source == f"{included} line 8 (Host bastion)"
    # a host no block names but `Host *`: no entry of its own
    assert resolve("10.0.0.9", ssh_config=main).config_source == ""


def test_without_the_ssh_client_the_file_and_line_are_found_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(openssh_config, "SSH", str(tmp_path / "no-ssh-here"))
    config = tmp_path / "config"
    config.write_text("Host *\n  User someone\n\nHost other nas-* !nas-old\n  HostName 127.0.0.3\n")
    assert resolve("nas-new", ssh_config=config).config_source == f"{config} line 4 (Host other nas-* !nas-old)"
    assert resolve("nas-old", ssh_config=config).config_source == ""  # negated: only Host * applies
    assert resolve("NAS-new", ssh_config=config).config_source.endswith("line 4 (Host other nas-* !nas-old)")
    # what the fallback cannot read is said under the host too
    from nfstune.remote.resolved import Resolved, hosts_text

    config.write_text(f"Include {tmp_path}/more.conf\n" + config.read_text())
    text = hosts_text([Resolved("server", "nas-new", resolve("nas-new", ssh_config=config))])
    assert text.splitlines()[3].startswith(
        "            note: the ssh client is not installed: nfstune reads the SSH config itself and cannot honour "
        f"{config} line 1: Include {tmp_path}/more.conf: the files it names are not read"
    )


def test_the_hosts_block_says_role_name_login_jump_and_source(tmp_path: Path) -> None:
    from nfstune.remote.resolved import Resolved, hosts_text

    main, included = configs(tmp_path)
    nas = resolve("mynas", ssh_config=main)
    plain = resolve("root@127.0.0.1:2", ssh_config=main)
    text = hosts_text(
        [
            Resolved("server", "mynas", nas),
            Resolved("client 1", "mynas", nas),
            Resolved("client 2", "root@127.0.0.1:2", plain),
        ]
    )
    assert text.splitlines() == [
        "Hosts, as nfstune reaches them:",
        "  server    mynas: admin@127.0.0.1:2222",
        "            via the jump host bastion (jumper@127.0.0.2:22)",
        f"            from {included} line 2 (Host mynas)",
        "  client 1  mynas: admin@127.0.0.1:2222",
        "            via the jump host bastion (jumper@127.0.0.2:22)",
        f"            from {included} line 2 (Host mynas)",
        "  client 2  root@127.0.0.1:2",
        "            no ssh config entry: ssh's defaults",
    ]


def test_a_lab_dry_run_says_the_lab_hosts_first(tmp_path: Path) -> None:
    state = tmp_path / "state" / "nfstune" / "lab"
    state.mkdir(parents=True)
    (state / "lab.json").write_text(json.dumps({"nas_port": 2298, "client_port": 2299}))
    env = os.environ | {"XDG_STATE_HOME": str(tmp_path / "state"), "XDG_DATA_HOME": str(tmp_path / "data")}
    argv = [sys.executable, "-m", "nfstune", "run", "--lab", "--recipe", "quick-check", "--dry-run"]
    result = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=60)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[:6] == [
        "Hosts, as nfstune reaches them:",
        "  server    the lab's nas: root@127.0.0.1:2298",
        f"            from the practice lab's own settings ({state / 'lab.json'})",
        "  client    the lab's client: root@127.0.0.1:2299",
        f"            from the practice lab's own settings ({state / 'lab.json'})",
        "",
    ]
    assert lines[6].startswith("Plan: ")


def test_a_dry_run_resolves_each_host_as_ssh_does(tmp_path: Path) -> None:
    """No ~/.ssh/config entry here (the one of the user running the tests is not touched): ssh's defaults."""
    env = os.environ | {"XDG_STATE_HOME": str(tmp_path / "state"), "XDG_DATA_HOME": str(tmp_path / "data")}
    argv = [sys.executable, "-m", "nfstune", "run", "--server", "nas.invalid", "--client", "c1.invalid"]
    argv += ["--client", "admin@c2.invalid:2200", "--share", "/export", "--recipe", "quick-check", "--dry-run"]
    result = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=60)
    assert result.returncode == 0, result.stderr
    me = getpass.getuser()
    hosts = [line for line in result.stdout.split("\n\n", 1)[0].splitlines() if not line.startswith("    ")]
    assert hosts == [
        "Hosts, as nfstune reaches them:",
        f"  server    {me}@nas.invalid:22",  # a name no block renames: said once, with ssh's user and port
        f"  client 1  {me}@c1.invalid:22",
        "  client 2  admin@c2.invalid:2200",  # given as it resolves: said once
    ]
