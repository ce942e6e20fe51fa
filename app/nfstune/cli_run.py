"""`nfstune run`: the measurement engine from a terminal, with progress, a results table per recipe, and the
comparison of each configuration with the recipe's baseline."""

from __future__ import annotations

import argparse
import getpass
import sys
import threading
import time
from contextlib import ExitStack
from typing import Any

from nfstune.advice import Measured, recommend
from nfstune.bench.sizing import plan_sizes
from nfstune.bench.stats import compare, summarize
from nfstune.bench.workloads import WorkloadSizes
from nfstune.engine import Engine, Event, plan, stored_value
from nfstune.errors import ConfigError
from nfstune.nfs.change import host_key
from nfstune.recipes.loader import default_recipe_dirs, load_recipes
from nfstune.recipes.model import WORKLOADS, Recipe, recipe_facts
from nfstune.remote import Host, open_host
from nfstune.remote.probe import probe
from nfstune.remote.probe_parse import HostFacts
from nfstune.store import Journal, Results, open_store

MIB = 1 << 20
# per scale: a few seconds a repeat in the emulated lab ("small"), a real NAS's RAM-beating sizes ("normal")
SIZES = {
    "small": WorkloadSizes(seq_file_bytes=8 * MIB, small_file_count=30, small_file_bytes=4096, sync_4k_count=40),
    "normal": WorkloadSizes(
        seq_file_bytes=1024 * MIB, small_file_count=2000, small_file_bytes=16384, sync_4k_count=2000
    ),
}


def history(printer: Any) -> int:
    rows = Results(open_store()).sessions()
    if not rows:
        print("no sessions yet: `nfstune run --lab --recipe quick-check --scale small`")
    for r in rows:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(r.started_at))
        print(
            f"{r.id:4}  {when}  {r.status:9}  {r.server or '-'} -> {r.client or '-'}  {r.share}  {','.join(r.recipes)}"
        )
    return 0


def report(args: argparse.Namespace) -> int:
    from nfstune.report import write_html

    results = Results(open_store())
    try:
        data = results.session(args.session)
    except KeyError:
        raise ConfigError(f"there is no session {args.session}: see `nfstune history`") from None
    if not (args.html or args.csv or args.json):
        print(report_text(results, args.session))
        return 0
    if args.csv:
        results.export_csv(args.session, args.csv)
    if args.json:
        results.export_json(args.session, args.json)
    if args.html:
        text = report_text(results, args.session)
        write_html(results, args.session, args.html, text if data["runs"] else "")
    for out in (args.html, args.csv, args.json):
        if out:
            print(f"wrote {out}")
    return 0


def _prompt_host_key(label: str, key_type: str, fingerprint: str) -> bool:
    if not sys.stdin.isatty():
        return False
    answer = input(f"{label} offers the unknown host key {key_type} {fingerprint}. Trust it? [y/N] ")
    return answer.strip().lower() in ("y", "yes")


def _ask_secret(label: str, what: str) -> str | None:
    return getpass.getpass(f"{label}: {what}: ") if sys.stdin.isatty() else None


def _hosts(args: argparse.Namespace, stack: ExitStack) -> tuple[Host, Host, str, str]:
    if args.lab:
        from nfstune.lab import LabConfig, host

        cfg = LabConfig().as_running()
        return stack.enter_context(host(cfg, "nas")), stack.enter_context(host(cfg, "client")), "nas", "/export"
    if not args.client or not args.share:
        raise ConfigError("--server needs --client and --share too")
    server = open_host(args.server, on_unknown_host_key=_prompt_host_key, ask_secret=_ask_secret)
    client = open_host(args.client, on_unknown_host_key=_prompt_host_key, ask_secret=_ask_secret)
    stack.enter_context(server)
    stack.enter_context(client)
    return server, client, args.server_address or server.target.hostname, args.share


