"""Nothing a host name, a user, a share path or a file name says may run as a command (issue 37): every step builder
and remote command builder is fed hostile values carrying a marker, and a POSIX sh reader checks that the marker
never lands where sh would read it as code (outside single quotes, not escaped by a backslash). Each built line
is also handed to a real `sh -n`, which must read it as one well-formed line."""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import subprocess
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nfstune import paths
from nfstune.bench.commands import repeat_steps, workload_commands
from nfstune.bench.fallback import small_files_tar_command
from nfstune.bench.fio_clients import ClientJob, front_end_argv
from nfstune.bench.iperf import iperf_client_argv, iperf_server_argv
from nfstune.bench.ping import ping_argv
from nfstune.bench.sampler import sampler_command
from nfstune.bench.workloads import FRONT_END_WORKLOADS, MIB, WorkloadId, WorkloadSizes
from nfstune.bench.writeback import idle_argv
from nfstune.changes import apply, apply_steps, config_files, fio_server, mount
from nfstune.changes.export import export_steps
from nfstune.changes.fio_server import FioServerOn
from nfstune.changes.host_change import HostChange, Where, steps_of
from nfstune.changes.isolated import MKFS, ScratchFilesystem, isolated_paths, isolated_steps
from nfstune.changes.mount import ClientDirectory, Mount, ReadAhead, ScratchDirectory
from nfstune.changes.nfs_scratch import ScratchOverNfs, nfs_scratch_steps
from nfstune.changes.nfsd_listener import RdmaListener, listener_steps
from nfstune.changes.nfsd_threads import NfsdThreads, threads_steps
from nfstune.changes.share_export import ExportOptions
from nfstune.changes.steps import Step, Steps
from nfstune.changes.tempfile import Tempfile
from nfstune.changes.transaction import (
    on_share,
    run_step,
    undo_dir,
    undo_file,
    undo_listener,
    undo_mount,
    undo_nfs_scratch,
    undo_process,
    undo_scratch,
    undo_steps,
    undo_sysfs,
    undo_tempfile,
)
from nfstune.errors import NfstuneError
from nfstune.facts.firewall import FirewallFacts
from nfstune.nfs.export_edit import ExportOptionEdit
from nfstune.recipes import Recipe, load_recipes
from nfstune.recipes.plan import Plan, build_plan
from nfstune.recipes.workload_steps import WorkloadSteps
from nfstune.remote.errors import HostKeyChanged
from nfstune.remote.files import FileAccess
from nfstune.remote.local import LocalHost
from nfstune.remote.probe import build_probe_script
from nfstune.remote.process import CommandResult, wrap
from nfstune.session import firewall_and_selinux
from nfstune.session.nas_view import facts_seen, versions_script
from nfstune.shell_text import quote
from nfstune.store.journal import JournalEntry

MARK = "ZQ9"
# each needs quoting (a blank or a character sh reads), so that a value left unquoted shows its marker as code
HOSTILE = [
    f"$(touch /tmp/{MARK})",
    f"`touch /tmp/{MARK}`",
    f"x; {MARK}",
    f"x | {MARK}",
    f"x & {MARK}",
    f"x && {MARK} || y",
    f"x' ; {MARK} ; '",
    f'x" ; {MARK} ; "',
    f"x\n{MARK}",
    f"x\r\t{MARK}",
    f"%h %p {MARK} %%",
    f"ünïcødé ☃ {MARK}",
    f"-o {MARK}",
    f"--{MARK}=$(x)",
    f"x\\ {MARK}",
    f"${{{MARK}}}",
    f"~{MARK}",
    f"*{MARK}?[a]",
    f">{MARK} <y",
    f"({MARK})",
    f"{{{MARK},x}}",
    f"#{MARK}",
    f"{MARK}=1 x",
    f"'{MARK}'",
    f'"{MARK}"',
    f"\\'{MARK}",
]
SIZES = WorkloadSizes(seq_file_bytes=8 * MIB, small_file_count=30, small_file_bytes=4096, sync_4k_count=40)


# --- reading a line as sh does ---------------------------------------------------------------------------------


