"""Any text, however wrong, gets the parser's own answer: its error, a skipped line or a None, never a crash.

Texts are real captures (tests/captures) with a few numbers or slices replaced, or plain noise: runs of digits
longer than int() takes (4300), NULs, and bytes that are not UTF-8 as reading with surrogateescape gives them.
"""

from __future__ import annotations

import contextlib
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from nfstune.bench.fallback import DdStreamParser, TarParser
from nfstune.bench.fio import FioStreamParser
from nfstune.bench.iperf import IperfOutputError, parse_iperf_json
from nfstune.bench.sampler import SampleParser
from nfstune.bench.workloads import WorkloadId, WorkloadOutputError
from nfstune.facts.probe_output import parse_probe_output
from nfstune.nfs import exportfs_view, exports, exports_findings
from nfstune.nfs.fstab import Fstab
from nfstune.nfs.kernel_view import connected_clients, parse_export_cache, parse_exportfs_s, parse_fh_cache
from nfstune.nfs.mounts import parse_proc_mounts
from nfstune.nfs.mountstats import parse_mountstats
from nfstune.paths import recipes_dir
from nfstune.recipes.loader import load_recipe_file

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# a failing example holds 5000-digit runs: hypothesis warns that its repr is long
pytestmark = pytest.mark.filterwarnings("ignore:Generating overly large repr")
HUGE = "7" * 5000  # int("7" * 5000) raises ValueError (sys.get_int_max_str_digits() is 4300)
CAPTURES = Path(__file__).parents[1] / "captures"

PIECES = [
    HUGE,
    "0" * 4400 + "1",
    "0x" + "f" * 4000,
    "-" + HUGE,
    HUGE + "." + HUGE,
    "1e999",
    "nan",
    "inf",
    "\0",
    "\n",
    " ",
    "\t",
    "-",
    ".",
    "..",
    ",",
    ":",
    "=",
    "0",
    "-1",
    "1.5",
    "\u00b2",
    "\u0663",
    '"',
    "{",
    "[",
    "3",
]


def piece() -> st.SearchStrategy[str]:
    undecodable = st.binary(min_size=1, max_size=4).map(lambda b: b.decode("utf-8", "surrogateescape"))
    return st.one_of(st.sampled_from(PIECES), st.text(max_size=4), undecodable)


def noisy(*tokens: str) -> st.SearchStrategy[str]:
    return st.lists(st.one_of(piece(), st.sampled_from(tokens or PIECES)), max_size=40).map("".join)


@st.composite
def mutated(draw: st.DrawFn, *samples: str) -> str:
    """A sample with one to three edits: a number replaced (most int() calls read one), or a slice replaced."""
    text = draw(st.sampled_from(samples))
    for _ in range(draw(st.integers(1, 3))):
        numbers = [m.span() for m in re.finditer(r"[0-9]+", text)]
        if numbers and draw(st.booleans()):
            start, end = draw(st.sampled_from(numbers))
        else:
            start = draw(st.integers(0, len(text)))
            end = start + draw(st.integers(0, 8))
        text = text[:start] + draw(piece()) + text[end:]
    return text


def capture(*names: str) -> list[str]:
    return [(CAPTURES / name).read_bytes().decode("utf-8", "surrogateescape") for name in names]


def either(*samples: str) -> st.SearchStrategy[str]:
    return st.one_of(mutated(*samples), noisy())


RECIPE = """id = "x"
title = "t"
summary = "s"
why = "w"
changes_host = "server"
workloads = ["sync-4k"]
[repeats]
min = 3
max = 0x10
cv_target = 5.5
[[configs]]
label = "a"
mount = { rsize = 65536, vers = 4.2, nconnect = 2 }
read_ahead_kb = 128
export = { set = ["sync", "anonuid=1000", "anongid=0x10"], unset = ["no_wdelay"] }
when = { server_nfsd_threads = { at_least = 8 } }
[[configs]]
label = "b"
export = { set = ["async"] }
[[notes]]
text = "n"
when = { client_nfs_version = 3, nconnect = 1 }
"""


