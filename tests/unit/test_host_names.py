"""Host names, users and share paths from outside (a command line, the desktop's fields, a NAS's `showmount -e`)
are checked where they enter, as OpenSSH and exportfs accept them: none becomes a command (issue 37).

Without the ssh client nfstune reads ~/.ssh/config itself (remote/config_fallback.py): these tests select that
path as tests/root/test_ssh_config.py does, by pointing openssh_config.SSH at a missing binary. Where the ssh
client is installed, `ssh -G` is the reference the fallback is held to."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from nfstune.errors import ConfigError
from nfstune.remote import Host, RemoteError, openssh_config, resolve
from nfstune.remote.target import SshTarget

HAS_SSH = shutil.which("ssh") is not None
needs_ssh = pytest.mark.skipif(not HAS_SSH, reason="needs the ssh client (ssh -G) as the reference")


@pytest.fixture
def no_ssh_client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(openssh_config, "SSH", str(tmp_path / "no-ssh-here"))


def proxied_config(tmp_path: Path, command: str = "true %h %p") -> Path:
    """Every host through a ProxyCommand that names the host, as `ProxyCommand nc %h %p` does (`true`: nothing is
    contacted)."""
    config = tmp_path / "ssh_config"
    config.write_text(f"Host *\n  ProxyCommand {command}\n")
    return config


def connect_once(target: SshTarget, tmp_path: Path) -> None:
    """What `nfstune run` does with a resolved host: start its ProxyCommand and try the SSH handshake."""
    with contextlib.suppress(RemoteError):  # `true` is no SSH server: the command ran, and that is what is looked for
        Host(target, known_hosts=tmp_path / "known_hosts", connect_timeout=5).connect()


# --- the report: a typed host put into the ProxyCommand of the fallback ----------------------------------


@pytest.mark.usefixtures("no_ssh_client")
def test_a_typed_host_never_runs_as_part_of_the_proxy_command(tmp_path: Path) -> None:
    marker = tmp_path / "PWNED"
    config = proxied_config(tmp_path)
    with pytest.raises(ConfigError, match=r"a host name cannot contain '\$'"):
        connect_once(resolve(f"$(touch${{IFS}}{marker})", ssh_config=config), tmp_path)
    assert not marker.exists()


@pytest.mark.usefixtures("no_ssh_client")
@pytest.mark.parametrize("typed", ["nas%h", "nas%p", "nas%%", "nas%"])
def test_the_fallback_takes_a_typed_percent_as_typed(tmp_path: Path, typed: str) -> None:
    # ssh expands %tokens in the config's text, never in the host the admin typed (ssh -G 'nas%h': hostname nas%h)
    target = resolve(typed, ssh_config=proxied_config(tmp_path))
    assert (target.hostname, target.proxy_command) == (typed, f"true {typed} 22")


@needs_ssh
@pytest.mark.parametrize(
    ("typed", "config"),
    [
        ("nas%h", "Host *\n  ProxyCommand true %h %p %r %n %%\n"),
        ("nas%p", "Host nas*\n  HostName %h.lan\n  ProxyCommand true %h:%p\n"),
        ("admin@nas", "Host nas\n  HostName 10.0.0.%%1\n  Port 2200\n  User root\n  ProxyCommand true %r@%h %p\n"),
        ("nas:2022", "Host nas\n  User admin\n  Port 2200\n  ProxyCommand true %r@%h %p\n"),
        ("ops@nas", "Host nas\n  ProxyCommand true ~/x %h\n"),
    ],
)
def test_the_fallback_resolves_as_ssh_g_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, typed: str, config: str
) -> None:
    path = tmp_path / "ssh_config"
    path.write_text(config)
    by_ssh = resolve(typed, ssh_config=path)
    monkeypatch.setattr(openssh_config, "SSH", str(tmp_path / "no-ssh-here"))
    by_paramiko = resolve(typed, ssh_config=path)
    assert (by_ssh.resolved_by, by_paramiko.resolved_by) == ("ssh -G", "paramiko")
    fields = ("hostname", "port", "user", "proxy_command")
    assert [getattr(by_paramiko, f) for f in fields] == [getattr(by_ssh, f) for f in fields]


# --- a NUL (the desktop's fields can hold one) is an error, not a crash ------------------------------------------


@pytest.mark.parametrize("fallback", [False, True])
@pytest.mark.parametrize(("spec", "user"), [("nas\0x", None), ("nas", "ad\0min"), ("ad\0min@nas", None)])
def test_a_nul_in_a_host_or_a_user_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fallback: bool, spec: str, user: str | None
) -> None:
    if fallback:
        monkeypatch.setattr(openssh_config, "SSH", str(tmp_path / "no-ssh-here"))
    elif not HAS_SSH:
        pytest.skip("needs the ssh client")
    with pytest.raises(ConfigError, match=r"cannot contain an unprintable character \(U\+0000\)"):
        resolve(spec, user=user, ssh_config=proxied_config(tmp_path))


# --- `nfstune run` as the issue ran it -----------------------------------------------------------------------------


def without_ssh(tmp_path: Path) -> dict[str, str]:
    """An environment whose PATH has no ssh client (the fallback) but the tools a ProxyCommand may use, and whose
    HOME's ~/.ssh/config sends every host through one."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("sh", "touch", "true"):
        found = shutil.which(tool)
        assert found is not None
        (bin_dir / tool).symlink_to(found)
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "config").write_text("Host *\n  ProxyCommand true %h %p\n")
    return os.environ | {
        "PATH": str(bin_dir),
        "SHELL": "/bin/sh",
        "HOME": str(home),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }


