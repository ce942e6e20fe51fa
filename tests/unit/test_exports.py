"""exports(5): the reader against nfs-utils' rules, exact round trips, edits that touch one client, findings.

The expected `exportfs -s` results below were seen on exportfs 2.6.2 in the lab (tests/unit/test_exportfs_replay.py
checks the whole corpus against a capture made there); the host names resolve as themselves here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from nfstune.nfs.export_options import OptionError, c_strtol, option_findings, parse_options, split_options
from nfstune.nfs.exportfs_view import Resolved, expected_exportfs_s, exported, parse_exportfs_s
from nfstune.nfs.exports import ExportEntry, Trivia, encode_word, parse
from nfstune.nfs.exports_findings import findings

CORPUS = Path(__file__).parent.parent / "corpus" / "exports"
DEFAULT = ("sync", "wdelay", "hide", "no_subtree_check", "sec=sys")
RO = (*DEFAULT, "ro", "secure", "root_squash", "no_all_squash")
RW = (*DEFAULT, "rw", "secure", "root_squash", "no_all_squash")


@dataclass(frozen=True)
class Case:
    id: str
    text: str  # the whole /etc/exports


def corpus_cases() -> list[Case]:
    """tests/corpus/exports: one case per line in realworld.txt and hostile.txt; in multiline.txt cases end at a
    "----" line, or at "----no-newline" for a case whose last line has no newline (see tests/corpus/README.md)."""
    cases = []
    for name in ("realworld", "hostile"):
        text = (CORPUS / f"{name}.txt").read_bytes().decode()  # not read_text(): it turns \r into \n
        cases += [Case(f"{name}:{n}", line + "\n") for n, line in enumerate(text.split("\n")[:-1], 1)]
    current, number = "", 0
    for line in (CORPUS / "multiline.txt").read_bytes().decode().split("\n")[:-1]:
        if line in ("----", "----no-newline"):
            number += 1
            cases.append(Case(f"multiline:{number}", current if line == "----" else current[:-1]))
            current = ""
        else:
            current += line + "\n"
    assert current == "", "multiline.txt must end with a delimiter line"
    return cases


def shown(text: str, version: tuple[int, int, int] = (2, 6, 2)) -> dict[str, dict[str, tuple[str, ...]]]:
    return expected_exportfs_s(parse(text, version))


# --- the reader -------------------------------------------------------------------------------------------------


def test_the_corpus_has_real_world_and_hostile_cases_that_all_round_trip() -> None:
    cases = corpus_cases()
    assert len(cases) >= 200
    assert {c.id.split(":")[0] for c in cases} == {"realworld", "hostile", "multiline"}
    assert sum("\r\n" in c.text for c in cases) == 6  # carriage returns survive loading
    for case in cases:
        doc = parse(case.text)
        assert doc.render() == case.text, case.id


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a word starting with "#" is a comment; "#" inside a word is not
        ("/export/a client(rw) # note\n", {"/export/a": {"client": RW}}),
        ("/export/a host#1(rw)\n", {"/export/a": {"host#1": RW}}),
        ("/export/a client(rw)#note\n", {}),
        ("/export/a # note\n", {"/export/a": {"*": RO}}),
        # quotes and octal escapes
        ('"/export/with space" client(rw)\n', {"/export/with space": {"client": RW}}),
        ("/export/with\\040space client(rw)\n", {"/export/with space": {"client": RW}}),
        ("/export/a\\000junk client(rw)\n", {"/export/a": {"client": RW}}),
        ('/export/a "client(rw, sync)"\n', {"/export/a": {"client": RW}}),
        # no client, "(opts)" without a host, a space before "("
        ("/export/a\n", {"/export/a": {"*": RO}}),
        ("/export/a client (rw)\n", {"/export/a": {"client": RO, "*": RW}}),
        ("/export/a client()\n", {"/export/a": {"client": RO}}),
        # "-opts" defaults, also at the end of a line, where they export to everyone
        (
            "/export/a -rw,async client nas(ro)\n",
            {"/export/a": {"client": ("async", *RW[1:]), "nas": ("async", *RO[1:])}},
        ),
        ("/export/a client(rw) -async\n", {"/export/a": {"client": RW, "*": ("async", *RO[1:])}}),
        # client kinds: "[::1]" is a wildcard pattern
        (
            "/export/a [::1](rw) @ng(rw) gss/krb5p(rw) *.example.com(rw)\n",
            {"/export/a": {"[::1]": RW, "@ng": RW, "gss/krb5p": RW, "*.example.com": RW}},
        ),
        # one bad option stops the whole file; clients before it on the line still count
        ("/export/a client(rw) nas(bogus)\n/export/b client(rw)\n", {"/export/a": {"client": RW}}),
        ("/export/a client(,rw)\n", {}),
        # a \r where a path should start (a blank CRLF line) ends the file without a message
        ("/export/a client(rw)\r\n\r\n/export/b client(rw)\r\n", {"/export/a": {"client": RW}}),
        # a \f ends an export early: what follows on the line is read as a new path
        ("/export/a client(rw) \f nas(ro)\n", {"/export/a": {"client": RW}, "nas(ro)": {"*": RO}}),
        # continuation lines; a continuation inside an option list ends the word
        ("/export/a \\\n   client(rw)\n", {"/export/a": {"client": RW}}),
        ("/export/a client(rw,\\\nsync)\n", {}),
        # invalid addresses and prefixes are skipped, the rest of the line counts
        (
            "/export/a 10.99.0.0/33(rw) 10.99.0/24(rw) 10.99.0.0/(rw) 10.99.0.5/24(ro)\n",
            {"/export/a": {"10.99.0.0/": RW, "10.99.0.5/24": RO}},
        ),
        # the first of two entries for one client wins; names compare without case
        ("/export/a client(rw) client(ro) @ng(rw) @NG(ro)\n", {"/export/a": {"client": RW, "@ng": RW}}),
        # etab is read back: a host name with a space splits there
        ('/export/a "*.ex ample"(rw)\n', {"/export/a": {"*.ex": RO, "ample": RW}}),
        # path limit: 1024 bytes are read, 1025 stop the file silently
        ("/export/" + "p" * 1016 + " client(rw)\n", {"/export/" + "p" * 1016: {"client": RW}}),
        ("/export/" + "p" * 1017 + " client(rw)\n", {}),
        # a client word of 512 bytes is a syntax error; 511 pass, but the etab line then overfills the word
        ("/export/a *" + "h" * 507 + "(rw)\n", {}),
        ("/export/a *" + "h" * 506 + "(rw)\n", {}),
    ],
)
def test_exportfs_s_is_predicted_as_exportfs_2_6_2_printed_it(text: str, expected: dict[str, object]) -> None:
    assert shown(text) == expected


def test_options_print_in_exportfs_order_with_sec_groups() -> None:
    assert shown("/export/a client(sec=krb5:krb5i:krb5p,rw,sec=sys,ro)\n")["/export/a"]["client"] == (
        *DEFAULT[:4],
        "sec=krb5:krb5i:krb5p",
        "rw",
        "secure",
        "root_squash",
        "no_all_squash",
        "sec=sys",
        "ro",
        "secure",
        "root_squash",
        "no_all_squash",
    )
    assert shown("/export/a client(fsid=root,anonuid=-1,anongid=4294967295,mp,refer=/x@h)\n")["/export/a"][
        "client"
    ] == (*DEFAULT[:4], "fsid=0", "mountpoint", "anonuid=-1", "anongid=-1", "refer=/x@h", *RO[4:])
    everything = (
        "nordirplus,security_label,no_acl,pnfs,insecure_locks,crossmnt,nohide,no_wdelay,async,insecure,all_squash"
    )
    assert shown(f"/export/a client({everything})\n")["/export/a"]["client"] == (
        "async",
        "no_wdelay",
        "nohide",
        "crossmnt",
        "no_subtree_check",
        "insecure_locks",
        "nordirplus",
        "security_label",
        "no_acl",
        "pnfs",
        "sec=sys",
        "ro",
        "insecure",
        "root_squash",
        "all_squash",
    )
    # "-sec=" in the defaults keeps the flavour's own ro: the client's rw comes after, outside that sec= scope
    assert shown("/export/a -sec=krb5 client(rw)\n")["/export/a"]["client"][4:6] == ("sec=krb5", "ro")


def test_xprtsec_and_reexport_are_unknown_to_2_6_2_but_read_by_later_versions() -> None:
    assert shown("/export/a client(rw,xprtsec=tls)\n") == {}
    assert parse("/export/a client(xprtsec=tls)\n", (2, 6, 2)).entries[0].error == 'unknown keyword "xprtsec=tls"'
    later = shown("/export/a client(rw,xprtsec=tls:mtls,reexport=auto-fsidnum)\n", (2, 8, 0))["/export/a"]["client"]
    assert later[-1] == "xprtsec=tls:mtls" and "reexport=auto-fsidnum" in later


def test_entries_keep_errors_and_reading_resumes_on_the_next_line() -> None:
    doc = parse("/export/a client(rw) nas(bogus) x(rw)\n/export/b client(\n/export/c\n")
    a, b, c = doc.entries
    assert (a.path, [cl.name for cl in a.clients], a.error) == ("/export/a", ["client"], 'unknown keyword "bogus"')
    assert a.text == "/export/a client(rw) nas(bogus) x(rw)"
    assert (b.error, b.line, c.error, c.line) == ("syntax error: bad option list", 2, None, 3)
    assert doc.stop is a
    assert [e.path for e in exported(doc)[0]] == ["/export/a"]


def test_hostname_clients_are_resolved_and_deduplicated_by_address() -> None:
    answers = {
        "CLIENT": Resolved("client", frozenset({"10.99.0.2"})),
        "10.99.0.2": Resolved("10.99.0.2", frozenset({"10.99.0.2"})),
    }
    answers["client"] = answers["CLIENT"]
    doc = parse("/export/a CLIENT(rw) 10.99.0.2(ro) nosuch(rw)\n")
    done, skipped = exported(doc, answers.get)
    assert [(e.host, e.options.read_only) for e in done] == [("client", False)]
    assert [s.reason for s in skipped] == [
        "duplicated export entries: the first one counts",
        "Failed to resolve nosuch",
    ]
    assert expected_exportfs_s(doc, answers.get) == {"/export/a": {"client": RW}}


def test_effective_options_come_from_defaults_then_dash_options_then_the_client() -> None:
    client = parse("/export/a -async,no_root_squash client(rw,root_squash)\n").client("/export/a", "client")
    assert (client.defaults, client.explicit_options) == (("async,no_root_squash",), ("rw", "root_squash"))
    assert not client.options.read_only and client.options.root_squash and client.options.exportfs_form()[0] == "async"
    bare = parse("/export/a client\n").client("/export/a", "client")
    assert (bare.explicit, bare.options.read_only, bare.options.exportfs_form()) == (None, True, RO)


# --- edits ------------------------------------------------------------------------------------------------------

FILE = """# lab exports\n/export/a  client(rw,sync)\tnas(ro)   # keep\n\n/export/b -ro \\\n   client\n/export/c\n"""


