"""What a dry run's times rest on: these hosts' own pace when the store holds earlier runs on them (a first-look on
that NAS, say), else the plan's own times said as what they are (recipes.plan_text.plan_pace). The hosts are not
contacted: their keys in the store come from the arguments and the SSH config, as a run would log in."""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Mapping, Sequence

from nfstune.errors import NfstuneError
from nfstune.recipes.estimate import PastRun, estimate
from nfstune.recipes.model import Recipe
from nfstune.recipes.plan_text import Pace, measured_pace, plan_pace
from nfstune.remote.target import resolve, split_spec
from nfstune.store import Results, default_path, open_store


def _key(spec: str) -> str:
    target = resolve(spec)
    return f"{target.user}@{target.hostname}:{target.port}"  # changes.transaction.host_key of the login it makes


def host_keys(args: argparse.Namespace) -> tuple[str, str] | None:
    """The server's and the first client's keys in the store, None when the arguments do not name both."""
    if args.lab:
        from nfstune.lab import LabConfig

        lab = LabConfig().as_running()
        return f"root@127.0.0.1:{lab.port('nas')}", f"root@127.0.0.1:{lab.port('client')}"
    clients = getattr(args, "client", None) or []
    if not clients:
        return None
    if getattr(args, "no_server_login", False):  # session.workflow.Pair.server_key without a login
        server = f"nfs@{args.server_address or split_spec(args.server)[0]}"
    else:
        server = _key(args.server)
    return server, _key(clients[0])


def dry_run_pace(args: argparse.Namespace, chosen: Sequence[Recipe], known: Mapping[str, Recipe]) -> Pace:
    """These hosts' pace (the median of the chosen recipes' own estimates from their earlier runs), or the plan's."""
    default = plan_pace(args.scale, lab=args.lab)
    path = default_path()
    if not path.exists():
        return default
    try:
        keys = host_keys(args)
        if keys is None:
            return default
        conn = open_store(path, reading=True)
    except NfstuneError:  # an alias the SSH config cannot read, a store it cannot open: said where a run needs it
        return default
    try:
        past = [PastRun(*row) for row in Results(conn).past_runs(*keys, args.scale)]
    finally:
        conn.close()
    if not any(p.same_hosts for p in past):
        return default
    paces = [found.pace for recipe in chosen if (found := estimate(recipe, args.scale, past, known)).pace != 1.0]
    return measured_pace(statistics.median(paces)) if paces else default
