"""Reusable widgets: the live plot of a running measurement and the chart of a finished one."""