def test_changing_one_clients_options_changes_only_its_word() -> None:
    doc = parse(FILE)
    changed = doc.with_client_options("/export/a", "nas", ["rw", "async"])
    assert changed.render() == FILE.replace("nas(ro)", "nas(rw,async)")
    assert changed.client("/export/a", "nas").options.exportfs_form()[0] == "async"
    assert changed.client("/export/a", "client").explicit == "rw,sync"
    # a client without parentheses, under "-ro": its own list is added, the defaults stay
    changed = doc.with_client_options("/export/b", "client", ["rw"])
    assert changed.render() == FILE.replace("   client\n", "   client(rw)\n")
    assert not changed.client("/export/b", "client").options.read_only
    # the "everyone" a bare path implies gets a word of its own
    assert doc.with_client_options("/export/c", "*", ["ro", "all_squash"]).render() == FILE.replace(
        "/export/c\n", "/export/c *(ro,all_squash)\n"
    )


def test_edits_that_would_change_the_rest_of_the_file_are_refused() -> None:
    doc = parse(FILE)
    with pytest.raises(KeyError):
        doc.with_client_options("/export/a", "nobody", ["rw"])
    with pytest.raises(KeyError):
        doc.with_client_options("/export/z", "client", ["rw"])
    for bad in (["rw,sync"], ["rw)"], [""], ["bogus"]):
        with pytest.raises(ValueError):
            doc.with_client_options("/export/a", "nas", bad)


