"""The statistics of a session: paired verdicts with their family correction (verdict.py), the boundary that holds
the error at whatever look a session stops (sequential.py), summaries and the t distribution (stats.py), and the
interval of a median (median_interval.py). Pure: numbers in, numbers out."""