def live_text(line: str) -> str:
    """The characters of `line` that sh reads as code: all but those in single quotes and those a backslash
    escapes. Text in double quotes counts (`$( )` and backticks run there); `$( )` and `( )` open a context of their
    own, in which quotes start afresh."""
    out: list[str] = []
    stack = ["plain"]
    i = 0
    while i < len(line):
        c, top = line[i], stack[-1]
        if top == "single":
            if c == "'":
                stack.pop()
            i += 1
            continue
        if top == "double":
            if c == "\\" and line[i + 1 : i + 2] in ("$", "`", '"', "\\", "\n"):
                i += 2
                continue
            if c == '"':
                stack.pop()
            elif c == "(" and line[i - 1 : i] == "$":
                stack.append("paren")
                out.append(c)
            else:
                out.append(c)
            i += 1
            continue
        if c == "\\":
            i += 2
        elif c == "'":
            stack.append("single")
            i += 1
        elif c == '"':
            stack.append("double")
            i += 1
        else:
            if c == "(":
                stack.append("paren")
            elif c == ")" and top == "paren":
                stack.pop()
            out.append(c)
            i += 1
    assert stack[-1] != "single" and stack[-1] != "double", f"a quote is left open in {line!r}"
    return "".join(out)


def test_the_reader_finds_what_sh_would_run() -> None:
    assert MARK in live_text(f"echo x; {MARK}")
    assert MARK in live_text(f'echo "$({MARK})"')
    assert MARK in live_text(f"echo \"a\" 'b' {MARK}")
    assert MARK in live_text(f'echo "$(printf \'%s\' "$x")" {MARK}')
    assert MARK not in live_text(f"echo '{MARK}; $(x)'")
    assert MARK not in live_text(f"echo \\{MARK[0]}\\{MARK[1]}\\{MARK[2]}")
    assert MARK not in live_text(quote(f"x' ; {MARK} ; '"))
    assert MARK not in live_text(f"d=\"$(cat '{MARK}')\"")


def check(lines: Iterable[str]) -> None:
    """Each line as the host's shell reads it: the marker nowhere in its code, and the line well formed for a real
    `sh -n` (one sh for all of them, each line read by an `sh -n` of its own)."""
    unique = list(dict.fromkeys(lines))
    assert unique, "nothing was built"
    for line in unique:
        assert MARK not in live_text(line), f"a value escaped its quotes in: {line!r}"
    each = 'i=0; for l do i=$((i+1)); sh -n -c "$l" 2>/dev/null || echo "$i"; done'
    done = subprocess.run(["sh", "-c", each, "sh", *unique], capture_output=True, text=True, check=True)
    refused = [unique[int(i) - 1] for i in done.stdout.split()]
    assert refused == [], "sh -n refuses these lines"


# --- what each builder sends -----------------------------------------------------------------------------------


class Recorded(FileAccess):
    """The scripts FileAccess sends to a host's shell, kept instead of run."""

    label = "host"

    def __init__(self) -> None:
        self.sent: list[str] = []

    def run(self, command: str | Sequence[str], **_: object) -> CommandResult:
        assert isinstance(command, str)
        self.sent.append(command)
        return CommandResult(command, 0, "MISSING\n", "")


def argv_lines(argv: Sequence[str]) -> Iterator[str]:
    """An argv as the remote shell gets it, and the script of an `sh -c SCRIPT ...` as the inner sh reads it."""
    step = Step("host", tuple(argv), True, "")
    yield step.line
    if len(argv) >= 3 and tuple(argv[:2]) == ("sh", "-c"):
        yield argv[2]


def step_lines(steps: Steps | Iterable[Step]) -> Iterator[str]:
    each = [*steps.do, *steps.undo] if isinstance(steps, Steps) else list(steps)
    assert each, "a builder gave no steps"
    for step in each:
        if step.writes is not None:
            files = Recorded()
            files.write_file(step.writes, b"new text\n", sudo=True)
            yield from files.sent
        else:
            yield from argv_lines(step.argv)
            yield wrap(step.line, "sudo -n ")


def _entry(kind: str, target: str, **detail: object) -> JournalEntry:
    return JournalEntry(1, "u@h:22", kind, target, b"8\n", "/var/lib/nfstune/journal/x", dict(detail))


def _files(v: str) -> Iterator[str]:
    files = Recorded()
    files.read_file(f"/etc/{v}", sudo=True)
    files.write_file(f"/etc/{v}", b"x", mode="0644")
    yield from files.sent


