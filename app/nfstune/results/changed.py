"""What a configuration changed against the one its verdict compares it with, read from what ran (the export's
options as stored, else those the configuration set; the mount options asked for), never from its label: the
advice finds async, no_wdelay or another NFS version by this. Pure."""

from __future__ import annotations

from dataclasses import dataclass

from nfstune.results.summary import ConfigResult, WorkloadResults


@dataclass(frozen=True)
class Changed:
    export: frozenset[str]  # export options in force here and not for the other
    mount: frozenset[str]  # mount options asked for here and not for the other ("vers=3", "proto=udp")
    vers: str | None  # the NFS version asked for, when it differs from the other's

    @property
    def words(self) -> list[str]:
        """Each option changed, as the advice's lists name them ("udp" for a UDP transport)."""
        mount = [o.split("=", 1)[1] if o.startswith("proto=") else o for o in sorted(self.mount)]
        return [*sorted(self.export), *mount]


def changed(config: ConfigResult, base: ConfigResult | None) -> Changed:
    if base is None:
        return Changed(frozenset(config.export_in_force), frozenset(_asked(config)), config.requested.get("vers"))
    export = frozenset(config.export_in_force) - frozenset(base.export_in_force)
    vers = config.requested.get("vers")
    return Changed(
        export, frozenset(_asked(config) - _asked(base)), vers if vers != base.requested.get("vers") else None
    )


def compared_with(group: WorkloadResults, config: ConfigResult) -> ConfigResult | None:
    """The configuration `config`'s verdict compares it with."""
    return group.config(config.against)


def _asked(config: ConfigResult) -> set[str]:
    return {o.render() for o in config.requested.options}
