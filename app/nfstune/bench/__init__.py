"""Workloads, their tools and parsers, samplers: what is measured and how (the statistics are in nfstune.statistics)."""
