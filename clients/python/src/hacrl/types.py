"""Shapes of the service's JSON, as typed dicts (the service's /openapi.json is the reference).

`total=False` marks what the service may leave out or the caller may omit; these are plain
dicts at run time, so the client returns exactly what the service sent.
"""

from __future__ import annotations

from typing import Any, Dict, List, Literal, Optional, TypedDict


class Agent(TypedDict):
    id: str
    name: str
    family: Optional[str]
    size_params: Optional[int]
    tokenizer: Optional[str]
    metadata: Any
    created_at: str


class NewTask(TypedDict, total=False):
    dataset: str  # required
    external_id: str  # required
    kind: str  # "math" or "code"; required
    prompt: str  # required
    reference: Any  # hidden: {"answer": …} or a code reference; required
    metadata: Any


class Task(TypedDict):
    id: str
    dataset: str
    external_id: str
    kind: str
    prompt: str
    metadata: Any
    created_at: str


class TaskStored(TypedDict):
    id: str
    dataset: str
    external_id: str
    status: str  # "created" or "unchanged"


class TasksStored(TypedDict):
    created: int
    unchanged: int
    tasks: List[TaskStored]


class NewRollout(TypedDict, total=False):
    id: str  # client-chosen UUID; the client fills one in when absent
    task_id: str  # required
    agent_id: str  # required
    run: str
    step: int
    policy_version: int
    response: str  # required
    token_count: int
    logprob_mean: float
    logprob_sum: float
    ends_turn: bool  # generation stopped at an end-of-turn token; stored as metadata.ends_turn
    metadata: Any


class RolloutResult(TypedDict):
    id: str
    task_id: str
    agent_id: str
    reward: float
    correct: bool
    status: str  # "scored" or "judge_error"
    verdict: Dict[str, Any]
    duplicate: bool


class SubmitResult(TypedDict):
    created: int
    duplicates: int
    results: List[RolloutResult]


class Page(TypedDict, total=False):
    items: List[Dict[str, Any]]
    next: int  # absent on the last page


class GroupMember(TypedDict):
    id: str
    agent_id: str
    agent: str
    response: str
    reward: float
    correct: bool
    token_count: Optional[int]
    logprob_mean: Optional[float]
    logprob_sum: Optional[float]
    policy_version: int
    metadata: Any


class Group(TypedDict):
    task_id: str
    prompt: str
    rollouts: List[GroupMember]


class Groups(TypedDict):
    run: str
    step: int
    groups: List[Group]


class AgentSubmission(TypedDict):
    agent_id: str
    agent: str
    rollouts: int  # stored in the step, scored or not


class StepSubmissions(TypedDict):
    run: str
    step: int
    agents: List[AgentSubmission]


class StepCapability(TypedDict):
    step: int
    rollouts: int
    accuracy: float
    capability: float


class Capability(TypedDict):
    agent_id: str
    agent: str
    run: str
    window: int
    capability: Optional[float]
    steps: List[StepCapability]


class MathVerdict(TypedDict):
    correct: bool
    # "undecided": the checker could not compare the answers (scored 0); a caller with a
    # model-based judge may send these there.
    outcome: Literal["correct", "incorrect", "undecided"]
    reward: float
    reference_answer: Optional[str]
    response_answer: Optional[str]
    reference_source: Optional[str]
    response_source: Optional[str]
    reference_normalized: Optional[str]
    response_normalized: Optional[str]
    rule: str
    note: Optional[str]


class CaseVerdict(TypedDict, total=False):
    index: int
    status: Literal[
        "passed", "wrong_answer", "runtime_error", "timeout", "memory_limit", "output_limit",
        "compile_error", "not_run", "checker_error", "internal_error",
    ]
    got: str  # what the program printed (truncated)
    error: str  # the end of stderr, or the exception raised
    # An interactive case that timed out while this side was blocked waiting for the other.
    waiting: Literal["program", "interactor"]


class CodeVerdict(TypedDict):
    correct: bool
    reward: float
    status: str  # passed, failed, compile_error, checker_error, internal_error, …
    message: str
    language: str
    extraction: str  # how the program was taken from the response
    runtime: Optional[str]
    passed: int
    total: int
    cases: List[CaseVerdict]
    elapsed_seconds: float


class CommandRunResult(TypedDict, total=False):
    status: str  # Finished, Error, TimeLimitExceeded, … (SandboxFusion's names)
    execution_time: Optional[float]
    return_code: Optional[int]
    stdout: Optional[str]
    stderr: Optional[str]


class RunCodeResult(TypedDict, total=False):
    """SandboxFusion's `/run_code` answer."""

    status: Literal["Success", "Failed", "SandboxError"]
    message: str
    compile_result: Optional[CommandRunResult]
    run_result: Optional[CommandRunResult]
    executor_pod_name: Optional[str]
    files: Dict[str, str]
    sandbox_status: Optional[str]
    runtime: Optional[str]


class RewardResponse(TypedDict):
    rewards: List[float]
    scores: List[float]
    extra_logs: Dict[str, List[float]]