def _bench(v: str) -> Iterator[str]:
    for fio in (True, False):
        for workload in WorkloadId:
            commands = workload_commands(workload, f"/mnt/nfstune/{v}", SIZES, fio_available=fio)
            steps = repeat_steps(commands, f"/mnt/nfstune/{v}")
            for argv in (steps.before_client, steps.before_server, steps.run, steps.after_client):
                yield from argv_lines(argv)
    yield from argv_lines(idle_argv(f"/srv/{v}", meminfo=f"/tmp/{v}"))
    yield from argv_lines(small_files_tar_command(3, 4096, f"/var/tmp/{v}.tar"))
    yield from argv_lines(iperf_client_argv(v))
    yield from argv_lines(iperf_server_argv())
    yield from argv_lines(ping_argv(v))
    yield from argv_lines(front_end_argv([ClientJob("client2", f"{v},8765", f"/var/tmp/{v}.fio")]))
    yield sampler_command(f"/mnt/{v}")
    yield sampler_command(f"/mnt/{v}", 0.5)


def _host_key_command(v: str) -> Iterator[str]:
    known = "/root/.ssh/known_hosts"
    message = str(HostKeyChanged(v, "ssh-ed25519", "SHA256:x", "y", name=v, entry=(Path(known), 3)))
    start = message.index("`ssh-keygen -R ") + 1
    yield message[start : message.index(f" -f {known}`", start)]


def _firewall_commands(v: str) -> Iterator[str]:
    """The commands a finding tells the admin to run, with the zone and the client's address the hosts gave."""
    yield firewall_and_selinux._firewalld_commands(v, ("nfs", "mountd")).strip("`")
    yield firewall_and_selinux._ufw_command(v, ("2049/tcp",)).strip("`")
    unread = FirewallFacts("firewalld", v, False, None)
    facts = dataclasses.replace(facts_seen("192.0.2.1", "vers 4.2 yes\n"), firewall=unread)
    ((_, _, said),) = firewall_and_selinux.firewall_findings(facts, "nas", None)
    yield said[said.index("`sudo firewall-cmd ") + 1 : said.index("` should list")]


def _probe(v: str) -> Iterator[str]:
    yield build_probe_script(f"/srv/{v}", None)
    with contextlib.suppress(NfstuneError):  # a peer with a blank or a leading dash is refused before any text is built
        yield build_probe_script(None, v)


def _direct(v: str) -> Iterator[str]:
    """The lines the changes run on a host without a Step of their own."""
    yield apply_steps.keep_owner_line(f"/etc/{v}", f"/etc/{v}.nfstune-1.bak")
    yield apply.missing_dirs_line(["/mnt", f"/mnt/{v}"])
    yield apply_steps.remove_dir_line(f"/mnt/{v}")
    yield apply_steps.drop_backup_line(f"/etc/{v}.bak", f"/etc/{v}")
    yield config_files.listing_line(f"/etc/{v}.d", f".{v}")
    yield fio_server.port_free_line(8765)
    yield fio_server.listening_line("192.0.2.7", 8765, 4242, f"/var/tmp/{v}.log")
    yield mount.mounts_and_scratch_line(f"/mnt/nfstune/{v}/.nfstune-1")


def _where(v: str) -> Where:
    return Where(f"/srv/{v}", v, f"/mnt/nfstune/{v}", f".nfstune-{v}")


def _host_changes(v: str, changes: Iterable[HostChange]) -> Iterator[str]:
    """Each change's steps as a plan shows them, with every place the hosts gave holding `v`."""
    for change in changes:
        yield from step_lines(steps_of([change], _where(v)))


def _workload_steps(v: str) -> Iterator[str]:
    for login in (True, False):
        steps = WorkloadSteps(SIZES, True, f"/mnt/nfstune/{v}/.nfstune-{v}", f"/mnt/nfstune/{v}", login)
        yield from step_lines([s for w in WorkloadId for s in steps.of(w, None, f"/srv/{v}")])
        yield from step_lines([s for w in FRONT_END_WORKLOADS for s in steps.of(w, 2, f"/srv/{v}")])


