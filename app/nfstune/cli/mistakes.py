"""How the command line's mistakes are said: an unknown option first, with the nearest real one ("unknown option
--sever; did you mean --server?"), before anything argparse would say about what is then missing; a missing option
with what it wants and how to give it; an argument left over. Each with the usage of the command it belongs to, not
nfstune's own, and exit status 2 (argparse's).

argparse reads a subcommand's words with that subcommand's parser (its parse_known_args), so checking them there
names the right command, and an error raised there prints its usage.
"""

from __future__ import annotations

import argparse
import difflib
import re
import shutil
import sys
import textwrap
from collections.abc import Iterable, Sequence
from gettext import gettext
from typing import Any, NoReturn

from nfstune.words import plural

# what argparse says of a missing required argument (through gettext, as argparse says it)
_REQUIRED = (gettext("the following arguments are required: %s"), gettext("one of the arguments %s is required"))
# argparse takes these for negative numbers (a value), not options, while no option looks like one
_NEGATIVE_NUMBER = re.compile(r"^-\d+$|^-\d*\.\d+$")


def nearest(word: str, candidates: Iterable[str]) -> str | None:
    """The one of `candidates` that `word` most likely misspells, or None when none is near enough."""
    found = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.6)
    return found[0] if found else None


def did_you_mean(word: str, candidates: Iterable[str]) -> str:
    """ "; did you mean X?" for the nearest of `candidates`, or nothing."""
    near = nearest(word, candidates)
    return f"; did you mean {near}?" if near else ""


def wants(actions: Sequence[argparse.Action], alternatives: bool = False, too: bool = False) -> str:
    """Options as they are given, each on a line with what it wants (its help, up to the first ';'), after
    the words that say to add them: `--client and --share; add them:` / `--lab or --server; add one:`."""
    names = [a.option_strings[-1] for a in actions]
    joined = f" {'or' if alternatives else 'and'} ".join(
        [", ".join(names[:-1]), names[-1]] if len(names) > 1 else names
    )
    forms = [f"{n} {a.metavar or a.dest.upper()}" if a.nargs != 0 else n for n, a in zip(names, actions, strict=True)]
    width = max(len(f) for f in forms)
    columns = max(60, min(100, shutil.get_terminal_size().columns - 2))
    lines = [
        textwrap.fill(
            f"  {form:{width}}  {(a.help or '').split(';')[0].strip()}",
            columns,
            subsequent_indent=" " * (width + 4),
            break_on_hyphens=False,
        )
        for form, a in zip(forms, actions, strict=True)
    ]
    add = "add one" if alternatives else ("add it" if len(actions) == 1 else "add them")
    return f"{joined}{' too' if too else ''}; {add}:\n" + "\n".join(lines)


def recipe_id(word: str, ids: Sequence[str]) -> str:
    """The recipe id `word` stands for: itself; its file name (`quick-check.toml`, as `nfstune info` listed them
    before); or itself in lower case (`Quick-Check`), for an id is lower case (recipes/checker.py) and so can mean
    no other. A misspelt id is not guessed, for a run takes minutes and changes a server: ValueError, with the id
    it is likely meant to be."""
    stem = word.removesuffix(".toml")
    for candidate in (word, stem, stem.lower()):
        if candidate in ids:
            return candidate
    near = nearest(stem.lower(), ids)
    if near is not None:
        raise ValueError(f"unknown recipe {word}; did you mean {near}? (`nfstune recipes` lists them)")
    raise ValueError(f"unknown recipe {word}: `nfstune recipes` lists them ({', '.join(sorted(ids))})")


def recipe_ids(parser: argparse.ArgumentParser, words: Sequence[str]) -> list[str]:
    """The ids of the recipes `words` name (`recipe_id`), or the error with `parser`'s usage."""
    from nfstune.recipes.loader import default_recipe_dirs, load_recipes

    recipes, broken = load_recipes(default_recipe_dirs())
    try:
        return [recipe_id(word, [r.id for r in recipes]) for word in words]
    except ValueError as error:
        for each in broken:  # a file of the user's that could not be read may be the recipe meant
            print(f"nfstune: warning: {each}", file=sys.stderr)
        parser.error(str(error))