def test_run_without_the_ssh_client_runs_nothing_a_host_name_says(tmp_path: Path) -> None:
    marker = tmp_path / "PWNED"
    hostile = f"$(touch${{IFS}}{marker})"
    argv = ["run", "--server", hostile, "--client", "cl", "--share", "/srv/x", "--recipe", "quick-check", "--yes"]
    result = subprocess.run(
        [sys.executable, "-m", "nfstune", *argv],
        capture_output=True,
        text=True,
        env=without_ssh(tmp_path),
        timeout=120,
    )
    assert not marker.exists()
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "argument --server: " in result.stderr and "a host name cannot contain '$'" in result.stderr
    assert "running it yourself" not in result.stderr


@pytest.mark.parametrize(
    ("argument", "value", "message"),
    [
        ("--server", "$(touch${IFS}/tmp/nfstune-never)", "a host name cannot contain '$'"),
        ("--server", "nas;id", "a host name cannot contain ';'"),
        ("--server", "`id`@nas", "a user name cannot contain '`'"),
        ("--client", "a'b", 'a host name cannot contain "\'"'),
        ("--client", "nas,evil", "a host name cannot contain ','"),
        ("--client", "-oProxyCommand=id", "a host name cannot begin with '-'"),
        ("--server", "nas\u2028x", "a host name cannot contain an unprintable character (U+2028)"),
        ("--share", "/srv/a\rb", "a share path cannot contain an unprintable character (U+000D)"),
        ("--server-address", "fe80::1%$(id)", "after '%' comes the interface the address is on"),
    ],
)
def test_run_refuses_a_hostile_name_before_anything(tmp_path: Path, argument: str, value: str, message: str) -> None:
    from tests.unit.test_cli import nfstune, nothing_created

    given = {"--server": "nas.invalid", "--client": "client.invalid", "--share": "/srv"} | {argument: value}
    args = [f"{name}={v}" for name, v in given.items()]  # "--client=-o...": a value, not an option
    result = nfstune(tmp_path, "run", *args, "--recipe", "quick-check", "--dry-run")
    assert result.returncode == 2, result.stdout
    assert f"error: argument {argument}: " in result.stderr and message in result.stderr
    assert "Traceback" not in result.stderr and nothing_created(tmp_path)


# --- the shares a NAS lists: its own text, offered only when a share path can be it ------------------------------


