"""Apply and its Undo as steps (steps.py): the files each writes, the commands it runs between, and how a failure
puts each file back. The plan the admin reads before saying yes (`nfstune apply`, the Apply dialog) is built here,
and apply.py and apply_undo.py run the same steps, journaled first. What only the run can know (the name of the
dated copy, taken from the time of the Apply) is a placeholder in angle brackets in the plan."""

from __future__ import annotations

from nfstune.changes.export import RELOAD
from nfstune.changes.steps import Role, Step, Steps, command, shell, write
from nfstune.changes.transaction import undo_dir, undo_file
from nfstune.shell_text import sh_line

DATE = "<date>"  # the time of the Apply, in the dated copy's name
SYSTEMD_RELOAD = "if [ -d /run/systemd/system ]; then systemctl daemon-reload; fi"


def backup_name(path: str, stamp: str = DATE) -> str:
    """The dated copy of `path` that Apply keeps beside it."""
    return f"{path}.nfstune-{stamp}.bak"


def keep_owner_line(path: str, backup: str) -> str:
    """`backup` given the owner and mode of `path`."""
    return sh_line("chown --reference={path} {backup} && chmod --reference={path} {backup}", path=path, backup=backup)


def file_steps(role: Role, path: str, *, existed: bool, written: bool, backup: str | None, exportfs: bool) -> Steps:
    """One file replaced: with `backup`, its old bytes first copied beside it with its owner and mode; then the
    new bytes written (`written`), or the file removed (an Undo of an Apply that made it). Undone by putting the
    bytes it had back (`existed`; else removing it), reloading the exports when it is an exports file
    (`exportfs`), and removing the copy."""
    kept: tuple[Step, ...] = ()
    if backup is not None:
        kept = (
            write(role, backup, f"keep the old {path} as {backup}"),
            shell(role, keep_owner_line(path, backup), f"give {backup} the owner and mode of {path}"),
        )
    change = (
        write(role, path, f"write the new {path}") if written else command(role, ("rm", "-f", path), f"remove {path}")
    )
    return Steps((*kept, change), undo_file(role, path, original=existed, exportfs=exportfs, backup=backup))


def reload_step(role: Role = "server") -> Step:
    """The exports reloaded after an exports file was written; verified after (export.verify_exports)."""
    return command(role, RELOAD, "reload the exports, then check what exportfs -s and nfsd's caches show")


def systemd_reload_step(role: Role = "client") -> Step:
    """systemd makes its mount units from fstab: after a change it reads the new one (a failure is a warning)."""
    return shell(role, SYSTEMD_RELOAD, "let systemd read the new fstab (systemctl daemon-reload)")


def remove_dir_line(directory: str) -> str:
    """`directory` removed if it is empty and nothing is mounted on it."""
    return sh_line("! mountpoint -q {d} && rmdir {d}", d=directory)


def remove_made_dir_step(role: Role, directory: str) -> Step:
    """A directory Apply made for the mount point, removed by its Undo while it is empty and not mounted on."""
    return shell(role, remove_dir_line(directory), f"remove {directory} (Apply made it) if it is empty and unused")


def drop_backup_line(backup: str, path: str) -> str:
    """`backup` removed if it holds the same bytes as `path`."""
    return sh_line("cmp -s {backup} {path} && rm -f {backup}", backup=backup, path=path)


def drop_backup_step(role: Role, backup: str, path: str) -> Step:
    """Apply's dated copy, removed by its Undo once the file holds the same bytes again; any other copy stays."""
    return shell(role, drop_backup_line(backup, path), f"remove {backup} if {path} holds its bytes again")


def steps_text(steps: Steps) -> str:
    """The steps as the admin reviews them under the diff, one a line, in the order they run."""
    lines = [f"{s.text()}{f'  ({s.when})' if s.when else ''}  # {s.what}" for s in steps.do]
    return "# the steps, in this order (a failure puts back what was done, newest first):\n" + "\n".join(lines)


def mount_point_steps(role: Role, mount_point: str, made: tuple[str, ...] | None = None) -> Steps:
    """The mount point made with its parents; undone by removing, innermost first, the directories it made
    (`made`: as the run found them missing; None in the plan, which cannot know: the mount point then)."""
    step = command(role, ("mkdir", "-p", mount_point), f"make the mount point {mount_point}")
    dirs = (mount_point,) if made is None else made
    return Steps((step,), tuple(undo_dir(role, d) for d in reversed(dirs))).only(f"when {mount_point} is missing")