def option(parser: argparse.ArgumentParser, name: str) -> argparse.Action:
    """`parser`'s action for the option `name` (`--client`)."""
    return parser._option_string_actions[name]


class Parser(argparse.ArgumentParser):
    """argparse's parser, saying a mistake as nfstune wants it said (see the module's text)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._given: list[str] = []

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        self._given = list(sys.argv[1:] if args is None else args)
        for word in self._options_given():
            if not self._known(word):
                self.error(self._unknown(word.split("=", 1)[0]))
        parsed, extra = super().parse_known_args(args, namespace)
        if extra:  # a subcommand's, said with its usage rather than nfstune's
            self.error(f"unexpected {plural(len(extra), 'argument')}: {' '.join(extra)}")
        return parsed, extra

    def error(self, message: str) -> NoReturn:
        asked = any(re.fullmatch(re.escape(t).replace("%s", ".*"), message, re.DOTALL) for t in _REQUIRED)
        missing = self._missing() if asked else None
        super().error(missing or message)

    def _unknown(self, name: str) -> str:
        """An unknown option with the nearest real one; at nfstune's own level, a command's option too, for
        `nfstune --server nas run ...` puts a command's option before the command."""
        ours = [s for s in self._option_string_actions if s.startswith("--")]
        owners: dict[str, list[str]] = {}
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                for command, parser in action.choices.items():
                    for s in parser._option_string_actions:
                        if s not in ours:
                            owners.setdefault(s, []).append(command)
        near = nearest(name, [*ours, *owners])
        if near is None:
            return f"unknown option {name}"
        if near in ours:
            return f"unknown option {name}; did you mean {near}?"
        where = f"{near} goes after the command it belongs to ({', '.join(owners[near])})"
        own = f"{self.prog}'s own options are {' and '.join(ours)}"
        if near == name:
            return f"unknown option {name} before the command: {where}; {own}"
        return f"unknown option {name}; did you mean {near}? {where}; {own}"

    def _options_given(self) -> list[str]:
        """The words that argparse would read as options of this parser: up to `--`, and up to the first
        positional word where the rest belongs to a subcommand or is a command line of its own (`lab ssh`)."""
        stops = any(a.nargs in (argparse.PARSER, argparse.REMAINDER) for a in self._actions)
        found = []
        for word in self._given:
            if word == "--":
                break
            if word.startswith("-") and word != "-" and not _NEGATIVE_NUMBER.match(word):
                found.append(word)
            elif stops:
                break
        return found

    def _known(self, word: str) -> bool:
        name = word.split("=", 1)[0] if word.startswith("--") else word[:2]
        if name in self._option_string_actions:
            return True
        # an abbreviation argparse accepts (or says is ambiguous itself)
        return word.startswith("--") and any(s.startswith(name) for s in self._option_string_actions)

    def _missing(self) -> str | None:
        """The required options (and groups of which one is required) that are not on the command line, as
        `wants` says them; None when what is missing is a positional argument, said by argparse."""
        given = {w.split("=", 1)[0] for w in self._options_given()}

        def present(action: argparse.Action) -> bool:
            return any(
                s in given or any(g.startswith("--") and s.startswith(g) for g in given) for s in action.option_strings
            )

        texts = []
        for group in self._mutually_exclusive_groups:
            if group.required and not any(present(a) for a in group._group_actions):
                texts.append(wants(group._group_actions, alternatives=True))
        in_groups = {id(a) for g in self._mutually_exclusive_groups for a in g._group_actions}
        alone = [a for a in self._actions if a.required and a.option_strings and id(a) not in in_groups]
        absent = [a for a in alone if not present(a)]
        if absent:
            texts.append(wants(absent))
        if not texts:
            return None
        return "\n".join(f"missing {t}" for t in texts)