BUILDERS: dict[str, Callable[[str], Iterable[str]]] = {
    "undo_file": lambda v: step_lines(undo_file("server", f"/etc/{v}", original=True, exportfs=True, backup=f"/b/{v}")),
    "undo_file new": lambda v: step_lines(
        undo_file("server", f"/etc/{v}", original=False, exportfs=False, backup=None)
    ),
    "undo_dir": lambda v: step_lines([undo_dir("client", f"/mnt/{v}")]),
    "undo_mount": lambda v: step_lines([undo_mount("client", f"/mnt/{v}")]),
    "undo_sysfs": lambda v: step_lines([undo_sysfs("client", f"/sys/{v}", v)]),
    "undo_tempfile": lambda v: step_lines([undo_tempfile("client", f"/var/tmp/nfstune-{v}")]),
    "undo_process": lambda v: step_lines([undo_process("client", f"/var/tmp/nfstune-fio-server-{v}.pid")]),
    "undo_listener": lambda v: step_lines([undo_listener("server", "rdma 20049", v, False)]),
    "undo_steps": lambda v: step_lines(
        s
        for entry in (
            _entry("file", f"/etc/{v}", exportfs=True),
            _entry("dir", f"/mnt/{v}"),
            _entry("mount", f"/mnt/{v}"),
            _entry("sysfs", f"/sys/{v}"),
            _entry("tempfile", f"/var/tmp/nfstune-{v}"),
            _entry("process", f"/var/tmp/nfstune-fio-server-{v}.pid"),
            _entry("listener", "rdma 20049", threads=8, systemd=False),
        )
        for s in undo_steps("server", entry)
    ),
    "mount_steps": lambda v: step_lines(mount.mount_steps(v, f"/srv/{v}", f"vers=4.2,{v}", f"/mnt/nfstune/{v}")),
    "client_directory_steps": lambda v: step_lines(mount.client_directory_steps("client2", f"/mnt/{v}/client2")),
    "readahead_steps": lambda v: step_lines(mount.readahead_steps(f"/sys/class/bdi/{v}/read_ahead_kb", 512, v)),
    "export_steps": lambda v: step_lines(export_steps(f"/etc/exports.d/{v}", backup=f"/b/{v}", make_parent=True)),
    "isolated_steps": lambda v: (
        line for fs in MKFS for line in step_lines(isolated_steps(*isolated_paths(f"/srv/{v}", v), fs, 300, v))
    ),
    "fio server_steps": lambda v: step_lines(fio_server.server_steps("client", v)),
    "listener_steps": lambda v: step_lines(listener_steps(20049, v)),
    "threads_steps": lambda v: step_lines(threads_steps(16, v)),
    "host changes": lambda v: _host_changes(
        v,
        [
            ExportOptions(ExportOptionEdit(("async", f"anonuid={v}"), ("wdelay",))),
            NfsdThreads(16),
            Mount(f"vers=4.2,{v}"),
            Mount(f"vers=4.2,{v}", "client2"),
            ClientDirectory("client2"),
            ReadAhead(512),
            RdmaListener(20049),
            FioServerOn("client2"),
            Tempfile("client", f"/var/tmp/nfstune-{v}"),
            *(ScratchFilesystem(fs, v, 300) for fs in MKFS),
        ],
    ),
    "workload steps": _workload_steps,
    "apply file_steps": lambda v: step_lines(
        apply_steps.file_steps("server", f"/etc/{v}", existed=True, written=True, backup=f"/etc/{v}.bak", exportfs=True)
    ),
    "undo apply file_steps": lambda v: step_lines(
        apply_steps.file_steps("client", f"/etc/{v}", existed=False, written=False, backup=None, exportfs=False)
    ),
    "apply mount_point_steps": lambda v: step_lines(apply_steps.mount_point_steps("client", f"/mnt/{v}", ("/mnt",))),
    "undo apply dirs and copies": lambda v: step_lines(
        [
            apply_steps.remove_made_dir_step("client", f"/mnt/{v}"),
            apply_steps.drop_backup_step("server", f"/etc/{v}.bak", f"/etc/{v}"),
            apply_steps.reload_step(),
            apply_steps.systemd_reload_step(),
        ]
    ),
    "files": _files,
    "bench": _bench,
    "probe": _probe,
    "nas versions": lambda v: [versions_script(v, f"/srv/{v}")],
    "host key command": _host_key_command,
    "firewall commands": _firewall_commands,
    "direct": _direct,
}
SCRATCH_BUILDERS: dict[str, Callable[[str], Iterable[str]]] = {
    "scratch_steps": lambda v: step_lines(mount.scratch_steps(v, f"/srv/{v}", f".nfstune-{v}", v, v)),
    "undo_scratch": lambda v: step_lines([undo_scratch("server", f"/srv/{v}/.nfstune-1")]),
    "nfs_scratch_steps": lambda v: step_lines(nfs_scratch_steps(v, f"/srv/{v}", f".nfstune-{v}")),
    "undo_nfs_scratch": lambda v: step_lines([undo_nfs_scratch("client", v, f"/srv/{v}", f".nfstune-{v}", "0" * 32)]),
    "on_share": lambda v: [on_share(v, f"/srv/{v}", "true")],
    "session's scratch directory": lambda v: _host_changes(v, [ScratchDirectory(), ScratchOverNfs()]),
    "undo_steps nfs-scratch": lambda v: step_lines(
        undo_steps("client", _entry("nfs-scratch", f"/srv/{v}", name=".nfstune-1", share=f"/srv/{v}", server=v))
    ),
}