def test_an_export_no_share_path_can_be_is_left_out_and_said() -> None:
    from nfstune.nfs.names import usable_shares
    from nfstune.session.nas_view import facts_seen, parse_showmount
    from nfstune.session.preflight import check
    from tests.unit.test_nas_view import capture, client_facts

    # what `showmount -e` printed for a NAS whose mountd lists what it likes: a terminal's escape sequence, a tab
    listed = "/export *\n/srv/\x1b]2;owned\x07 *\n/srv/a\tb 10.0.0.0/24\n/srv/$(id) *\n"
    usable, refused = usable_shares(parse_showmount(listed))
    # '$(id)' is a path exportfs takes: every command that carries it quotes it (shell_text.py)
    assert usable == ["/export", "/srv/$(id)"] and refused == ["/srv/\x1b]2;owned\x07", "/srv/a\tb"]
    problems = check(
        facts_seen("nas", capture("versions-lab-export.txt")),
        client_facts(),
        server_label="nas (no login)",
        client_label="client",
        share="/export",
        exports=usable,
        server_login=False,
        refused_exports=refused,
    )
    (said,) = [p for p in problems if p.title == "nas (no login) lists exports nfstune leaves out"]
    assert said.severity == "warning" and "\x1b" not in said.detail and "\t" not in said.detail
    assert said.detail == (
        "'/srv/\\x1b]2;owned\\x07': a share path cannot contain an unprintable character (U+001B); "
        "'/srv/a\\tb': a share path cannot contain an unprintable character (U+0009). "
        "They are not offered as shares to test."
    )


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("srv/x", "a share path must be absolute (begin with '/')"),
        ("", "a share path must be absolute (begin with '/')"),
        ("/srv/a\0b", "a share path cannot contain an unprintable character (U+0000)"),
        ("/srv/a\udcffb", "a share path cannot contain an unprintable character (U+DCFF)"),  # a byte not UTF-8
        ("/" + "é" * 512, "a share path cannot be longer than 1024 bytes (exportfs takes no more)"),
    ],
)
def test_share_paths_exportfs_would_not_take(path: str, message: str) -> None:
    from nfstune.nfs.names import check_share

    with pytest.raises(ConfigError) as refused:
        check_share(path, "--share")
    assert str(refused.value) == f"--share: {message}"


@pytest.mark.parametrize("path", ["/", "/srv/my share", "/srv/$(id)", "/srv/naïve", "/" + "a" * 1023])
def test_share_paths_exportfs_takes(path: str) -> None:
    from nfstune.nfs.names import share_problem

    assert share_problem(path) is None


@pytest.mark.parametrize(("typed", "kept"), [("/srv/x/", "/srv/x"), ("/srv//x/./", "/srv/x"), ("/srv/x", "/srv/x")])
def test_share_is_spelt_as_exportfs_keeps_it(typed: str, kept: str) -> None:
    # Apply looks the share up in `exportfs -s`, which lists it as realpath spells it: `/srv/x/` would be missed
    from nfstune.cli.args import share_path

    assert share_path(typed) == kept


# --- the server's address as the client mounts it: an IPv6 address's zone is an interface, nothing else ----------


@pytest.mark.parametrize("zone", ["$(id)", "a b", "a\nb", ";id", "eth0'", "x" * 16, "a\x1bb", "é"])
def test_an_ipv6_zone_that_is_no_interface_is_refused(zone: str) -> None:
    from nfstune.nfs.addresses import server_address

    for written in (f"fe80::1%{zone}", f"[fe80::1%{zone}]"):
        with pytest.raises(ValueError, match="interface"):
            server_address(written)


@pytest.mark.parametrize("address", ["fe80::1%eth0", "[fe80::1%enp3s0f1.100]", "fe80::1%2", "fe80::1%br-lan_1"])
def test_an_ipv6_zone_naming_an_interface_is_taken(address: str) -> None:
    from nfstune.nfs.addresses import server_address

    assert server_address(address) == address.strip("[]")
