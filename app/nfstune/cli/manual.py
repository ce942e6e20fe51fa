"""`nfstune manpage`: the manual page, in the man(7) macros, made from the parser when asked (so it describes the
nfstune that prints it): NAME, SYNOPSIS, DESCRIPTION, each command with its usage and options, EXIT STATUS (the
words of --help, exits.STATUSES), ENVIRONMENT, FILES (FILES below, which the tests hold to the code), EXAMPLES and
SEE ALSO.

Every line fits 80 columns (`MANWIDTH=80 man`, groff's own 78): the usage lines, which troff does not fill, are
laid out by argparse for that width, and everything else is filled by troff.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator

from nfstune import __version__, paths
from nfstune.cli import exits

USAGE_WIDTH = 70  # a usage line is set as is, 7 columns in: 77 with the indent, inside groff's 78

# Where nfstune keeps its files on this computer: (the XDG base directory, the path below it, what it is). The
# README's "Where it keeps its data" lists the same (tests/unit/test_readme_claims.py); tests/unit/test_manual.py
# checks that every folder and file the code uses is among them.
XDG_DEFAULTS = {
    "XDG_CONFIG_HOME": "~/.config",
    "XDG_DATA_HOME": "~/.local/share",
    "XDG_CACHE_HOME": "~/.cache",
    "XDG_STATE_HOME": "~/.local/state",
}
FILES: tuple[tuple[str, str, str], ...] = (
    ("XDG_CONFIG_HOME", "nfstune/nfstune.conf", "the desktop's settings: window size, scale, recent host pairs"),
    ("XDG_CONFIG_HOME", "nfstune/watches/", "each watch's hosts and share (`nfstune watch --status` reads them)"),
    ("XDG_CONFIG_HOME", "nfstune/watch-records/", "each watch's record of the files it wrote"),
    ("XDG_CONFIG_HOME", "systemd/user/nfstune-watch-*", "each watch's systemd user service and timer"),
    ("XDG_DATA_HOME", "nfstune/nfstune.sqlite3", "the results database (sessions, runs, raw output) and the journal"),
    ("XDG_DATA_HOME", "nfstune/recipes/", "your own recipes"),
    ("XDG_DATA_HOME", "nfstune/known_hosts", "the host keys you accepted in nfstune"),
    ("XDG_DATA_HOME", "nfstune/demo-report.html", "the report `nfstune demo` writes"),
    ("XDG_DATA_HOME", "nfstune/desktop-entry.json", "the record of the menu entry's files"),
    ("XDG_DATA_HOME", f"applications/{paths.APP_ID}.desktop", "the menu entry (`nfstune desktop-entry --install`)"),
    ("XDG_DATA_HOME", "icons/hicolor/*/apps/nfstune.*", "its icon"),
    ("XDG_DATA_HOME", f"metainfo/{paths.APP_ID}.metainfo.xml", "its AppStream metainfo"),
    ("XDG_CACHE_HOME", "nfstune/", "rebuildable: the practice lab's images, the desktop's help pages"),
    ("XDG_STATE_HOME", "nfstune/lab/", "the running lab: pid files, SSH keys, known_hosts, disks, console logs"),
    ("XDG_STATE_HOME", "nfstune/log/", "the log (each job, its hosts, how it ended; Apply and Undo)"),
    ("XDG_STATE_HOME", "nfstune/watches/", "each watch's log, when no desktop shows its notification"),
)

ENVIRONMENT = (
    ("XDG_CONFIG_HOME, XDG_DATA_HOME, XDG_CACHE_HOME, XDG_STATE_HOME", "where nfstune keeps its files (FILES)."),
    ("NFSTUNE_LOG_DIR", "the log's folder instead of $XDG_STATE_HOME/nfstune/log."),
    ("SSH_AUTH_SOCK", "the SSH agent nfstune asks for keys, as ssh does."),
    ("PATH", "where ssh (its `ssh -G` reads ~/.ssh/config), gdbus and the `nfstune` of the menu entry are found."),
    ("SHELL", "the shell that runs an ssh_config ProxyCommand."),
    (
        "DISPLAY, WAYLAND_DISPLAY, XDG_RUNTIME_DIR",
        "the display the window opens on; without one, `nfstune` and `nfstune gui` say so and exit 2.",
    ),
    (
        "QT_QPA_PLATFORM",
        "Qt's platform (xcb, wayland); offscreen and minimal show nothing, and are refused, as is a name Qt has no "
        "plugin for.",
    ),
    ("QT_QPA_PLATFORM_PLUGIN_PATH, QT_PLUGIN_PATH", "more folders of Qt plugins, where that name is looked for."),
    ("DBUS_SESSION_BUS_ADDRESS", "the session bus a watch's notification goes to."),
)

EXAMPLES = (
    (
        "What limits a NAS and a client, changing nothing on them:",
        "nfstune run --server nas --client laptop \\\n    --share /srv/data --recipe first-look",
    ),
    (
        "The same run's plan, every command on each host, without connecting:",
        "nfstune run --server nas --client laptop \\\n    --share /srv/data --recipe first-look --dry-run",
    ),
    (
        "sync against async on the export, then session 3's recommendation applied:",
        "nfstune run --server nas "
        "--client laptop \\\n    --share /srv/data --recipe sync-vs-async\nnfstune apply 3 --server nas "
        "--client laptop",
    ),
    (
        "A report to send on, and the recommendation alone for a script:",
        "nfstune report 3 --html report.html\nnfstune report 3 --json - | jq -r .recommendation.exports_line",
    ),
    (
        "A first look each week, and what the watches found:",
        "nfstune watch --install --every weekly "
        "--server nas \\\n    --client laptop --share /srv/data\nnfstune watch --status",
    ),
    (
        "Everything on the practice lab, two VMs on this computer:",
        "nfstune lab up\nnfstune run --lab --recipe quick-check --scale small",
    ),
)

SEE_ALSO = (
    "ssh(1)",
    "ssh_config(5)",
    "exports(5)",
    "exportfs(8)",
    "nfs(5)",
    "fstab(5)",
    "mount.nfs(8)",
    "fio(1)",
    "iperf3(1)",
    "systemd.timer(5)",
)


def text(words: str) -> str:
    """Plain words as troff input: backslashes and hyphens escaped (a hyphen is a minus, so that an option copies
    as typed), a command in backticks set in bold, and no line that troff would read as a request."""
    escaped = words.replace("\\", "\\e").replace("-", "\\-")
    escaped = re.sub(r"`([^`]*)`", r"\\fB\1\\fR", escaped)
    return re.sub(r"^([.'])", r"\\&\1", escaped, flags=re.MULTILINE)


def _sentence(words: str) -> str:
    return words[:1].upper() + words[1:] + ("" if words.endswith(".") else ".")


def _paragraphs(words: str) -> str:
    """Filled paragraphs from text whose blank lines part them (a parser's description or epilog)."""
    return "\n.PP\n".join(text(" ".join(p.split())) for p in re.split(r"\n\s*\n", words.strip()) if p.strip())


def commands(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> Iterator[tuple[str, str, argparse.ArgumentParser]]:
    """Each command below `parser`, depth first in the parser's order: (its words, its one-line help, parser)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for choice in action._choices_actions:
                child = action.choices[choice.dest]
                words = " ".join((*path, choice.dest))
                yield words, choice.help or "", child
                yield from commands(child, (*path, choice.dest))


def _usage(parser: argparse.ArgumentParser) -> str:
    formatter = argparse.HelpFormatter(parser.prog, width=USAGE_WIDTH)
    formatter.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups, prefix="")
    return formatter.format_help().strip("\n")


def _options(parser: argparse.ArgumentParser) -> list[str]:
    formatter = argparse.HelpFormatter(parser.prog)
    lines: list[str] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction | argparse._HelpAction) or action.help == argparse.SUPPRESS:
            continue
        if action.option_strings:
            metavar = formatter._get_default_metavar_for_optional(action)
            names = ", ".join(f"\\fB{text(o)}\\fR" for o in action.option_strings)
            args = formatter._format_args(action, metavar) if action.nargs != 0 else ""
            tag = names + (f" \\fI{text(args)}\\fR" if args else "")
        else:
            tag = (
                f"\\fI{text(formatter._format_args(action, formatter._get_default_metavar_for_positional(action)))}\\fR"
            )
        lines += [".TP", tag, text(formatter._expand_help(action)) if action.help else ""]
    return lines


def manpage(parser: argparse.ArgumentParser) -> str:
    lines = [
        f'.TH NFSTUNE 1 "" "nfstune {__version__}" "nfstune manual"',
        # no hyphenation: a path or a command broken at a hyphen of troff's would be copied wrong
        ".nh",
        ".ad l",
        ".SH NAME",
        "nfstune \\- measure NFS export and mount options on a server and its clients, and get the lines to use",
        ".SH SYNOPSIS",
        ".B nfstune",
        "[\\fB\\-\\-version\\fR]",
        ".br",
        ".B nfstune",
        ".I command",
        "[\\fIoptions\\fR]",
        ".SH DESCRIPTION",
        text(
            "nfstune connects to an NFS server and a Linux client over SSH, walks through guided recipes (sync "
            "against async export, block size, NFS versions, nconnect, read-ahead, several clients), measures "
            "each configuration with caches dropped and writes flushed, the configurations interleaved in rounds "
            "and compared round by round, keeps every result, and ends with the /etc/exports and /etc/fstab lines "
            "to use, each with its reasons."
        ),
        ".PP",
        text(
            "Every change on the hosts is journaled before it is made and undone at the end, on Ctrl-C, SIGTERM "
            "or SIGHUP, on failure, and after a crash the next time nfstune connects to that host. The client "
            "needs nfs-common (mount.nfs); fio and iperf3 are advised. Without a command, nfstune opens the desktop "
            "assistant."
        ),
        ".SH COMMANDS",
    ]
    for words, summary, child in commands(parser):
        lines += [f'.SS "nfstune {text(words)}"', ".nf", text(_usage(child)), ".fi", ".PP", text(_sentence(summary))]
        if child.description:
            lines += [".PP", _paragraphs(child.description)]
        lines += _options(child)
        if child.epilog:
            lines += [".PP", _paragraphs(child.epilog)]
    lines += [".SH OPTIONS", *_options(parser), ".TP", "\\fB\\-h\\fR, \\fB\\-\\-help\\fR"]
    lines += ["the command's options and what they do (also after each command: \\fBnfstune run \\-\\-help\\fR)."]
    lines += [".SH EXIT STATUS"]
    for status, meaning in exits.STATUSES:
        lines += [".TP", f"\\fB{status}\\fR", text(meaning)]  # --help's words, as they are
    lines += [".PP", text(exits.GUI_STATUS)]
    lines += [".SH ENVIRONMENT"]
    for names, meaning in ENVIRONMENT:
        lines += [".TP", ", ".join(f"\\fB{text(n)}\\fR" for n in names.split(", ")), text(meaning)]
    lines += [
        ".SH FILES",
        text(
            "On this computer; ~/.config, ~/.local/share, ~/.cache and ~/.local/state stand for $XDG_CONFIG_HOME, "
            "$XDG_DATA_HOME, $XDG_CACHE_HOME and $XDG_STATE_HOME where those are set."
        ),
    ]
    for base, below, meaning in FILES:
        lines += [".TP", f"\\fI{text(XDG_DEFAULTS[base])}/{text(below)}\\fR", text(_sentence(meaning))]
    lines += [
        ".TP",
        "\\fI/etc/exports\\fR, \\fI/etc/exports.d/\\fR, \\fI/etc/nfs.conf\\fR",
        text("on the server: what a recipe changes for a visit, and what `nfstune apply` writes for good."),
        ".TP",
        "\\fI/var/lib/nfstune/journal\\fR",
        text("on each host: a copy of each file before nfstune changes it."),
        ".TP",
        "\\fI/mnt/nfstune/\\fR<id>, <share>/\\fI.nfstune\\-\\fR<id>",
        text(
            "on the client: nfstune's own mount of the share, and its scratch folder in the share; both removed at "
            "the end."
        ),
        ".SH EXAMPLES",
    ]
    for say, shell in EXAMPLES:
        lines += [".PP", text(say), ".PP", ".RS 4", ".nf", text(shell), ".fi", ".RE"]
    lines += [".SH SEE ALSO", ", ".join(f"\\fB{n.split('(')[0]}\\fR({n.split('(')[1]}" for n in SEE_ALSO)]
    return "\n".join(lines) + "\n"
