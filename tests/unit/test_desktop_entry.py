"""`nfstune desktop-entry`: the entry as desktop-file-validate and GLib (what GNOME launches with) read it, the files at
the places the Icon Theme and Base Directory specifications give, and --uninstall taking out exactly those."""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from nfstune import paths
from nfstune.cli import desktop_entry
from nfstune.cli.main import main
from nfstune.errors import NfstuneError

SIZES = (16, 24, 32, 48, 64, 128, 256)
ENTRY = f"{paths.APP_ID}.desktop"
# a folder name with every character the Exec key's quoting is about
AWKWARD = "my apps $HOME `x` \"q\" 'a' \\b 100% (1)"


def validate(entry: Path) -> str:
    """desktop-file-validate's whole output: errors, warnings and hints alike (an empty one passes all three)."""
    done = subprocess.run(["desktop-file-validate", str(entry)], capture_output=True, text=True)
    return (done.stdout + done.stderr).strip() or f"exit {done.returncode}" * (done.returncode != 0)


def glib_read(entry: Path, key: str) -> str:
    """The key's value as GLib's key file reader unescapes it."""
    glib = ctypes.CDLL("libglib-2.0.so.0")
    glib.g_key_file_new.restype = ctypes.c_void_p
    glib.g_key_file_load_from_file.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_void_p]
    glib.g_key_file_get_string.restype = ctypes.c_char_p
    glib.g_key_file_get_string.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_void_p]
    keys = glib.g_key_file_new()
    assert glib.g_key_file_load_from_file(keys, str(entry).encode(), 0, None)
    value = glib.g_key_file_get_string(keys, b"Desktop Entry", key.encode(), None)
    assert value is not None, key
    return bytes(value).decode()


def glib_argv(exec_value: str) -> list[str]:
    """The command line GLib's launcher runs for an Exec value (its field codes expanded first: %% is %)."""
    glib = ctypes.CDLL("libglib-2.0.so.0")
    argc, argv = ctypes.c_int(), ctypes.POINTER(ctypes.c_char_p)()
    glib.g_shell_parse_argv.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
    expanded = exec_value.replace("%%", "%")
    assert glib.g_shell_parse_argv(expanded.encode(), ctypes.byref(argc), ctypes.byref(argv), None)
    return [argv[i].decode() for i in range(argc.value)]


