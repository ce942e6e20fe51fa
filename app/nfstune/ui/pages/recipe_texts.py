"""The Recipes page's words for a recipe: its line in the list (time, host, risk) and what each configuration
sets on the client and on the server, for the table of configurations. Pure text; the page draws it."""

from __future__ import annotations

from nfstune.recipes.estimate import Estimate
from nfstune.recipes.info import describe, format_duration, size_text
from nfstune.recipes.model import Config, Recipe


def runs_async(recipe: Recipe) -> bool:
    """Whether a configuration of the recipe exports async: the one risk to the data of the export's clients."""
    return any("async" in config.export.set for config in recipe.configs)


def list_text(recipe: Recipe, likely: Estimate, needs: str | None = None) -> tuple[str, str]:
    """The list's two lines for a recipe ("Quick check" / "about 6 min · changes the server · ⚠ async"), and
    the same in words for a screen reader. `needs`: what it needs before it can run here ("needs 2 clients"), said
    instead of a time it will not take."""
    where = "changes the server" if describe(recipe).host == "server" else "changes the client only"
    parts = [needs or format_duration(likely.seconds), where]
    spoken = [recipe.title, *parts]
    if runs_async(recipe):
        parts.append("⚠ async")
        spoken.append("warning: runs the export async")
    return f"{recipe.title}\n{' · '.join(parts)}", ", ".join(spoken)


def mount_text(config: Config) -> str:
    parts = [config.mount.render()] if config.mount.options else []
    if config.read_ahead_kb is not None:
        parts.append(f"readahead {size_text(config.read_ahead_kb * 1024)}")
    return " \u00b7 ".join(parts) or "(defaults)"


def server_text(config: Config) -> str:
    """What a configuration changes on the server: the export's options, or the scratch filesystem exported in its
    place; nfsd's threads and listeners."""
    parts = [",".join(config.export.set)] if config.export.set else []
    parts += [f"remove {name}" for name in config.export.unset]
    if config.filesystem is not None:
        parts = [f"scratch {config.filesystem} exported alone ({','.join(config.export.set) or 'sync'})"]
    if config.nfsd_threads is not None:
        parts.append(f"{config.nfsd_threads} nfsd threads")
    if config.rdma_port is not None:
        parts.append(f"nfsd listens for RDMA (port {config.rdma_port})")
    return " \u00b7 ".join(parts) or "unchanged"
