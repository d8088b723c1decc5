"""A TRL `GRPOTrainer` reward function scored by the verifier.

    from trl import GRPOTrainer
    import hacrl

    trainer = GRPOTrainer(
        model=..., train_dataset=dataset,  # columns: "prompt", "answer" (and/or "task_id")
        reward_funcs=[hacrl.trl.reward("http://127.0.0.1:8080", label_column="answer")],
    )

TRL calls a reward function as `f(prompts=..., completions=..., **columns)`, where every other
dataset column arrives as a list aligned with `completions` (plus `trainer_state` and
`completion_ids` in recent versions). This module does not import TRL.
"""

from __future__ import annotations

from typing import Any, Callable, List, Optional, Sequence, Union

from .client import Client, jsonable

RewardFunc = Callable[..., List[float]]


def _text(x: Any) -> str:
    """A completion or prompt as text: plain strings stay, conversational ones (lists of
    `{"role", "content"}` messages) become their last message's content."""
    if isinstance(x, str):
        return x
    if isinstance(x, list) and x and isinstance(x[-1], dict):
        return str(x[-1].get("content", ""))
    if isinstance(x, dict):
        return str(x.get("content", ""))
    return str(x)


def reward(
    url: Union[str, Client, None] = None,
    *,
    label_column: str = "answer",
    task_id_column: str = "task_id",
    record_as: Optional[str] = None,
    run: str = "trl",
    name: str = "hacrl",
) -> RewardFunc:
    """Returns a reward function for `GRPOTrainer(reward_funcs=[...])`.

    Each completion is graded against its row's `task_id_column` (a task of the pool: the
    service holds the hidden reference) when that column exists, else against `label_column`
    (a math answer, a code reference object, or a JSON text of one), through `/v1/reward`.

    With `record_as="agent-name"` (rows must carry task ids), every completion is also stored in
    the pool as a rollout of that agent (registered on first use) in run `run`, at the trainer's
    global step, through `/v1/rollouts`; the rewards then come from the stored verdicts.
    `name` is the function's `__name__`, which TRL uses to label the reward in its logs.
    """
    client = url if isinstance(url, Client) else Client(url)
    agent_id: Optional[str] = None

    def score(prompts: Sequence[Any], completions: Sequence[Any], **columns: Any) -> List[float]:
        nonlocal agent_id
        responses = [_text(c) for c in completions]
        task_ids = columns.get(task_id_column)
        if record_as is not None:
            if task_ids is None:
                raise ValueError(
                    f"record_as needs a '{task_id_column}' column of pool task ids in the dataset"
                )
            if agent_id is None:
                agent_id = client.create_agent(record_as)["id"]
            state = columns.get("trainer_state")
            step = int(getattr(state, "global_step", 0) or 0)
            result = client.submit_rollouts(
                [
                    {
                        "task_id": str(t),
                        "agent_id": agent_id,
                        "run": run,
                        "step": step,
                        "response": r,
                    }
                    for t, r in zip(task_ids, responses)
                ]
            )
            return [float(x["reward"]) for x in result["results"]]
        labels = task_ids if task_ids is not None else columns.get(label_column)
        if labels is None:
            raise ValueError(
                f"the dataset has neither a '{task_id_column}' nor a '{label_column}' column "
                f"(columns: {sorted(columns)})"
            )
        # Only the completion is graded: the prompt holds no answer worth matching.
        return [float(x) for x in client.reward(responses, [jsonable(v) for v in labels])["rewards"]]

    score.__name__ = name
    return score


__all__ = ["reward"]
