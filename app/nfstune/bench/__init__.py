"""Workloads, samplers and statistics."""
