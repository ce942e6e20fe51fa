"""`nfstune completion bash`: the completion script, made by shtab from the parser, with what shtab cannot know:
recipe ids after --recipe, asked of the nfstune being completed (`nfstune recipes --ids`: the shipped recipes and
the user's), and host names after --server and --client, as ssh would take them.

The hosts are the Host names of ~/.ssh/config and /etc/ssh/ssh_config and of the files they Include (recursively,
with their globs, as ssh reads them; the patterns with * ? or ! are left out: ssh matches those, nobody types
them), and the hosts of known_hosts when bash-completion's own reader (_known_hosts_real) is loaded. `user@` before
the host is kept.
"""

from __future__ import annotations

import argparse

from nfstune.cli.args import output_file, ssh_destination

BASH_FUNCTIONS = r"""
# nfstune: the recipe ids the nfstune being completed runs (shipped and the user's)
_nfstune_recipe_ids() {
  local command=${COMP_WORDS[0]} id
  type -P -- "$command" >/dev/null 2>&1 || command=nfstune
  "$command" recipes --ids 2>/dev/null | while IFS= read -r id; do
    [[ $id == "$1"* ]] && printf '%s\n' "$id"
  done
}

# nfstune: the Host names of an ssh config file ($1) and the files it includes, relative to $2, as ssh does
_nfstune_ssh_config_hosts() {
  local file=$1 base=$2 depth=${3:-0} key rest word pattern included
  local -a words
  if ((depth > 16)) || [[ ! -r $file || -d $file ]]; then
    return
  fi
  while read -r key rest; do
    if [[ $key == *=* ]]; then  # Key=value
      rest="${key#*=} $rest"
      key=${key%%=*}
    fi
    rest=${rest#=}
    read -ra words <<<"$rest"
    case ${key,,} in
      host)
        for word in "${words[@]}"; do
          [[ $word == *[\*\?\!]* ]] || printf '%s\n' "$word"
        done
        ;;
      include)
        for pattern in "${words[@]}"; do
          [[ $pattern == "~/"* ]] && pattern=$HOME/${pattern#"~/"}
          [[ $pattern == /* ]] || pattern=$base/$pattern
          while IFS= read -r included; do
            _nfstune_ssh_config_hosts "$included" "$base" $((depth + 1))
          done < <(compgen -G "$pattern")
        done
        ;;
    esac
  done <"$file"
}

# nfstune: host names for --server and --client, with the user@ typed before them
_nfstune_hosts() {
  local cur=$1 user="" host
  if [[ $cur == *@* ]]; then
    user=${cur%%@*}@
    cur=${cur#*@}
  fi
  {
    _nfstune_ssh_config_hosts "$HOME/.ssh/config" "$HOME/.ssh"
    _nfstune_ssh_config_hosts /etc/ssh/ssh_config /etc/ssh
    if declare -F _known_hosts_real >/dev/null; then
      COMPREPLY=()
      _known_hosts_real -- "$cur" 2>/dev/null
      printf '%s\n' "${COMPREPLY[@]}"
    fi
  } | sort -u | while IFS= read -r host; do
    [[ -n $host && $host == "$cur"* ]] && printf '%s\n' "$user$host"
  done
}
"""


def completion(parser: argparse.ArgumentParser, shell: str) -> str:
    import shtab

    functions = {"preamble": {"bash": BASH_FUNCTIONS}}
    for action in _actions(parser):
        if action.type is output_file:
            action.complete = shtab.FILE  # type: ignore[attr-defined]
        elif action.type is ssh_destination:
            action.complete = {"bash": "_nfstune_hosts", **functions}  # type: ignore[attr-defined]
        elif action.dest == "recipe":
            action.complete = {"bash": "_nfstune_recipe_ids", **functions}  # type: ignore[attr-defined]
    return str(shtab.complete(parser, shell=shell))


def _actions(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    found = []
    for action in parser._actions:
        found.append(action)
        if isinstance(action, argparse._SubParsersAction):
            for child in dict.fromkeys(action.choices.values()):
                found += _actions(child)
    return found