def _sizes(scale: str, server: HostFacts, client: HostFacts) -> WorkloadSizes:
    """Sizes from the hosts' RAM and the share's free space (never more than half of it)."""
    fs = server.filesystem
    if client.mem_total_bytes and server.mem_total_bytes and fs is not None and fs.free_bytes is not None:
        return plan_sizes(client.mem_total_bytes, server.mem_total_bytes, fs.free_bytes, scale).sizes
    return SIZES[scale]


def _pick(recipes: list[Recipe], ids: list[str]) -> list[Recipe]:
    by_id = {r.id: r for r in recipes}
    unknown = [i for i in ids if i not in by_id]
    if unknown:
        raise ConfigError(f"unknown recipe {', '.join(unknown)}: choose from {', '.join(sorted(by_id))}")
    return [by_id[i] for i in ids]


def run(args: argparse.Namespace, printer: Any) -> int:
    recipes, errors = load_recipes(default_recipe_dirs())
    for error in errors:
        printer(f"warning: {error}")
    chosen = _pick(recipes, args.recipe)
    conn = open_store()
    results, journal = Results(conn), Journal(conn)
    with ExitStack() as stack:
        server, client, address, share = _hosts(args, stack)
        printer(f"probing {server.label} and {client.label}")
        server_facts = probe(server, path=share)
        client_facts = probe(client, peer=address)
        planned, skipped = plan(chosen, recipe_facts(server_facts, client_facts), args.scale)
        for reason in skipped:
            printer(reason)
        sid = results.start_session(
            server_host=results.upsert_host(host_key(server), server.label, server_facts.to_json()),
            client_host=results.upsert_host(host_key(client), client.label, client_facts.to_json()),
            share=share, scale=args.scale, recipes=args.recipe,
            server_facts=server_facts.to_json(), client_facts=client_facts.to_json(),
        )  # fmt: skip

        def on_event(event: Event) -> None:
            if event.kind == "progress":
                eta = event.data.get("eta_s")
                frac = float(event.data.get("fraction") or 0)  # type: ignore[arg-type]
                printer(f"{frac:4.0%} {event.message}" + (f" (about {eta / 60:.0f} min left)" if eta else ""))  # type: ignore[operator]
            elif event.kind in ("repeat", "log", "warning", "config"):
                printer(event.message)

        engine = Engine(
            server=server, client=client, server_address=address, share=share,
            sizes=_sizes(args.scale, server_facts, client_facts),
            results=results, journal=journal, emit=on_event, fio_available=client_facts.fio_version is not None,
            cancel=threading.Event(),
        )  # fmt: skip
        engine.run(sid, planned)
        current = _current_export(server, share)
    text = report_text(results, sid) + "\n" + advice_text(results, sid, share=share, server=address, current=current)
    print(text)
    html = getattr(args, "html", None)
    if html is not None:
        from nfstune.report import write_html

        write_html(results, sid, html, text)
        print(f"\nreport: {html}")
    return 0


def _current_export(server: Host, share: str) -> tuple[str, tuple[str, ...]]:
    """The client spec and options of the share as the admin exported it (after our changes were undone)."""
    from nfstune.nfs.exports import parse

    text = (server.read_file("/etc/exports", sudo=True) or b"").decode()
    entry = parse(text).find(share)
    if entry is None or not entry.clients:
        return "*", ()
    return entry.clients[0].name, entry.clients[0].explicit_options


