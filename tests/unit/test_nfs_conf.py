"""nfs.conf read as nfs-utils' conffile.c reads it, and [nfsd] threads set with no other byte changed
(nfs/nfs_conf.py); from Debian's shipped file (tests/captures/nfs/nas-nfs.conf) and the rules' edge cases."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from nfstune.errors import ConfigError
from nfstune.nfs.nfs_conf import effective, parse, set_value, winner

CAPTURES = Path(__file__).resolve().parents[1] / "captures" / "nfs"


def changed_lines(before: str, after: str) -> list[str]:
    return [
        line
        for line in difflib.unified_diff(before.splitlines(True), after.splitlines(True), n=0)
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]


def test_debians_file_sets_nothing_and_gets_one_line_under_nfsd() -> None:
    text = (CAPTURES / "nas-nfs.conf").read_text()
    conf = parse(text)
    # Debian sets two things; "# threads=8" is a comment: the daemon's own default rules
    assert [(s.section, s.tag, s.value) for s in conf.settings] == [
        ("general", "pipefs-directory", "/run/rpc_pipefs"),
        ("mountd", "manage-gids", "y"),
    ]
    assert conf.find("nfsd", "threads") == [] and conf.includes == ()
    after = set_value(conf, "nfsd", "threads", "16")
    assert changed_lines(text, after) == ["+threads=16\n"]
    lines = after.splitlines()
    assert lines[lines.index("threads=16") - 1] == "[nfsd]"  # right under the header, before the comments
    (setting,) = parse(after).find("nfsd", "threads")
    assert setting.value == "16" and setting.section == "nfsd"
    assert set_value(parse(after), "nfsd", "threads", "16") == after  # set again: nothing more changes


def test_a_set_value_keeps_its_spelling_blanks_quotes_and_comment() -> None:
    text = (
        "[general]\n"
        "threads = 99\n"  # another section's tag: not nfsd's
        "[NFSD]\n"
        "  Threads =  8   # raised for the office\n"
        "[mountd]\n"
        "threads=4\n"
        "[ nfsd ]\n"
        "threads='12' ; quoted\n"
    )
    conf = parse(text)
    assert [(s.section, s.tag, s.value) for s in conf.find("nfsd", "threads")] == [
        ("nfsd", "threads", "8"),
        ("nfsd", "threads", "12"),
    ]
    assert winner(conf.find("nfsd", "threads")).value == "12"  # type: ignore[union-attr]  # 2.5.3 and later
    assert winner(conf.find("nfsd", "threads"), last_wins=False).value == "8"  # type: ignore[union-attr]
    after = set_value(conf, "nfsd", "threads", "32")
    assert changed_lines(text, after) == [
        "-  Threads =  8   # raised for the office\n",
        "+  Threads =  32   # raised for the office\n",
        "-threads='12' ; quoted\n",
        "+threads='32' ; quoted\n",
    ]  # both: the same value whichever nfs-utils reads the file
    assert "threads = 99\n" in after and "[mountd]\nthreads=4\n" in after


def test_what_nfs_utils_ignores_is_not_read() -> None:
    text = (
        "threads=1\n"  # before any section
        '[nfsd "pool"]\n'  # a subsection is not [nfsd]
        "threads=2\n"
        "[nfsd]\n"
        "threads=\n"  # an empty value sets nothing
        "# threads=3\n"
        "include = -/etc/nfs-extra.conf\n"
        "threads=5"  # no line end: ignored
    )
    conf = parse(text)
    assert [s.value for s in conf.find("nfsd", "threads")] == []
    assert conf.includes == ("/etc/nfs-extra.conf",)
    assert [(s.section, s.arg) for s in conf.settings] == [("nfsd", "pool")]
    after = set_value(conf, "nfsd", "threads", "16")
    assert after.endswith("threads=5")  # still last, still without a line end: still ignored
    assert [s.value for s in parse(after).find("nfsd", "threads")] == ["16"]


def test_no_nfsd_section_adds_one_at_the_end_with_the_files_line_ends() -> None:
    text = "[general]\r\npipefs-directory=/run/rpc_pipefs\r\n"
    after = set_value(parse(text), "nfsd", "threads", "16")
    assert after == text + "\r\n[nfsd]\r\nthreads=16\r\n"
    dangling = "[general]\npipefs-directory=/x\n# no line end"
    after = set_value(parse(dangling), "nfsd", "threads", "16")
    assert after == "[general]\npipefs-directory=/x\n\n[nfsd]\nthreads=16\n# no line end"


def test_a_later_file_wins_and_odd_values_are_refused() -> None:
    base = parse("[nfsd]\nthreads=8\n", "/etc/nfs.conf")
    drop_in = parse("[nfsd]\nthreads=16\n", "/etc/nfs.conf.d/local.conf")
    found = effective([base, drop_in], "nfsd", "threads")
    assert found is not None and found[0].path == "/etc/nfs.conf.d/local.conf" and found[1].value == "16"
    assert effective([base, parse("[nfsd]\nvers3=n\n")], "nfsd", "threads")[1].value == "8"  # type: ignore[index]
    assert effective([parse("")], "nfsd", "threads") is None
    with pytest.raises(ConfigError, match="not a plain value"):
        set_value(base, "nfsd", "threads", "8\n[exports]")
    continued = parse("[nfsd]\nthreads=\\\n 8\n", "/etc/nfs.conf")
    assert [s.value for s in continued.find("nfsd", "threads")] == ["8"]  # joined as nfs-utils joins it
    with pytest.raises(ConfigError, match=r"/etc/nfs.conf line 2: threads is continued"):
        set_value(continued, "nfsd", "threads", "16")
