"""Reading `ssh -G` (replayed from tests/captures/ssh), ssh's %-tokens, and the warnings of the fallback
without the ssh client."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from nfstune.errors import ConfigError
from nfstune.remote import config_fallback
from nfstune.remote import openssh_config as og
from nfstune.remote.target import from_ssh_g

CAPTURES = Path(__file__).parents[1] / "captures" / "ssh"


def captured(host: str) -> og.Options:
    return og.parse((CAPTURES / f"{host}.txt").read_text())


def test_a_host_from_an_included_file() -> None:
    o = captured("nas")
    assert (o["hostname"], o["port"], o["user"]) == (["192.168.1.10"], ["2200"], ["admin"])
    # repeated keys keep ssh's order; IdentityFile comes unexpanded
    assert o["identityfile"] == ["~/.ssh/nas_%r_%h", "/etc/nfstune-test/%%literal"]
    target, jump = from_ssh_g(o, "nas")
    assert (target.hostname, target.port, target.user, jump) == ("192.168.1.10", 2200, "admin", None)
    assert target.identity_files == ()  # neither file exists: paramiko would refuse the missing one
    assert target.known_hosts_files[:2] == (Path("/root/.ssh/known_hosts"), Path("/root/.ssh/known_hosts2"))


def test_proxy_command_tokens_and_host_key_alias() -> None:
    target, _ = from_ssh_g(captured("behind"), "behind")
    assert target.proxy_command == "ssh -W 10.0.0.7:22 root@gateway % behind"
    assert target.host_key_alias == "behind-key" and target.identities_only
    assert target.known_hosts_files[:2] == (Path("/root/.ssh/lab_known_hosts"), Path("/tmp/more_known_hosts"))


def test_proxy_jump_wins_when_it_comes_first() -> None:
    o = captured("both")
    target, jump = from_ssh_g(o, "both")
    # the config sets both: ssh keeps the first one seen and prints only that
    assert jump == "jump1,admin@jump2:2022" and target.proxy_command is None and "proxycommand" not in o


def test_identity_files_expanded_as_ssh_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("KEYS", "keys")
    values = {"%": "%", "h": "nas.lan", "r": "admin", "d": str(tmp_path)}
    assert og.expand("~/.ssh/%r@%h", values, og.FILE_TOKENS, "IdentityFile", path=True) == (
        f"{tmp_path}/.ssh/admin@nas.lan"
    )
    assert og.expand("${KEYS}/100%%", values, og.FILE_TOKENS, "x", path=True) == "keys/100%"
    with pytest.raises(ConfigError, match="%x"):
        og.expand("%x", values, og.FILE_TOKENS, "IdentityFile")
    with pytest.raises(ConfigError, match="%d"):  # ProxyCommand takes %h %n %p %r only
        og.expand("cd %d", values, og.PROXY_TOKENS, "ProxyCommand")
    with pytest.raises(ConfigError, match="NOT_SET_ANYWHERE"):
        og.expand("${NOT_SET_ANYWHERE}/k", values, og.FILE_TOKENS, "IdentityFile", path=True)


@pytest.mark.skipif(shutil.which("ssh") is None, reason="needs the ssh client")
def test_a_bad_config_names_its_file_and_line(tmp_path: Path) -> None:
    config = tmp_path / "ssh_config"
    config.write_text("Host nas\n  HostName 10.0.0.2\n  NoSuchOption yes\n")
    with pytest.raises(ConfigError, match=f"{config}: line 3: Bad configuration option: nosuchoption"):
        og.ssh_g("ssh", "nas", config=config)


@pytest.mark.skipif(shutil.which("ssh") is None, reason="needs the ssh client")
def test_a_host_name_like_an_option_stays_a_host_name(tmp_path: Path) -> None:
    config = tmp_path / "ssh_config"
    config.write_text("")
    with pytest.raises(ConfigError, match="invalid characters"):
        og.ssh_g("ssh", "-oProxyCommand=touch /tmp/x", config=config)


def test_the_fallback_names_what_it_cannot_honour(tmp_path: Path) -> None:
    config = tmp_path / "ssh_config"
    config.write_text(
        "# Include in a comment is nothing\n"
        "Include ~/.ssh/conf.d/*\n"
        "Host nas\n"
        "  HostName 10.0.0.2\n"
        "  ProxyCommand ssh -W %h:%p %n\n"  # every token ssh expands there is expanded (test_host_names.py)
        'Match originalhost nas exec "test -e /x" !localnetwork 10.0.0.0/8 all\n'
        "  CanonicalizePermittedCNAMEs *.a:*.b\n"
    )
    said = config_fallback.unhonoured(config)
    assert said == [
        f"{config} line 2: Include ~/.ssh/conf.d/*: the files it names are not read, so hosts defined there "
        "are unknown",
        f"{config} line 6: Match localnetwork: not evaluated; the block applies as if it matched",
        f"{config} line 7: CanonicalizePermittedCNAMEs *.a:*.b: CNAMEs are not followed",
    ]