def test_encode_word_escapes_what_the_reader_would_split_or_decode() -> None:
    assert encode_word("/export/with space") == "/export/with\\040space"
    assert encode_word("#x") == "\\043x" and encode_word("a#x") == "a#x"
    assert encode_word('a"b\\0') == "a\\042b\\1340"
    for impossible in ("a\\000", "a\\101", "a\x00b"):
        with pytest.raises(ValueError):
            encode_word(impossible)


# --- options and findings ---------------------------------------------------------------------------------------


def test_option_lists_split_and_numbers_parse_as_in_c() -> None:
    assert split_options(" rw, sync,") == ["rw", "sync"]
    assert split_options("rw ,,sync") == ["rw ", "", "sync"]
    assert c_strtol(" -12x", 10) == (-12, 4)
    assert c_strtol("0x1f", 0, unsigned=True) == (31, 4)
    assert c_strtol("010", 0, unsigned=True) == (8, 3)
    assert c_strtol("-1", 0, unsigned=True) == (2**64 - 1, 2)
    for bad in ("anonuid=", "anonuid=0x10", "fsid=0x", "fsid=abc", "sec=", "sec=KRB5", "squash_uids=1-2-3", "RW"):
        with pytest.raises(OptionError):
            parse_options(bad)
    assert parse_options("fsid=zz0123456789abcdef0123456789abcdefzz").uuid == "zz0123456789abcdef0123456789abcdefzz"