@pytest.mark.parametrize("value", HOSTILE)
@pytest.mark.parametrize("builder", list(BUILDERS))
def test_no_hostile_value_reaches_the_shell_as_code(builder: str, value: str) -> None:
    check(BUILDERS[builder](value))


@pytest.mark.parametrize("value", HOSTILE)
@pytest.mark.parametrize("builder", list(SCRATCH_BUILDERS))
def test_no_hostile_value_reaches_the_shell_as_code_in_the_scratch_directory(builder: str, value: str) -> None:
    check(SCRATCH_BUILDERS[builder](value))


# --- a session's plan, every shipped recipe --------------------------------------------------------------------


@pytest.fixture(scope="module")
def recipes() -> list[Recipe]:
    found, errors = load_recipes([paths.recipes_dir()])
    assert errors == [] and found
    return list(found)


def plan_for(recipes: list[Recipe], value: str, *, server_login: bool = True) -> Plan:
    return build_plan(
        recipes,
        {},
        scale="small",
        seed=7,
        sizes=SIZES,
        fio_available=True,
        share=f"/srv/{value}",
        server_address=value,
        scratch_name=f".nfstune-{value}",
        server_login=server_login,
    )


def plan_lines(plan: Plan, *, session: bool) -> Iterator[str]:
    if session:
        yield from step_lines(plan.session)
    for item in plan.recipes:
        assert item.visits
        for visit in item.visits[: len(item.configs) + item.rounds.warmup]:
            yield from step_lines([*visit.setup, *visit.run, *visit.undo])


@pytest.mark.parametrize("value", HOSTILE)
def test_every_shipped_recipe_plans_only_quoted_values(recipes: list[Recipe], value: str) -> None:
    plan = plan_for(recipes, value)
    assert len(plan.recipes) > 3
    check(plan_lines(plan, session=True))


@pytest.mark.parametrize("value", HOSTILE)
def test_a_plan_without_a_server_login_plans_only_quoted_values(recipes: list[Recipe], value: str) -> None:
    check(plan_lines(plan_for(recipes, value, server_login=False), session=False))


@pytest.mark.parametrize("value", HOSTILE)
def test_the_session_steps_without_a_server_login_quote_their_values(recipes: list[Recipe], value: str) -> None:
    check(step_lines(plan_for(recipes, value, server_login=False).session))


# --- any text at all -------------------------------------------------------------------------------------------

ANY_TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\0"), max_size=40)


@settings(deadline=None, max_examples=150)
@given(host=ANY_TEXT, share=ANY_TEXT)
def test_any_host_name_and_share_path_stay_quoted(host: str, share: str) -> None:
    """The marker goes in with a character that needs quoting; the text around it is anything."""
    host, share = f"{host}${MARK}", f"/srv/{share} {MARK}"
    lines = [
        *step_lines(mount.mount_steps(host, share, "", "/mnt/nfstune/1")),
        versions_script(host, share),
        build_probe_script(share, None),
        *step_lines([undo_mount("client", share)]),
        *step_lines(export_steps(share, backup=share)),
        *step_lines(isolated_steps(*isolated_paths(share, "1"), "xfs", 300, host)),
    ]
    check(lines)


@settings(deadline=None, max_examples=30)
@given(host=ANY_TEXT, share=ANY_TEXT)
def test_any_share_path_and_host_name_in_a_plan_stay_quoted(recipes: list[Recipe], host: str, share: str) -> None:
    plan = build_plan(
        recipes,
        {},
        scale="small",
        seed=1,
        sizes=SIZES,
        fio_available=False,
        share=f"/srv/{share};{MARK}",
        server_address=f"{host}|{MARK}",
        scratch_name=".nfstune-1",
    )
    check(plan_lines(plan, session=True))


