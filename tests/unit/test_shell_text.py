"""The one quoting helper, checked by the shell that reads its output: whatever a value holds, sh receives it as
one word, byte for byte, and runs nothing it says."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nfstune.shell_text import join, quote, sh_line

HOSTILE = [
    "/srv/$(touch {marker})",
    "/srv/`touch {marker}`",
    "/srv/x; touch {marker}",
    "/srv/x' ; touch {marker}; '",
    '/srv/x" ; touch {marker}; "',
    "/srv/x\ntouch {marker}",
    "/srv/x && touch {marker}",
    "/srv/x | touch {marker}",
    "/srv/*",
    "~root",
    "-rf",
    "",
    "%h %p %%",
    "/srv/ünïcødé ☃",
]


def _printed_words(line: str) -> list[str]:
    done = subprocess.run(["sh", "-c", line], capture_output=True, check=True)
    return done.stdout.decode().split("\0")[:-1]


@pytest.mark.parametrize("template", HOSTILE)
def test_a_hostile_value_arrives_as_one_word_and_runs_nothing(tmp_path: Path, template: str) -> None:
    marker = tmp_path / "ran"
    value = template.format(marker=marker)
    line = sh_line("printf '%s\\0' {value} {value}", value=value)
    assert _printed_words(line) == [value, value]
    assert not marker.exists()


@settings(deadline=None, max_examples=300)
@given(st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\0")))
def test_any_text_arrives_as_itself(value: str) -> None:
    assert _printed_words(f"printf '%s\\0' {quote(value)}") == [value]


def test_a_sequence_goes_in_as_that_many_words() -> None:
    words = ["a b", "$(x)", "'"]
    assert _printed_words(sh_line("printf '%s\\0' {argv}", argv=words)) == words
    assert _printed_words("printf '%s\\0' " + join(words)) == words


def test_braces_of_the_template_are_its_own() -> None:
    line = sh_line("{{ printf '%s\\0' {v}; }}", v="}{")
    assert _printed_words(line) == ["}{"]


def test_mistakes_in_a_template_are_refused() -> None:
    with pytest.raises(ValueError, match="NUL"):
        quote("a\0b")
    with pytest.raises(ValueError, match="not used"):
        sh_line("echo {a}", a="x", b="y")
    with pytest.raises(ValueError, match="no format"):
        sh_line("echo {a!r}", a="x")
    with pytest.raises(KeyError):
        sh_line("echo {a} {b}", a="x")
