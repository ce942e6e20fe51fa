"""What History asks of the store, each on a worker thread with a connection of its own (SQLite connections stay on
the thread that made them): the list of sessions, a session's outcome, two sessions compared, an export. The GUI
thread only shows what these return: it neither reads the store nor judges a session."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from nfstune.advice.outcome import SessionOutcome, session_outcome
from nfstune.errors import NfstuneError
from nfstune.recipes.model import Recipe
from nfstune.results.check_text import CheckShown, check_shown
from nfstune.results.compare import ComparisonRow, compare_stored
from nfstune.results.watch_read import PairWatch, open_regressions
from nfstune.store import Journal, Results, SessionRow, open_store


@contextmanager
def _opened(store_path: Path) -> Iterator[Results]:
    conn = open_store(store_path)
    try:
        yield Results(conn)
    finally:
        conn.close()


def read_sessions(store_path: Path) -> list[SessionRow]:
    with _opened(store_path) as results:
        return results.sessions()


def read_regressions(store_path: Path, recipes: Mapping[str, Recipe] | None) -> list[PairWatch]:
    """Every pair with a regression still open (what heads History), the pair used last first."""
    with _opened(store_path) as results:
        return open_regressions(results, recipes)


def read_applied(store_path: Path) -> set[int]:
    """The sessions whose recommendation an Apply still in force wrote: those History offers to check."""
    conn = open_store(store_path)
    try:
        return Journal(conn).applied_sessions()
    finally:
        conn.close()


def read_outcome(
    store_path: Path, session_id: int, recipes: Mapping[str, Recipe] | None
) -> tuple[SessionOutcome, CheckShown | None]:
    """`recipes` None: each comparison judged without its recipe (session_outcome's None would read them from
    disk), as History judged a session before its outcome was computed once. A check session comes with its
    check as History draws it (its picture's rows read here, not on the GUI thread)."""
    with _opened(store_path) as results:
        outcome = session_outcome(results, session_id, {} if recipes is None else recipes)
    checked = outcome.session.checks
    return outcome, None if checked is None else check_shown(checked, outcome.session.check_outcome)


def read_comparison(store_path: Path, a: int, b: int, recipes: Mapping[str, Recipe] | None) -> list[ComparisonRow]:
    with _opened(store_path) as results:
        return compare_stored(results, a, b, recipes)


def write_export(
    store_path: Path, kind: str, session_id: int, path: Path, recipes: Mapping[str, Recipe] | None
) -> None:
    """`kind`: html (the file `nfstune report N --html` writes), csv, or json (`nfstune report N --json`)."""
    from nfstune.recipes.loader import recipes_by_id
    from nfstune.report.html import write_html
    from nfstune.report.json_report import report_json

    with _opened(store_path) as results:
        try:
            if kind == "html":
                write_html(results, session_id, path, recipes)
            elif kind == "csv":
                results.export_csv(session_id, path)
            else:
                known = recipes if recipes is not None else recipes_by_id()
                path.write_text(report_json(results, session_id, known))
        except OSError as exc:  # said to the admin with the file; anything else is a bug (the crash dialog)
            raise NfstuneError(exc.strerror or str(exc)) from None