def tree(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def install(home: Path, command: Path) -> list[str]:
    said: list[str] = []
    desktop_entry.install(home, command, said.append)
    return said


def uninstall(home: Path) -> list[str]:
    said: list[str] = []
    desktop_entry.uninstall(home, said.append)
    return said


@pytest.fixture
def command(tmp_path: Path) -> Path:
    exe = tmp_path / "bin" / "nfstune"
    exe.parent.mkdir()
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    return exe


@pytest.mark.parametrize("folder", ["/usr/local/bin", f"/opt/{AWKWARD}/bin"])
def test_the_entry_passes_desktop_file_validate_and_starts_the_command(tmp_path: Path, folder: str) -> None:
    command = Path(folder, "nfstune")
    entry = tmp_path / "nfstune.desktop"
    entry.write_text(desktop_entry.entry_text(command))
    assert validate(entry) == ""
    assert glib_argv(glib_read(entry, "Exec")) == [str(command), "gui"]
    assert glib_read(entry, "TryExec") == str(command)
    assert glib_read(entry, "Icon") == "nfstune" and glib_read(entry, "Terminal") == "false"


def test_an_unquoted_awkward_path_would_not_start(tmp_path: Path) -> None:
    """The check above can fail: the same path unquoted splits into other arguments."""
    command = f"/opt/{AWKWARD}/bin/nfstune"
    assert glib_argv(command.replace("%", "%%") + " gui") != [command, "gui"]


def test_a_line_break_in_the_path_is_refused() -> None:
    with pytest.raises(NfstuneError, match="line break"):
        desktop_entry.entry_text(Path("/opt/a\nb/nfstune"))


def test_install_writes_the_entry_and_the_icons_where_the_specifications_say(tmp_path: Path, command: Path) -> None:
    home = tmp_path / "data"
    said = install(home, command)
    entry = home / "applications" / ENTRY
    assert validate(entry) == "" and glib_argv(glib_read(entry, "Exec")) == [str(command), "gui"]
    for size in SIZES:
        icon = home / "icons" / "hicolor" / f"{size}x{size}" / "apps" / "nfstune.png"
        assert icon.read_bytes() == (paths.icons_dir() / f"{size}x{size}" / "apps" / "nfstune.png").read_bytes()
    scalable = home / "icons" / "hicolor" / "scalable" / "apps" / "nfstune.svg"
    assert scalable.read_bytes().startswith(b"<?xml")
    assert f"wrote {entry}" in said and f"wrote {scalable}" in said
    assert said[-1] == f"recorded in {home}/nfstune/desktop-entry.json; the menu entry starts {command} gui"
    metainfo = home / "metainfo" / f"{paths.APP_ID}.metainfo.xml"
    assert metainfo.read_bytes() == paths.metainfo_file().read_bytes() and f"wrote {metainfo}" in said
    # no cache was there, so none is made (and the tree holds the entry, the icons, the metainfo and the record alone)
    assert not list(home.rglob("*.cache"))
    assert len([p for p in home.rglob("*") if p.is_file()]) == 1 + len(SIZES) + 1 + 1 + 1


def test_uninstall_takes_out_what_install_wrote_and_nothing_else(tmp_path: Path, command: Path) -> None:
    home = tmp_path / "data"
    theirs = [home / "applications" / "other.desktop", home / "icons" / "hicolor" / "48x48" / "apps" / "other.png"]
    for path in theirs:
        path.parent.mkdir(parents=True)
        path.write_text("not nfstune's")
    before = tree(home)
    install(home, command)
    install(home, command)  # again, as after an upgrade: still one record of what is nfstune's
    said = uninstall(home)
    assert tree(home) == before
    assert len([line for line in said if line.startswith("removed ")]) == 1 + len(SIZES) + 1 + 1
    assert uninstall(home) == [f"nothing to take out: no nfstune menu entry was installed under {home}"]


def test_uninstall_leaves_a_file_changed_since_and_names_it(tmp_path: Path, command: Path) -> None:
    home = tmp_path / "data"
    install(home, command)
    entry = home / "applications" / ENTRY
    entry.write_text(entry.read_text().replace("Terminal=false", "Terminal=true"))
    said = uninstall(home)
    assert f"left {entry}: it was changed after nfstune wrote it" in said
    assert tree(home) == ["applications", f"applications/{ENTRY}"]


@pytest.mark.skipif(
    shutil.which("gtk-update-icon-cache") is None, reason="needs gtk-update-icon-cache (make test installs it)"
)
def test_an_icon_cache_that_was_there_is_kept_current(tmp_path: Path, command: Path) -> None:
    home = tmp_path / "data"
    hicolor = home / "icons" / "hicolor"
    other = hicolor / "48x48" / "apps" / "other.png"
    other.parent.mkdir(parents=True)
    shutil.copy(paths.icons_dir() / "48x48" / "apps" / "nfstune.png", other)
    subprocess.run(["gtk-update-icon-cache", "-q", "-f", "-t", str(hicolor)], check=True)
    cache = hicolor / "icon-theme.cache"
    before = tree(home)
    assert b"other" in cache.read_bytes() and b"nfstune" not in cache.read_bytes()
    assert f"refreshed {cache}" in install(home, command)
    assert b"nfstune" in cache.read_bytes()  # a stale cache would hide the new icon
    assert f"refreshed {cache}" in uninstall(home)
    assert b"nfstune" not in cache.read_bytes() and tree(home) == before


def test_xdg_data_home_is_used_when_absolute(tmp_path: Path) -> None:
    assert desktop_entry.data_home({"XDG_DATA_HOME": str(tmp_path)}) == tmp_path
    # the Base Directory Specification: a relative path is invalid and ignored, as is an empty one
    for value in ("relative/share", ""):
        assert desktop_entry.data_home({"XDG_DATA_HOME": value}) == Path.home() / ".local" / "share"


def test_the_command_is_the_one_running_with_its_links_kept(tmp_path: Path, command: Path) -> None:
    link = tmp_path / "local-bin" / "nfstune"
    link.parent.mkdir()
    link.symlink_to(command)
    assert desktop_entry.nfstune_command(str(link), "/nonexistent/python") == link
    # `python -m nfstune`: argv[0] is the module's file, and the command is beside the Python
    python = command.parent / "python"
    assert desktop_entry.nfstune_command("/x/nfstune/__main__.py", str(python)) == command


def test_without_a_command_the_error_says_what_to_do(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(NfstuneError, match="install nfstune with pipx or pip"):
        desktop_entry.nfstune_command("/x/nfstune/__main__.py", str(tmp_path / "python"))


def test_a_folder_that_cannot_be_written_is_named_without_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("XDG_DATA_HOME", str(blocker / "share"))
    assert main(["desktop-entry", "--install"]) == 2
    err = capsys.readouterr().err
    assert f"nfstune: error: cannot read {blocker}/share/nfstune/desktop-entry.json: Not a directory" in err
    assert "Traceback" not in err
    assert os.listdir(tmp_path) == ["a-file"]
