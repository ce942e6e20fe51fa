"""A measurement session: preflight, the engine that walks a plan's visits and rounds, the stop rule,
the ceilings measured first, and the script that runs a session for the CLI and the desktop alike. No Qt."""