@FUZZ
@given(mutated(RECIPE, *(path.read_text() for path in sorted(recipes_dir().glob("*.toml")))))
@example(RECIPE.replace("min = 3", f"min = {HUGE}"))
def test_recipe_loader_reports_every_text_as_recipe_errors(tmp_path_factory: pytest.TempPathFactory, text: str) -> None:
    path = tmp_path_factory.mktemp("r") / "x.toml"
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    recipe, errors = load_recipe_file(path)
    assert (recipe is None) == bool(errors)
    assert all(error.file == path for error in errors)
    assert all(str(error) for error in errors)


EXPORTS_SAMPLE = """/srv/a host1(rw,anonuid=1000,anongid=65534,fsid=7) 10.0.0.0/24(ro,sec=sys:krb5) -async
/srv/b -ro,no_root_squash *(squash_uids=0-15,squash_gids=3,refer=/x@nas)
/srv/"with space" [2001:db8::1]/64(rw,xprtsec=tls) 192.0.2.1/255.255.255.0(rw)
"""


@FUZZ
@given(either(EXPORTS_SAMPLE, *capture("../corpus/exports/realworld.txt", "../corpus/exports/hostile.txt")))
def test_exports_parser_never_raises(text: str) -> None:
    doc = exports.parse(text)
    exports_findings.findings(doc)
    exportfs_view.exported(doc)


@FUZZ
@given(either(*capture("nfs/fstab-sample.txt")))
@example(f"nas:/x /mnt nfs rw 0 {HUGE}\n")
def test_fstab_parser_never_raises(text: str) -> None:
    assert Fstab.parse(text).render() == text


@FUZZ
@given(either(*capture("nfs/client-proc-mounts.txt", "nfs/client-mountinfo.txt")))
@example(f"nas:/x /mnt nfs4 rw 0 {HUGE}\n")
@example(f"{HUGE} 1 0:52 / /mnt rw - nfs4 nas:/x rw\n")
def test_mount_table_raises_only_its_own_error(text: str) -> None:
    try:
        parse_proc_mounts(text)
    except ValueError as error:
        assert str(error).startswith("not a /proc/mounts line")


@FUZZ
@given(either(*capture("nfs/client-mountstats.txt")))
@example(f"device nas:/x mounted on /m with fstype nfs4 statvers=1.1\n\tage:\t{HUGE}\n")
def test_mountstats_parser_never_raises(text: str) -> None:
    parse_mountstats(text)


KERNEL_TEXTS = capture(
    "nfs/nas-proc-net-rpc-nfsd.txt",
    "nfs/client-proc-net-rpc-nfs.txt",
    "nfs/nas-pool-stats.txt",
    "nfs/client-nfsstat-m.txt",
    "kernel/export-content-normal.txt",
    "kernel/fh-content-normal.txt",
    "kernel/clients-info.txt",
    "kernel/ss-established-2049.txt",
)


@FUZZ
@given(either(*KERNEL_TEXTS))
@example("10.0.0.0/24 \u00b2 0x1 /export\n")  # "²".isdigit() holds, but int() refuses it
def test_kernel_views_never_raise(text: str) -> None:
    parse_export_cache(text)
    parse_fh_cache(text)
    connected_clients(text, text)
    try:
        parse_exportfs_s(text)
    except ValueError as error:
        assert str(error).startswith("not an exportfs line")


IPERF = capture(
    "bench/iperf-text.txt", "bench/iperf-text-reverse.txt", "bench/iperf-server-text.txt", "bench/iperf-json.txt"
)


@FUZZ
@given(either(*IPERF))
def test_iperf_parser_raises_only_its_own_error(text: str) -> None:
    with contextlib.suppress(IperfOutputError):
        parse_iperf_json(text)