# --- on a real shell ---------------------------------------------------------------------------------------------

RAN = "ran-marker"
NAMES = [
    f"$(touch {RAN})",
    f"`touch {RAN}`",
    f"x; touch {RAN}",
    f"x' ; touch {RAN}; '",
    f'x" ; touch {RAN}; "',
    f"x\ntouch {RAN}",
    f"x && touch {RAN}",
    f"x | touch {RAN}",
    "-rf",
    "%h %p",
    "ünïcødé ☃",
    "*",
]


@pytest.mark.parametrize("name", NAMES)
def test_hostile_file_names_run_nothing_on_a_real_shell(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """This computer's own shell runs what the changes run on a host, on files named with hostile text: each file
    is the one named, and no command hidden in a name runs (it would make RAN in the working directory)."""
    monkeypatch.chdir(tmp_path)
    host = LocalHost()
    path = str(tmp_path / name)
    host.write_file(path, b"text\n")
    assert host.read_file(path) == b"text\n"
    backup = f"{path}.bak"
    host.write_file(backup, b"text\n", mode="0600")
    host.run(apply_steps.keep_owner_line(path, backup))
    assert (tmp_path / f"{name}.bak").stat().st_mode & 0o777 == (tmp_path / name).stat().st_mode & 0o777
    host.run(apply_steps.drop_backup_line(backup, path))
    assert not (tmp_path / f"{name}.bak").exists()
    drop_ins = tmp_path / f"{name}.d"
    drop_ins.mkdir()
    (drop_ins / f"{name}.conf").write_text("in the drop-in\n")
    assert config_files.read_config_files(host, path, str(drop_ins), ".conf") == {
        path: "text\n",
        str(drop_ins / f"{name}.conf"): "in the drop-in\n",
    }
    missing = f"{path}.missing"
    assert host.run(apply.missing_dirs_line([str(tmp_path), missing])).stdout == f"{missing}\n"
    run_step(host, undo_sysfs("client", path, "128"))
    assert (tmp_path / name).read_text() == "128\n"
    run_step(host, undo_dir("client", str(drop_ins)))  # not empty: left
    (drop_ins / f"{name}.conf").unlink()
    run_step(host, undo_dir("client", str(drop_ins)))
    assert not drop_ins.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]


# --- a NUL: refused in plain words, never a traceback ----------------------------------------------------------


@pytest.mark.parametrize("builder", list(BUILDERS))
def test_a_nul_in_a_value_is_refused_as_an_error_the_admin_reads(builder: str) -> None:
    try:
        lines = list(BUILDERS[builder]("a\0b"))
    except NfstuneError as exc:
        assert "NUL" in str(exc)
        return
    for line in lines:  # a builder whose values did not reach the line (a fixed port, a number)
        assert "\0" not in line


# --- at the source: no other module quotes -----------------------------------------------------------------------

APP = Path(__file__).resolve().parents[2] / "app" / "nfstune"


def _quoting_calls(tree: ast.AST) -> Iterator[tuple[int, str]]:
    for node in ast.walk(tree):
        # reading a line (shlex.split) is fine; only making one goes through shell_text
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "shlex":
            yield from [(node.lineno, f"shlex.{node.attr}")] if node.attr != "split" else []
        if isinstance(node, ast.ImportFrom) and node.module == "shlex":
            yield node.lineno, "from shlex import ..."


def test_only_shell_text_quotes() -> None:
    found = []
    for path in sorted(APP.rglob("*.py")):
        name = path.relative_to(APP).as_posix()
        if name == "shell_text.py":
            continue
        tree = ast.parse(path.read_text(), name)
        found += [f"{name}:{line}: {what}" for line, what in _quoting_calls(tree)]
    assert found == []


@pytest.mark.parametrize("client", ["10.0.0.7 *", "10.0.0.7\n/ *(rw,no_root_squash)", "host\x00"])
def test_an_isolated_export_is_one_line_for_one_client(client: str) -> None:
    """The scratch filesystem's exports line is no shell line, but a blank or a newline in its client would export
    it to another client, or add an export of its own: refused before anything is made."""
    from nfstune.changes.isolated import IsolatedExport

    with pytest.raises(NfstuneError, match="one client"):
        IsolatedExport(None, None, share_path="/srv/x", client_spec=client, options="rw")  # type: ignore[arg-type]
