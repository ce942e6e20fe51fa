"""The rounds of a guided hand change (recipes/hand_plan.py): its warm-ups, then block after block, the admin asked
at each switch to make the change on the NAS or to put it back, and to Continue or Stop; after each block the
comparisons are judged on the blocks so far (statistics/blocks.py). At the end the admin is asked how the NAS is
left. Every block and every question, with when it was asked and answered, is stored (hand_steps): what the report
says was changed by hand and when."""

from __future__ import annotations

import time

from nfstune.bench.workloads import WorkloadSizes
from nfstune.errors import Cancelled
from nfstune.recipes.hand_plan import HandChange
from nfstune.recipes.plan import RecipePlan, Visit
from nfstune.session.admin import AS_IT_WAS, CONTINUE, WITH_CHANGE, Admin, Event, HandPrompt
from nfstune.session.progress import SessionProgress
from nfstune.session.recipe_rounds import recipe_event, verdicts_event
from nfstune.session.rounds import Eta, RecipeFigures
from nfstune.session.visit import VisitExecutor
from nfstune.store import Results

# what the Run page says instead of a time left while the admin has the turn (the admin's time is not measured)
WAITING_FOR_CHANGE = "waiting for your change"
WAITING_FOR_ANSWER = "waiting for your answer"


class HandRounds:
    def __init__(
        self, visits: VisitExecutor, results: Results, admin: Admin, eta: Eta, progress: SessionProgress
    ) -> None:
        self.visits, self.results, self.admin, self.eta, self.progress = visits, results, admin, eta, progress

    def run(self, session_id: int, item: RecipePlan, sizes: WorkloadSizes) -> None:
        hand = item.hand
        assert hand is not None, "a recipe with a hand change"
        recipe = item.recipe.id
        runs: dict[tuple[str, str], int] = {}
        figures = RecipeFigures(item)
        status, changed, measured = "failed", False, 0  # changed: the NAS has the change now, by the admin's word
        self.eta.recipe_started(self.progress.clock())
        self.admin.emit(recipe_event(item))
        try:
            for visit in (v for v in item.visits if v.warmup):
                self._visit(session_id, item, visit, runs, figures, sizes)
            for block, label in enumerate(hand.labels()):
                prompt = None
                asked_at = answered_at = None
                if block:
                    text = hand.prompt(block)
                    asked_at = time.time()
                    answer = self._ask(HandPrompt("switch", recipe, text, block, hand.blocks, changed, hand.place))
                    answered_at, prompt = time.time(), text
                    self._store(session_id, recipe, "block", block, label, prompt, asked_at, answered_at, answer)
                    if answer != CONTINUE:
                        self.admin.log(f"{recipe}: stopped by you after block {block} of {hand.blocks}")
                        break
                    changed = label == hand.changed
                    self.admin.log(f"{recipe}: block {block + 1} of {hand.blocks}, {label} (changed by you)")
                else:
                    self._store(session_id, recipe, "block", 0, label, None, None, None, None)
                    self.admin.log(f"{recipe}: block 1 of {hand.blocks}, {label} (the NAS as it is)")
                for visit in (v for v in item.visits if v.round in hand.rounds_of(block)):
                    self._visit(session_id, item, visit, runs, figures, sizes)
                measured = hand.rounds_of(block)[-1]
                self._judge(session_id, item, figures, block, measured)
            self.eta.recipe_done(item, measured)
            status = "completed"
        except Cancelled:
            status = "cancelled"
            raise
        finally:
            for run_id in runs.values():
                self.results.end_run(run_id, status)
            if status != "failed":
                self._leave(session_id, hand, recipe, changed)

    def _visit(
        self,
        session_id: int,
        item: RecipePlan,
        visit: Visit,
        runs: dict[tuple[str, str], int],
        figures: RecipeFigures,
        sizes: WorkloadSizes,
    ) -> None:
        self.admin.check_cancel()
        start = self.progress.clock()
        self.visits.run(session_id, item, visit, runs, figures, sizes)
        self.eta.visit_done(visit, self.progress.clock() - start)  # the session's clock, as the bar's

    def _judge(self, session_id: int, item: RecipePlan, figures: RecipeFigures, block: int, measured: int) -> None:
        """The comparisons on the blocks so far, shown as a round's are (the Run page's verdict rows)."""
        stored = self.results.stored_session(session_id)
        figures.runs = {(r.workload, r.config_label): r for r in stored.runs if r.recipe == item.recipe.id}
        judged = figures.judge()
        hand = item.hand
        assert hand is not None
        last = block == hand.blocks - 1
        why = f"every block measured ({hand.blocks})" if last else None
        shown = verdicts_event(item, measured, judged, why)
        # the Run page says blocks, not rounds: "after block 3 of 5, by hand"
        message = f"{item.recipe.id} after block {block + 1} of {hand.blocks} (by hand): {why or 'another block'}"
        self.admin.emit(Event("verdicts", message, {**shown.data, "block": block + 1, "blocks": hand.blocks}))

    def _ask(self, prompt: HandPrompt) -> str:
        if self.admin.ask is None:  # the plan runs no hand change without someone to ask
            raise Cancelled("no one to ask to make the change by hand: nothing more was measured")
        data = {"recipe": prompt.recipe, "kind": prompt.kind, "block": prompt.block}
        self.admin.emit(Event("hand", prompt.text, data))
        with self.progress.admin_turn(WAITING_FOR_CHANGE):
            answer = self.admin.ask(prompt)
        self.admin.check_cancel()
        return answer

    def _leave(self, session_id: int, hand: HandChange, recipe: str, changed: bool) -> None:
        """How the admin leaves the NAS: asked once at the end (when nobody can be asked: as it is now)."""
        text = hand.leave_note(changed)
        asked_at = time.time()
        answer = WITH_CHANGE if changed else AS_IT_WAS
        if self.admin.ask is not None and not self.admin.cancel.is_set():
            with self.progress.admin_turn(WAITING_FOR_ANSWER):
                answer = self.admin.ask(
                    HandPrompt("leave", recipe, text, hand.blocks, hand.blocks, changed, hand.place)
                )
        left = hand.changed if answer == WITH_CHANGE else hand.as_is
        self._store(session_id, recipe, "leave", None, left, text, asked_at, time.time(), answer)
        todo = ""
        if (answer == WITH_CHANGE) != changed:
            todo = f": {hand.change}" if answer == WITH_CHANGE else f": {hand.back}"
        self.admin.log(f"{recipe}: the NAS is left {'with the change' if answer == WITH_CHANGE else 'as it was'}{todo}")

    def _store(
        self,
        session_id: int,
        recipe: str,
        kind: str,
        block: int | None,
        label: str,
        prompt: str | None,
        asked_at: float | None,
        answered_at: float | None,
        answer: str | None,
    ) -> None:
        self.results.add_hand_step(
            session_id,
            recipe=recipe,
            kind=kind,
            block=block,
            config_label=label,
            prompt=prompt,
            asked_at=asked_at,
            answered_at=answered_at,
            answer=answer,
        )