@pytest.mark.parametrize(
    "text",
    [
        "3",
        "[]",
        "null",
        '"x"',
        '{"end": 3}',
        '{"end": {"sum_sent": [], "sum_received": {}}}',
        '{"error": 3}',
        '{"end": {"sum_sent": {"bytes": 1}, "sum_received": {"seconds": "x", "bytes": 1, "bits_per_second": 1}}}',
        '{"end": {"sum_sent": {"bytes": ' + HUGE + "}}}",
    ],
)
def test_iperf_json_that_is_not_a_result_is_an_iperf_error(text: str) -> None:
    with pytest.raises(IperfOutputError, match="iperf3"):
        parse_iperf_json(text)


FIO = {
    WorkloadId.SEQ_WRITE: capture("bench/fio-seq-write.out"),
    WorkloadId.SEQ_READ: capture("bench/fio-seq-read.out"),
    WorkloadId.SYNC_4K: capture("bench/fio-sync-4k.out"),
}


@FUZZ
@given(st.sampled_from(list(FIO)).flatmap(lambda w: st.tuples(st.just(w), either(*FIO[w]), st.integers(1, 5000))))
@example((WorkloadId.SEQ_WRITE, '{"jobs": [3]}\n}\n', 1))
def test_fio_parser_raises_only_its_own_error(case: tuple[WorkloadId, str, int]) -> None:
    workload, text, cut = case
    parser = FioStreamParser(workload)
    try:
        parser.feed(text[:cut])
        parser.feed(text[cut:])
        parser.result()
    except WorkloadOutputError:
        pass


@pytest.mark.parametrize(
    "document",
    [
        '{"jobs": [3]}',
        '{"jobs": [{"error": "x"}]}',
        '{"jobs": [{"write": []}]}',
        '{"jobs": {"a": 1}}',
        '{"jobs": [{"write": {"io_bytes": ' + HUGE + ', "runtime": 1}}]}',
        '{"jobs": [{"write": {"io_bytes": "x", "runtime": 1}}]}',
    ],
)
def test_fio_documents_without_a_result_are_a_workload_error(document: str) -> None:
    parser = FioStreamParser(WorkloadId.SEQ_WRITE)
    with pytest.raises(WorkloadOutputError, match="seq-write"):
        parser.feed(document + "\n")
        parser.result()


@FUZZ
@given(either(*capture("bench/dd-seq-write.out", "bench/dd-sync-4k.out", "bench/tar-small-files.out")))
@example(f"{HUGE}+0 records out\n5 bytes copied, 1.2.3 s, 1 MB/s\n")
def test_dd_and_tar_parsers_raise_only_their_own_error(text: str) -> None:
    for parser in (DdStreamParser(WorkloadId.SEQ_WRITE), TarParser(WorkloadId.SMALL_FILES, 10, 3)):
        try:
            parser.feed(text)
            parser.result()
        except WorkloadOutputError:
            pass


@FUZZ
@given(either(*capture("bench/sampler-client-fio-seq-write.txt", "bench/sampler-nas-fio-seq-write.txt")))
@example(
    f"NFSTUNE_SAMPLE 1\n@/proc/self/mountstats\ndevice a:/ mounted on /m with fstype nfs statvers=1.1\n"
    f"\tbytes:\t{HUGE}\nNFSTUNE_SAMPLE_END"
)
def test_sampler_parser_never_raises(text: str) -> None:
    parser = SampleParser()
    parser.feed(text + "\n")
    parser.feed(text + "\n")


PROBES = capture("probe/lab-nas-root.txt", "probe/lab-client-root.txt", "probe/synthetic-truenas-scale.txt")


@FUZZ
@given(either(*PROBES))
@example('@@nfstune-probe@@ path\n/x\n@@nfstune-probe@@ findmnt\nSOURCE="\udc80"\n')
@example(f"@@nfstune-probe@@ memtotal\nMemTotal: {HUGE} kB\n@@nfstune-probe@@ uid\n{HUGE}\n")
def test_probe_parser_never_raises(text: str) -> None:
    parse_probe_output(text)


def test_fuzz_inputs_hold_what_int_refuses() -> None:
    with pytest.raises(ValueError, match="digits"):
        int(HUGE)
