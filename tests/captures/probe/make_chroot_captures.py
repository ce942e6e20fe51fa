"""Run the real probe script in tiny chroots (dash and libc, plus marker files) and save what it prints.

Needs root (chroot, mknod). From the repository root:
    .venv/bin/python tests/captures/probe/make_chroot_captures.py
The marker files' contents are SYNTHETIC (written here, shaped like the vendors' files); see README.md.
The `documented-*` captures add stub programs that print what the real ones print on those systems, in the format
their documentation and public transcripts show (sources in README.md): no such host was at hand.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import tempfile
from pathlib import Path

from nfstune.remote.probe import build_probe_script

HERE = Path(__file__).parent
RUNTIME = ("/bin/dash", "/lib/x86_64-linux-gnu/libc.so.6", "/lib64/ld-linux-x86-64.so.2")
STUB = "#!/bin/sh\nexit 0\n"  # `command -v` only needs an executable file

# capture name -> {path in the chroot: content (a directory when None)}
APPLIANCES: dict[str, dict[str, str | None]] = {
    "synthetic-synology.txt": {
        "/etc/synoinfo.conf": 'unique="synology_geminilake_920+"\ncompany_title="Synology"\n',
        "/etc.defaults/VERSION": 'majorversion="7"\nminorversion="2"\nproductversion="7.2.1"\nbuildnumber="69057"\n',
        "/usr/syno/bin/synopkg": STUB,
    },
    "synthetic-truenas-core.txt": {
        "/etc/version": "TrueNAS-13.0-U6.1 (6b4ebd9d6c)\n",
        "/data/freenas-v1.db": "",
        "/usr/local/bin/midclt": STUB,
    },
    "synthetic-truenas-scale.txt": {  # /etc/version without the product name: not evidence by itself
        "/etc/version": "24.04.2\n",
        "/data/freenas-v1.db": "",
        "/usr/bin/midclt": STUB,
    },
    "synthetic-openmediavault.txt": {"/etc/openmediavault": None, "/usr/sbin/omv-confdbadm": STUB},
    "synthetic-qnap.txt": {
        "/etc/config/qpkg.conf": "[container-station]\nName = container-station\n",
        "/etc/platform.conf": "Platform = TS-X53B\n",
        "/sbin/getcfg": STUB,
    },
    "synthetic-unraid.txt": {"/etc/unraid-version": 'version="6.12.4"\n'},
}


def stub(answers: dict[str, str]) -> str:
    """A program that prints `answers[ARGS]` for its arguments (joined by spaces) and fails for any others; dash's
    printf is a builtin, so the stub needs no other program in the chroot."""
    cases = "".join(f"  {shlex.quote(args)}) printf '%s' {shlex.quote(out)};;\n" for args, out in answers.items())
    return f'#!/bin/sh\ncase "$*" in\n{cases}  *) exit 1;;\nesac\n'


DEBIAN_12 = (
    'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nNAME="Debian GNU/Linux"\nVERSION_ID="12"\n'
    'VERSION="12 (bookworm)"\nVERSION_CODENAME=bookworm\nID=debian\nHOME_URL="https://www.debian.org/"\n'
)
RPM_QUERY = r"-q --qf %{NAME}\t%{VERSION}\n nfs-utils"  # the probe's own arguments, backslashes as they are
NFS_ACTIVE = stub({"is-active nfs-server": "active\n"})
UFW_CONF = "# /etc/ufw/ufw.conf\n#\n\n# Set to yes to start on boot. If setting this remotely, be sure to add a rule\n"
UFW_CONF += "# to allow your remote connection before starting ufw. Eg: 'ufw allow 22/tcp'\nENABLED=yes\n\n"
UFW_CONF += "# Please use the 'ufw' command to set the loglevel. Eg: 'ufw logging medium'.\nLOGLEVEL=low\n"
UFW_DEFAULT = 'IPV6=yes\nDEFAULT_INPUT_POLICY="DROP"\nDEFAULT_OUTPUT_POLICY="ACCEPT"\nDEFAULT_FORWARD_POLICY="DROP"\n'
UFW_RULES = (
    "*filter\n:ufw-user-input - [0:0]\n:ufw-user-output - [0:0]\n### RULES ###\n\n"
    "### tuple ### allow tcp 22 0.0.0.0/0 any 0.0.0.0/0 in\n-A ufw-user-input -p tcp --dport 22 -j ACCEPT\n\n"
    "### END RULES ###\nCOMMIT\n"
)
LIST_ALL = (  # `firewall-cmd --zone=Z --list-all` as firewalld 2.x prints it (src/firewall/command.py)
    "{zone} (default, active)\n  target: default\n  ingress-priority: 0\n  egress-priority: 0\n"
    "  icmp-block-inversion: no\n  interfaces: \n  sources: \n  services: {services}\n  ports: {ports}\n"
    "  protocols: \n  forward: yes\n  masquerade: no\n  forward-ports: \n  source-ports: \n  icmp-blocks: \n"
    "  rich rules: \n"
)


def firewalld(zone: str, list_all: str | None) -> str:
    """firewall-cmd running with `zone` as its default zone; `list_all` None: the zone's settings refused (a login
    that is not root: polkit's auth_admin_keep, and firewall-cmd's "Authorization failed." goes to stderr)."""
    answers = {"--state": "running\n", "--get-default-zone": f"{zone}\n"}
    if list_all is not None:
        answers[f"--zone={zone} --list-all"] = list_all
    return stub(answers)


# capture name -> ({path in the chroot: content, None for a directory}, login: None for root, else "uid:gid")
DISTROS: dict[str, tuple[dict[str, str | None], str | None]] = {
    "documented-ubuntu-24.04-ufw.txt": (
        {
            "/etc/os-release": 'PRETTY_NAME="Ubuntu 24.04.1 LTS"\nNAME="Ubuntu"\nVERSION_ID="24.04"\n'
            'VERSION="24.04.1 LTS (Noble Numbat)"\nVERSION_CODENAME=noble\nID=ubuntu\nID_LIKE=debian\n'
            "UBUNTU_CODENAME=noble\n",
            "/usr/bin/systemctl": NFS_ACTIVE,
            "/usr/bin/dpkg-query": stub(
                {
                    r"-W -f ${Package}\t${Version}\t${db:Status-Abbrev}\n nfs-kernel-server nfs-common": (
                        "nfs-kernel-server\t1:2.6.4-3ubuntu5\tii \nnfs-common\t1:2.6.4-3ubuntu5\tii \n"
                    )
                }
            ),
            "/etc/ufw/ufw.conf": UFW_CONF,
            "/etc/default/ufw": UFW_DEFAULT,
            "/etc/ufw/user.rules": UFW_RULES,
        },
        None,
    ),
    "documented-fedora-41-firewalld.txt": (
        {
            "/etc/os-release": 'NAME="Fedora Linux"\nVERSION="41 (Server Edition)"\nRELEASE_TYPE=stable\nID=fedora\n'
            'VERSION_ID=41\nPLATFORM_ID="platform:f41"\nPRETTY_NAME="Fedora Linux 41 (Server Edition)"\n'
            'VARIANT="Server Edition"\nVARIANT_ID=server\n',
            "/usr/bin/systemctl": NFS_ACTIVE,
            "/usr/bin/rpm": stub({RPM_QUERY: "nfs-utils\t2.8.1"}),
            "/usr/bin/firewall-cmd": firewalld(
                "FedoraServer", LIST_ALL.format(zone="FedoraServer", services="cockpit dhcpv6-client ssh", ports="")
            ),
            "/usr/sbin/getenforce": stub({"": "Enforcing\n"}),
            "/usr/sbin/getsebool": stub(
                {"nfs_export_all_ro nfs_export_all_rw": "nfs_export_all_ro --> on\nnfs_export_all_rw --> on\n"}
            ),
            "/sys/fs/selinux/enforce": "1",
            "/bin/ls": stub({"-Zd /export": "unconfined_u:object_r:default_t:s0 /export\n"}),
        },
        None,
    ),
    "documented-rocky-9-nobody.txt": (
        {
            "/etc/os-release": 'NAME="Rocky Linux"\nVERSION="9.4 (Blue Onyx)"\nID="rocky"\n'
            'ID_LIKE="rhel centos fedora"\nVERSION_ID="9.4"\nPLATFORM_ID="platform:el9"\n'
            'PRETTY_NAME="Rocky Linux 9.4 (Blue Onyx)"\n',
            "/usr/bin/systemctl": NFS_ACTIVE,
            "/usr/bin/rpm": stub({RPM_QUERY: "nfs-utils\t2.5.4"}),
            "/usr/bin/firewall-cmd": firewalld("public", None),
            "/usr/sbin/getenforce": stub({"": "Enforcing\n"}),
            "/usr/sbin/getsebool": stub(
                {"nfs_export_all_ro nfs_export_all_rw": "nfs_export_all_ro --> on\nnfs_export_all_rw --> off\n"}
            ),
            "/sys/fs/selinux/enforce": "1",
            "/bin/ls": stub({"-Zd /export": "system_u:object_r:nfs_t:s0 /export\n"}),
        },
        "65534:65534",
    ),
    "documented-ubuntu-24.04-ufw-nobody.txt": (
        {
            "/etc/os-release": 'NAME="Ubuntu"\nVERSION_ID="24.04"\nID=ubuntu\nID_LIKE=debian\n',
            "/etc/ufw/ufw.conf": UFW_CONF,
            "/etc/default/ufw": UFW_DEFAULT,
            "/etc/ufw/user.rules": UFW_RULES,  # mode 0640, as ufw keeps it: not for this login
        },
        "65534:65534",
    ),
    "documented-truenas-scale-24.10.txt": (
        {
            "/etc/os-release": DEBIAN_12,
            "/usr/bin/systemctl": NFS_ACTIVE,
            "/data/freenas-v1.db": "",
            "/usr/bin/midclt": STUB,
            "/etc/exports": '\n"/mnt/tank/share"\\\n\t192.168.1.0/24(sec=sys,rw,no_subtree_check)\n',
        },
        None,
    ),
    "documented-openmediavault-7.txt": (
        {
            "/etc/os-release": DEBIAN_12,
            "/usr/bin/systemctl": NFS_ACTIVE,
            "/etc/openmediavault": None,
            "/usr/sbin/omv-confdbadm": STUB,
            "/etc/exports": "# This file is auto-generated by openmediavault (https://www.openmediavault.org)\n"
            "# WARNING: Do not edit this file, your changes will get lost.\n\n"
            "# /etc/exports: the access control list for filesystems which may be exported\n"
            "#               to NFS clients.  See exports(5).\n"
            "/export/share 192.168.1.0/24(fsid=1,rw,subtree_check,insecure)\n",
        },
        None,
    ),
}
ROOT_ONLY = ("/etc/ufw/user.rules",)  # mode 0640 root:root, as ufw installs it


def run_in_chroot(
    files: dict[str, str | None], *, dev_null: bool = True, login: str | None = None, programs: tuple[str, ...] = ()
) -> str:
    """The probe's stdout in a chroot of `files`, with dash, libc and `programs` (real ones, copied from here)."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for source in (*RUNTIME, *programs):
            target = root / source.lstrip("/")
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(source, target)
        (root / "bin" / "dash").rename(root / "bin" / "sh")
        if dev_null:
            (root / "dev").mkdir()
            subprocess.run(["mknod", "-m", "666", str(root / "dev" / "null"), "c", "1", "3"], check=True)
        for path, content in files.items():
            target = root / path.lstrip("/")
            if content is None:
                target.mkdir(parents=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(content)
            target.chmod(0o755 if content.startswith("#!") else 0o640 if path in ROOT_ONLY else 0o644)
        root.chmod(0o755)  # a temporary directory is 0700: no way in for `login`
        script = build_probe_script("/export", "10.99.0.1")
        userspec = [f"--userspec={login}"] if login else []
        result = subprocess.run(
            ["/usr/sbin/chroot", *userspec, str(root), "/bin/sh", "-c", script],
            env={"PATH": "/bin"},
            capture_output=True,
            text=True,
            check=True,
        )
        return result.stdout


def main() -> None:
    (HERE / "bare-chroot-dash-only.txt").write_text(run_in_chroot({}, dev_null=False))
    for name, files in APPLIANCES.items():
        (HERE / name).write_text(run_in_chroot(files))
    for name, (files, login) in DISTROS.items():
        # the real cat, which the probe reads os-release with (it links libc alone)
        (HERE / name).write_text(run_in_chroot(files, login=login, programs=("/usr/bin/cat",)))


if __name__ == "__main__":
    main()