def test_numbers_of_any_length_saturate_as_strtol_does() -> None:
    huge = "7" * 5000  # int() alone refuses more than 4300 digits
    assert c_strtol(huge + "x", 10) == (2**63 - 1, 5000)
    assert c_strtol("-" + huge, 10) == (-(2**63), 5001)
    assert c_strtol("0x" + "f" * 5000, 0, unsigned=True) == (2**64 - 1, 5002)
    assert c_strtol("0" * 5000 + "12", 10) == (12, 5002)
    long_max = str(2**63 - 1)
    for name in ("anonuid", "anongid"):
        assert parse_options(f"{name}={huge}") == parse_options(f"{name}={long_max}")
    assert parse_options(f"fsid={huge}") == parse_options(f"fsid={2**64 - 1}")
    for bad in (f"anonuid={huge}x", f"squash_uids=0-{huge}"):  # the latter is -1 as an int, as in C
        with pytest.raises(OptionError):
            parse_options(bad)
    doc = parse(f"/srv client(rw,anonuid={huge})\n/srv/b client(rw)\n")
    assert [entry.path for entry in doc.entries] == ["/srv", "/srv/b"]


def kinds(text: str) -> list[tuple[str, str]]:
    return [(f.finding.kind, f.finding.option) for f in findings(parse(text))]