def measured_from(results: Results, session_id: int) -> Measured:
    data = results.session(session_id)
    values: dict[tuple[str, str, str], list[float]] = {}
    negotiated_rsize = None
    for run in data["runs"]:
        vals = [stored_value(run["workload"], r) for r in run["repeats"] if not r["warmup"]]
        values[(run["recipe"], run["config_label"], run["workload"])] = vals
        for opt in (run["negotiated_options"] or "").split(","):
            if opt.startswith("rsize=") and "rsize" not in (run["requested_options"] or ""):
                negotiated_rsize = int(opt[6:])

    def comparisons(a_label: str, b_label: str) -> dict[str, Any]:
        found = {}
        for (recipe, label, workload), a in values.items():
            b = values.get((recipe, b_label, workload))
            if label == a_label and b and len(a) > 1 and len(b) > 1:
                w = WORKLOADS[workload]
                names = (a_label, b_label)
                found[workload] = compare(a, b, higher_is_better=w.higher_is_better, names=names, unit=w.unit)
        return found

    import json

    facts = json.loads(data["server_facts"] or "{}")
    async_vs_sync = comparisons("sync", "async") or comparisons("baseline", "async")
    no_wdelay = comparisons("wdelay", "no_wdelay") or comparisons("baseline", "no_wdelay")
    return Measured(
        async_vs_sync=async_vs_sync, no_wdelay=no_wdelay, negotiated_rsize=negotiated_rsize,
        server_max_block_size=facts.get("nfsd_max_block_size"),
    )  # fmt: skip


def advice_text(
    results: Results, session_id: int, *, share: str, server: str, current: tuple[str, tuple[str, ...]]
) -> str:
    rec = recommend(
        share=share, client_spec=current[0], server=server, mount_point="/mnt/nfs",
        current_options=current[1], measured=measured_from(results, session_id),
    )  # fmt: skip
    lines = ["", "Recommended /etc/exports line (on the server):", f"  {rec.exports_line}"]
    lines += [f"    {r.option}: {r.why}" for r in rec.exports_reasons]
    lines += ["Recommended /etc/fstab line (on the client; choose your own mount point):", f"  {rec.fstab_line}"]
    lines += [f"    {r.option}: {r.why}" for r in rec.fstab_reasons]
    lines += [f"  note: {n}" for n in rec.notes]
    alt = rec.async_alternative
    if alt is not None:
        lines += [
            "\n!! Opt-in alternative, NOT recommended by default: async", f"  {alt.line}", f"  measured: {alt.gain}",
            f"  exports(5): {alt.warning}", f"  what it means: {alt.risk}", f"  only if: {alt.conditions}",
        ]  # fmt: skip
    return "\n".join(lines)


def report_text(results: Results, session_id: int) -> str:
    """The results of a session as text: per recipe and workload, each configuration with its median, spread,
    n, and what it means against the recipe's baseline."""
    data = results.session(session_id)
    lines = [f"\nsession {session_id}: {data['status']}"]
    by_key: dict[tuple[str, str], dict[str, list[float]]] = {}
    options: dict[tuple[str, str], tuple[str, str]] = {}
    for run in data["runs"]:
        vals = [stored_value(run["workload"], r) for r in run["repeats"] if not r["warmup"]]
        by_key.setdefault((run["recipe"], run["workload"]), {})[run["config_label"]] = vals
        options[(run["recipe"], run["config_label"])] = (
            run["requested_options"] or "",
            run["negotiated_options"] or "",
        )
    for (recipe, workload), configs in by_key.items():
        w = WORKLOADS[workload]
        lines.append(f"\n{recipe} / {workload} ({w.unit}, {'higher' if w.higher_is_better else 'lower'} is better)")
        baseline_label = next(iter(configs))
        for label, vals in configs.items():
            if not vals:
                lines.append(f"  {label:14} no completed repeats")
                continue
            s = summarize(vals)
            req, neg = options[(recipe, label)]
            line = f"  {label:14} median {s.median:8.3g}  min {s.min:8.3g}  max {s.max:8.3g}  n={s.n}"
            line += f"  CV {s.cv_percent:4.1f} %"
            if label != baseline_label and configs[baseline_label]:
                c = compare(configs[baseline_label], vals, higher_is_better=w.higher_is_better,
                            names=(baseline_label, label), unit=w.unit)  # fmt: skip
                line += f"\n  {'':14} {c.text}"
            lines.append(line)
            negotiated = {o.split("=")[0]: o for o in neg.split(",") if o.split("=")[0] in ("vers", "rsize", "wsize")}
            if negotiated:
                lines.append(f"  {'':14} requested {req or '(defaults)'}; negotiated {','.join(negotiated.values())}")
    return "\n".join(lines)
