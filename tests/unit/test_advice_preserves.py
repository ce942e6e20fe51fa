"""Property: what Apply would write from a recommendation never grants a client more access and never drops or
changes an option nfstune does not tune, whatever the admin's exports and fstab hold; every other byte of both
files stays. The files are generated from the real vocabulary: bare paths, "-opts" defaults words, "host (rw)"
traps, continuation lines, comments, escaped and quoted paths, every client kind, and fstab entries of the same
share written in other spellings with the admin's own options."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nfstune.advice.recommend import Measured, recommend
from nfstune.changes.apply import plan_apply
from nfstune.errors import ConfigError
from nfstune.nfs.export_options import ASYNC, ExportOptions
from nfstune.nfs.exports import ExportEntry, encode_word, files_in_order, parse
from nfstune.nfs.exports_rewrite import defining_entry
from nfstune.nfs.fstab import Fstab
from nfstune.nfs.fstab_rewrite import TUNED_MOUNT_OPTIONS, find_nfs_entry
from nfstune.nfs.mounts import escape_field, mount_source, split_source
from nfstune.statistics.verdict import Question, judge

SYNC_S = dict(enumerate([26.0, 25.8, 26.3, 26.1, 25.9], 1))  # seconds per round
FASTER, SAME = judge(
    [
        Question(("small-files",), SYNC_S, dict(enumerate([6.4, 6.1, 5.9, 6.2, 6.0], 1)), False, ("sync", "async")),
        Question(
            ("small-files",), SYNC_S, dict(enumerate([26.2, 25.7, 26.0, 26.4, 25.9], 1)), False, ("sync", "async")
        ),
    ]
)

OPTIONS = [
    "ro",
    "rw",
    "sync",
    "async",
    "root_squash",
    "no_root_squash",
    "all_squash",
    "no_all_squash",
    "anonuid=1000",
    "anongid=100",
    "anonuid=-1",
    "fsid=7",
    "fsid=0",
    "fsid=root",
    "fsid=0123456789abcdef0123456789ABCDEF",
    "sec=krb5p:sys",
    "sec=sys",
    "sec=krb5i",
    "insecure",
    "secure",
    "crossmnt",
    "nohide",
    "mountpoint",
    "mountpoint=/mnt/x",
    "mp",
    "nordirplus",
    "no_wdelay",
    "wdelay",
    "subtree_check",
    "no_subtree_check",
    "reexport=none",
    "xprtsec=tls:mtls",
    "insecure_locks",
    "no_acl",
    "refer=/a@h",
    "security_label",
    "bogus",
]
CLIENTS = [
    "*",
    "host1",
    "nas.lan",
    "10.1.0.0/16",
    "192.168.1.0/24",
    "2001:db8::/32",
    "@team",
    "*.lan",
    "h?",
    "gss/krb5",
    "10.0.0.5",
    "fe80::1",
]
PATH_PARTS = ["srv", "data", "my share", "ünï", "a\tb", 'q"x', "back\\slash", "#x", "export", "ro", "caf\udce9"]
SERVERS = ["nas", "10.0.0.5", "2001:db8::1", "NAS.lan"]

# async often, so that most examples have a client for the recommendation to change
options_lists = st.lists(st.one_of(st.sampled_from(OPTIONS), st.just("async")), max_size=5).map(",".join)


@st.composite
def paths(draw: st.DrawFn) -> str:
    return "/" + "/".join(draw(st.lists(st.sampled_from(PATH_PARTS), min_size=1, max_size=3)))


@st.composite
def path_word(draw: st.DrawFn, path: str) -> str:
    word = encode_word(path)
    if not set(path) & set('"\\\n') and draw(st.booleans()):
        return f'"{path}"'  # quotes group and vanish
    return word


@st.composite
def client_words(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["opts", "bare", "trap", "defaults", "opts"]))
    host = draw(st.sampled_from(CLIENTS))
    if kind == "bare":
        return host
    if kind == "trap":  # "host (rw)": host with defaults, everyone with the list
        return f"{host} ({draw(options_lists)})"
    if kind == "defaults":
        return f"-{draw(options_lists) or 'ro'}"
    return f"{host}({draw(options_lists)})"


@st.composite
def entries(draw: st.DrawFn, path: str) -> str:
    words = [draw(path_word(path)), *draw(st.lists(client_words(), max_size=4))]
    out = words[0]
    for word in words[1:]:
        out += draw(st.sampled_from([" ", "\t", "  ", " \\\n    ", " \\\n"])) + word
    return out + draw(st.sampled_from(["", "  # a comment", " "]))


@st.composite
def exports_files(draw: st.DrawFn, share: str) -> dict[str, str]:
    files: dict[str, str] = {}
    for name in draw(st.lists(st.sampled_from(["/etc/exports", "/etc/exports.d/a.exports"]), max_size=2, unique=True)):
        lines = []
        for _ in range(draw(st.integers(0, 4))):
            what = draw(st.sampled_from(["share", "share", "other", "comment", "blank"]))
            if what == "share":  # exportfs reads "/srv/x/" and "/srv//x" as /srv/x (realpath(3))
                lines.append(draw(entries(share + draw(st.sampled_from(["", "", "/", "//"])))))
            elif what == "other":
                lines.append(draw(entries(draw(paths()))))
            else:
                lines.append("# nas exports" if what == "comment" else "")
        end = draw(st.sampled_from(["\n", "\n", "\n", "\r\n"]))  # a CR ends an export, a blank CRLF line the file
        files[name] = end.join(lines) + draw(st.sampled_from([end, ""]))
    return files


@st.composite
def fstabs(draw: st.DrawFn, server: str, share: str) -> str | None:
    if draw(st.integers(0, 5)) == 0:
        return None
    lines = ["# /etc/fstab", "UUID=1234 / ext4 defaults 0 1"]
    for _ in range(draw(st.integers(0, 3))):
        spelling = draw(st.sampled_from(["same", "slash", "upper", "other"]))
        if spelling == "other":
            device = mount_source(server, draw(paths()))
        else:
            device = mount_source(server.upper() if spelling == "upper" else server, share)
            device += "/" if spelling == "slash" else ""
        point = draw(st.sampled_from(["/mnt/nfs", "/home/me/My Data", "/data", "/mnt/nfs-2"]))
        fstype = draw(st.sampled_from(["nfs", "nfs4"]))
        opts = draw(
            st.lists(
                st.sampled_from(
                    [
                        "ro",
                        "rw",
                        "sec=krb5p",
                        "noexec",
                        "x-systemd.automount",
                        "soft",
                        "hard",
                        "vers=3",
                        "nfsvers=4.1",
                        "v4.2",
                        "_netdev",
                        "nofail",
                        "rsize=65536",
                        "defaults",
                    ]
                ),
                max_size=5,
            )
        )
        fields = [escape_field(device), escape_field(point), fstype]
        if opts or draw(st.booleans()):
            fields.append(",".join(opts) or "defaults")
            fields += draw(st.sampled_from([[], ["0"], ["0", "0"]]))
        # libmount reads nothing after the pass number: the admin's comment (or any words) there
        after_pass = draw(st.sampled_from(["", "  # the NAS", "\t#", " #glued  to\tit", " backups here"]))
        lines.append(draw(st.sampled_from([" ", "\t", "  "])).join(fields) + (after_pass if len(fields) == 6 else ""))
    return "\n".join(lines) + draw(st.sampled_from(["\n", ""]))


@st.composite
def cases(draw: st.DrawFn) -> tuple[dict[str, str], str, str, str | None, str | None, Measured]:
    share = draw(paths())
    server = draw(st.sampled_from(SERVERS))
    measured = Measured(
        async_vs_sync=draw(st.sampled_from([{}, {"small-files": FASTER}, {"small-files": SAME}])),
        best_version=draw(st.sampled_from([None, "3", "4.1", "4.2"])),
    )
    spec = draw(st.sampled_from([None, "*", "10.0.0.0/24", "host1", "@team", "2001:db8::/64", "nas.lan"]))
    return draw(exports_files(share)), share, server, draw(fstabs(server, share)), spec, measured


def _without_async(options: ExportOptions) -> ExportOptions:
    sec = tuple(replace(f, flags=f.flags & ~ASYNC) for f in options.sec)
    xprtsec = tuple(replace(f, flags=f.flags & ~ASYNC) for f in options.xprtsec)
    return replace(options, flags=options.flags & ~ASYNC, sec=sec, xprtsec=xprtsec)


def _first(entry: ExportEntry) -> dict[str, ExportOptions]:
    first: dict[str, ExportOptions] = {}
    for client in entry.clients:
        first.setdefault(client.name, client.options)
    return first


def _untuned(options: str | None) -> list[str]:
    return [o for o in (options or "").split(",") if o and o.partition("=")[0] not in TUNED_MOUNT_OPTIONS]


@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_applying_a_recommendation_never_weakens_and_keeps_every_other_byte(
    case: tuple[dict[str, str], str, str, str | None, str | None, Measured],
) -> None:
    files, share, server, fstab, spec, measured = case
    found = defining_entry(files, share)
    try:
        rec = recommend(share=share, server=server, exports=files, fstab=fstab, client_spec=spec, measured=measured)
    except ConfigError:
        # a new export to everyone is refused, and so is one that is already written after where exportfs stops
        assert found is None and (spec in (None, "*") or any(parse(t).stop for t in files.values()))
        return
    stops = {name: parse(text).stop for name, text in files.items()}
    try:
        plan = plan_apply(
            files, fstab, share, rec.exports_line, rec.fstab_line, server=("nas", "k"), client=("client", "k")
        )
    except ConfigError as exc:
        assert any(stops.values()), f"refused without a file exportfs stops reading: {exc}"
        return
    # --- exports: every other entry of the share, whatever its spelling, is named
    if not any(stops.values()):
        docs = [parse(text) for text in files.values()]
        spelled = [e for doc in docs for e in doc.entries if e.path is not None and e.path.rstrip("/") == share]
        assert len([n for n in rec.notes if f" also exports {share} " in n]) == max(len(spelled) - 1, 0)
    # --- exports: only the share's entry changed, each client as it was with sync where it was async
    edit = plan.server_edit
    assert edit.path in files or (found is None and edit.path == "/etc/exports")
    assert stops.get(edit.path) is None  # never written over a file exportfs does not read to its end
    new_text = edit.new.decode("utf-8", "surrogateescape")
    old_text = files.get(edit.path, "")
    if found is None:
        assert new_text.startswith(old_text) and new_text[len(old_text) :].lstrip("\n").count("\n") == 1
        (added,) = parse(new_text[len(old_text) :]).entries
        assert added.path == share and [c.spec for c in added.clients] == [spec]
        assert all(c.options.read_only or c.spec not in ("*", "") for c in added.clients)
    else:
        before = found[2]
        after = parse(new_text).find(share)
        assert after is not None and after.error is None
        assert new_text[: before.start] == old_text[: before.start]
        assert new_text[after.start + len(after.text) :] == old_text[before.start + len(before.text) :]
        old, new = _first(before), _first(after)
        assert list(old) == list(new) and [c.name for c in before.clients] == [c.name for c in after.clients]
        for name, options in old.items():
            assert _without_async(new[name]) == _without_async(options), name  # nothing but sync/async changed
            assert not new[name].flag(ASYNC) or options.flag(ASYNC)  # never async where it was sync
            assert not new[name].flag(ASYNC) or any("cannot be rewritten" in n for n in rec.notes)
        if not any(options.flag(ASYNC) for options in old.values()):
            assert edit.noop  # a sync export is left byte for byte
    # --- fstab: the admin's entry keeps its mount point and every option but the version; or one new line
    old_fstab = Fstab.parse(fstab or "")
    new_fstab = Fstab.parse(plan.client_edit.new.decode("utf-8", "surrogateescape"))
    source = mount_source(server, share)
    index = find_nfs_entry(old_fstab, source)
    old_lines = [line.text for line in old_fstab.lines]
    new_lines = [line.text for line in new_fstab.lines]
    if index is None:
        assert new_lines[:-1] == old_lines and len(new_lines) == len(old_lines) + 1
        entry = new_fstab.lines[-1].entry
        assert entry is not None and entry.mount_point not in {e.mount_point for e in old_fstab.entries()}
    else:
        assert new_lines[:index] + new_lines[index + 1 :] == old_lines[:index] + old_lines[index + 1 :]
        entry, was = new_fstab.lines[index].entry, old_fstab.lines[index].entry
        assert entry is not None and was is not None
        assert (entry.device, entry.mount_point, entry.fstype) == (was.device, was.mount_point, was.fstype)
        assert _untuned(str(entry.options or "")) == _untuned(str(was.options or ""))
        assert new_fstab.lines[index].rest == old_fstab.lines[index].rest  # the admin's comment stays
        if measured.best_version is None:
            assert new_lines[index] == old_lines[index]
    parsed = split_source(entry.device)
    assert parsed is not None and parsed[0].lower() == server.lower() and parsed[1].rstrip("/") == share.rstrip("/")
    assert set(files_in_order(files)) == set(files)