def test_findings_name_noops_and_risks() -> None:
    assert kinds("/export/a client(rw,sync,no_subtree_check)\n") == []
    assert kinds("/export/a client(rw,async,no_wdelay)\n") == [("noop", "no_wdelay"), ("risk", "async")]
    assert kinds("/export/a client(rw,wdelay)\n") == [("noop", "wdelay")]
    assert kinds("/export/a *(rw,no_root_squash)\n") == [("risk", "no_root_squash")]
    assert kinds("/export/a *.lan(no_root_squash) 10.0.0.0/0(no_root_squash) client(no_root_squash)\n") == [
        ("risk", "no_root_squash"),
        ("risk", "no_root_squash"),
    ]
    assert kinds("/export/a client(insecure,fsid=0) nas(fsid=root)\n") == [
        ("risk", "insecure"),
        ("risk", "fsid=0"),
        ("risk", "fsid=root"),
    ]
    assert kinds("/export/a client(rw,ro,sync,sync)\n") == [("noop", "rw"), ("noop", "sync")]
    assert kinds("/export/a client(sec=krb5,rw,sec=sys,ro)\n") == []  # each sec= has its own ro/rw
    assert [k for k, _ in kinds("/export/a client (rw)\n")] == ["risk"]
    assert [k for k, _ in kinds("/export/a\n/export/b [::1](ro) client(ro) client(rw)\n")] == ["risk", "risk", "noop"]


def test_messages_state_the_facts() -> None:
    written = [["no_wdelay", "async"]]
    messages = {f.option: f.message for f in option_findings(written, parse_options("no_wdelay,async"), "c", False)}
    assert "no effect when async is also set" in messages["no_wdelay"]
    assert "crash" in messages["async"] and "lost or corrupted" in messages["async"]
    v2 = option_findings([["no_wdelay"]], parse_options("no_wdelay"), "c", False)[0]
    assert "NFSv2" in v2.message and "NFSv3 and NFSv4" in v2.message


# --- exportfs output ---------------------------------------------------------------------------------------------

EXPORTFS_S = """/export/with\\040space  10.99.0.2(sync,wdelay,hide,no_subtree_check,fsid=7,anonuid=1000,sec=sys,rw,secure,no_root_squash,no_all_squash)
/export/a  *(sync,wdelay,hide,no_subtree_check,sec=krb5p,rw,secure,root_squash,no_all_squash)
"""  # noqa: E501  (lab capture)


def test_exportfs_s_output_parses_to_a_table() -> None:
    table = parse_exportfs_s(EXPORTFS_S)
    assert table["/export/with space"]["10.99.0.2"][4:6] == ("fsid=7", "anonuid=1000")
    assert table["/export/a"]["*"][4] == "sec=krb5p"
    assert parse_exportfs_s("") == {}
    with pytest.raises(ValueError):
        parse_exportfs_s("/export/a client\n")


# --- properties -------------------------------------------------------------------------------------------------

TRICKY = st.sampled_from([*'"\\#\n\t ()\r\f\v,-*@/:[]?=\x00', "\\\n", "\\040", "a", "rw", "/export/a", "é"])
SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MANY = settings(SETTINGS, max_examples=1500)


@MANY
@given(st.lists(TRICKY, max_size=60).map("".join) | st.text(max_size=200))
def test_any_text_round_trips_and_its_items_cover_it(text: str) -> None:
    doc = parse(text)
    assert doc.render() == text
    position = 0
    for item in doc.items:
        assert item.start == position and item.text
        position += len(item.text)
        if isinstance(item, ExportEntry):
            for client in item.clients:
                assert item.start <= client.start <= client.end <= item.start + len(item.text)
        else:
            assert isinstance(item, Trivia)
    expected_exportfs_s(doc)
    findings(doc)


NAMES = st.sampled_from(["client", "nas", "10.99.0.2", "10.99.0.0/24", "*", "*.lan", "@ng", "gss/krb5p", "fd00::/64"])
OPTIONS = st.lists(
    st.sampled_from(
        [
            "rw",
            "ro",
            "sync",
            "async",
            "no_root_squash",
            "insecure",
            "fsid=7",
            "sec=krb5:sys",
            "anonuid=1000",
            "no_subtree_check",
            "crossmnt",
        ]
    ),
    max_size=4,
)
PATHS = st.sampled_from(["/export/a", "/export/with space", "/export/x#y", "/export/b\\c", '/export/"q"'])
SPACE = st.sampled_from([" ", "\t", "  ", " \\\n  "])
Entries = list[tuple[str, list[tuple[str, list[str] | None]]]]
ENTRY = st.tuples(
    PATHS, st.lists(st.tuples(NAMES, st.none() | OPTIONS), min_size=1, max_size=4, unique_by=lambda c: c[0])
)


