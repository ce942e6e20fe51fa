"""One results model: a stored session as figures and verdicts (per recipe, workload and configuration),
and two sessions side by side. Pure: the CLI text, the HTML report, History and the Results page read it."""
