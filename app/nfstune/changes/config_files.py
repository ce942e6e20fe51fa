"""A configuration made of one file and a directory of drop-ins (/etc/exports and /etc/exports.d/*.exports,
/etc/nfs.conf and /etc/nfs.conf.d/*.conf), read as root in the order its program reads them."""

from __future__ import annotations

from nfstune.remote import Host
from nfstune.shell_text import sh_line


def read_config_files(host: Host, main: str, drop_ins: str, suffix: str) -> dict[str, str]:
    """`main`, then the files of `drop_ins` whose names end in `suffix`, in name order, by path; a file that does
    not exist is left out. Names with spaces survive (NUL-separated)."""
    listing = host.run(listing_line(drop_ins, suffix), sudo=True, action=f"listing {drop_ins}").stdout
    files = {}
    for path in [main, *sorted(p for p in listing.split("\0") if p)]:
        data = host.read_file(path, sudo=True)
        if data is not None:
            files[path] = data.decode("utf-8", "surrogateescape")
    return files


def listing_line(drop_ins: str, suffix: str) -> str:
    """The files of `drop_ins` whose names end in `suffix`, NUL-separated; nothing when it does not exist."""
    return sh_line(
        "find -L {drop_ins} -mindepth 1 -maxdepth 1 -type f -name {pattern} -print0 2>/dev/null; true",
        drop_ins=drop_ins,
        pattern="*" + suffix,
    )
