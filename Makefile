# nfstune: `make demo` runs the main job on the practice lab, `make test` runs the tests.
# Both install whatever is missing first: Debian packages (as root, or with sudo), then a venv in .venv.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

# the practice lab (image build, VMs, host-key handling)
APT_LAB := mmdebstrap e2fsprogs qemu-system-x86 qemu-utils openssh-client
# a real sshd on loopback for the SSH tests, sudo for the non-root logins they try, procps for the sampler's vmstat, ping for the round-trip ceiling on loopback
# desktop-file-validate for the menu entry, gtk-update-icon-cache for the icon cache it keeps current, appstreamcli
# for the AppStream metainfo, groff and man for the manual page (tests/unit); systemd-analyze to verify a watch's
# units, dbus-daemon and gdbus for its notification; bash-completion for the known hosts the completion script
# offers (its _known_hosts_real)
APT_TEST := openssh-server sudo procps iputils-ping desktop-file-utils gtk-update-icon-cache appstream groff-base \
	man-db systemd dbus-daemon libglib2.0-bin bash-completion
# what the desktop window needs on a minimal system: the libraries Qt's platform plugins (xcb, wayland) link to,
# OpenGL, fonts (see docs/stack-notes.md). README's "Install" lists the same (tests/unit/test_packaging.py checks)
APT_QT_RUNTIME := libegl1 libgl1 libdbus-1-3 libfontconfig1 fonts-dejavu-core libglib2.0-0 libxkbcommon0 \
	libxkbcommon-x11-0 libxcb-cursor0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1 libxcb-render-util0 \
	libxcb-shape0 libxcb-xkb1 libwayland-cursor0
# Qt offscreen and a real window under Xvfb, and screenshots
APT_QT := xvfb xauth x11-apps $(APT_QT_RUNTIME) imagemagick
APT_PKGS := $(APT_LAB) $(APT_TEST) $(APT_QT)
# `make screenshots` only: the exported report as a browser shows it (headless, in a network namespace of its own)
APT_SHOTS := chromium util-linux

.PHONY: demo test pytest lint lab-image lab-image-bookworm lab-image-trixie system-deps venv screenshots clean

demo: system-deps $(STAMP)
	$(BIN)/nfstune demo

# the lab's images (about a minute each when not cached) build beside the linters and each other, not inside the
# first lab test while the other worker waits: bookworm for every lab, trixie for the three-client lab's NAS
test: system-deps $(STAMP)
	$(MAKE) -j3 --output-sync=target lint lab-image-bookworm lab-image-trixie
	$(MAKE) pytest

lab-image: lab-image-bookworm lab-image-trixie

lab-image-bookworm lab-image-trixie: $(STAMP)
	$(BIN)/nfstune lab build --release $(subst lab-image-,,$@)

# two workers, two labs side by side (tests/conftest.py says why); `make pytest PYTEST_ARGS=...` for others
PYTEST_ARGS ?= -n 2 --durations=30
pytest: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(BIN)/pytest $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check app tests tools
	$(BIN)/ruff format --check app tests tools
	$(BIN)/mypy
	$(BIN)/lint-imports

system-deps:
	@missing=$$(for p in $(APT_PKGS) $(EXTRA_APT); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing Debian packages:" $$missing; \
		SUDO=; [ "$$(id -u)" -eq 0 ] || SUDO=sudo; \
		$$SUDO apt-get update -q && \
		DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q --no-install-recommends $$missing; \
	fi

venv: $(STAMP)

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
		{ echo "nfstune needs Python 3.11 or newer ($(PYTHON) is $$($(PYTHON) --version))"; exit 1; }
	$(PYTHON) -m venv $(VENV) || { echo "no venv module: apt-get install python3-venv"; exit 1; }
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $@

screenshots: $(STAMP)
	$(MAKE) system-deps EXTRA_APT="$(APT_SHOTS)"
	$(BIN)/python tools/screenshots.py docs/screenshots

clean:
	rm -rf $(VENV) build dist