def render_entries(entries: Entries, space: str, tail: str) -> str:
    lines = []
    for path, clients in entries:
        words = [encode_word(path)] + [name if opts is None else f"{name}({','.join(opts)})" for name, opts in clients]
        lines.append(space.join(words) + tail)
    return "".join(lines)


@SETTINGS
@given(st.lists(ENTRY, min_size=1, max_size=5), SPACE, st.sampled_from(["\n", " # note\n", "\n\n# c\n", "\t\n"]))
def test_generated_entries_read_back_as_written(entries: Entries, space: str, tail: str) -> None:
    doc = parse(render_entries(entries, space, tail))
    read = [
        (e.path, [(c.spec, None if c.explicit is None else list(c.explicit_options)) for c in e.clients])
        for e in doc.entries
    ]
    assert read == [(path, list(clients)) for path, clients in entries]
    assert all(e.error is None for e in doc.entries)


@SETTINGS
@given(st.lists(ENTRY, min_size=1, max_size=5), SPACE, st.data())
def test_changing_one_client_changes_only_that_client(entries: Entries, space: str, data: st.DataObject) -> None:
    text = render_entries(entries, space, "\n")
    doc = parse(text)
    entry = data.draw(st.sampled_from(doc.entries))
    assume(doc.find(entry.path or "") is entry)  # the first entry for a path is the one edits go to
    target = data.draw(st.sampled_from(entry.clients))
    options = data.draw(OPTIONS)
    changed = doc.with_client_options(entry.path or "", target.name, options).render()
    end = len(changed) - (len(text) - target.end)
    assert changed[: target.start] == text[: target.start] and changed[end:] == text[target.end :]
    assert changed[target.start : end] == encode_word(target.name) + f"({','.join(options)})"
    before, after = parse(text), parse(changed)
    for old, new in zip(before.entries, after.entries, strict=True):
        for c_old, c_new in zip(old.clients, new.clients, strict=True):
            if c_old.start != target.start:
                assert (c_old.spec, c_old.options) == (c_new.spec, c_new.options)


@MANY
@given(st.text(min_size=1, max_size=80) | st.lists(TRICKY, min_size=1, max_size=20).map("".join))
def test_encoded_paths_read_back(path: str) -> None:
    try:
        word = encode_word(path)
    except ValueError:
        assume(False)
    doc = parse(word + " client(rw)\n")
    assert doc.entries[0].path == path and doc.entries[0].clients[0].spec == "client"


@pytest.mark.parametrize("spelling", ["/export/a/", "/export//a", "/export/./a", "//export/a///"])
def test_a_path_exportfs_resolves_to_the_same_directory_is_the_same_export(spelling: str) -> None:
    """getexportent() puts every path through realpath(3): exportfs -s lists "/export/a/" as /export/a, and
    the lab's exportfs called "/export/a/ client(rw)" then "/export/a client(ro)" incompatible duplicated
    entries, the second ignored (tests/captures/exportfs, the multiline case)."""
    doc = parse(f"{spelling} client(rw)\n/export/a client(ro)\n")
    assert shown(f"{spelling} client(rw)\n") == {"/export/a": {"client": RW}}
    assert doc.find("/export/a") is doc.entries[0] and doc.find(spelling) is doc.entries[0]
    (skipped,) = exported(doc)[1]
    assert (skipped.entry, skipped.reason) == (doc.entries[1], "duplicated export entries: the first one counts")
    assert ("noop", "") in kinds(f"{spelling} client(rw)\n/export/a client(ro)\n")


def test_a_path_that_may_pass_a_symlink_is_kept_as_written() -> None:
    # realpath(3) resolves a symbolic link before "..", and what the server's directories hold is not known here
    assert shown("/export/b/../a client(rw)\n") == {"/export/b/../a": {"client": RW}}
    assert parse("/export/b/../a client(rw)\n").find("/export/a") is None
