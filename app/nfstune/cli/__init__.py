"""The `nfstune` command line: its arguments, `run`, `apply`, and the lab and history subcommands."""
