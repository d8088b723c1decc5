"""The service and `hacrl.openrlhf` inside OpenRLHF 0.11.2's own single-turn executor
(`openrlhf.utils.agent.SingleTurnAgentExecutor`, what `--reward.remote_url` configures): it
tokenizes the prompt, takes the engine's output, decodes the query with special tokens kept and
posts it to the URL (or calls the file's `reward_func`). The vLLM engine is a stand-in that
returns fixed token ids; everything from there to the reward is OpenRLHF's."""

from __future__ import annotations

import asyncio
import importlib.metadata
from types import SimpleNamespace
from typing import Any, Dict, List

from openrlhf.datasets.prompts_dataset import preprocess_data
from openrlhf.utils.agent import SingleTurnAgentExecutor

import hacrl.openrlhf

PROMPT = "<|im_start|>user\nWhat is 2 + 16?<|im_end|>\n<|im_start|>assistant\n"


def test_the_pinned_version_is_installed():
    assert importlib.metadata.version("openrlhf") == "0.11.2"


class Engine:
    """Stands for OpenRLHF's vLLM engine: answers `text`, ended by the end-of-turn token."""

    def __init__(self, tokenizer, text: str):
        self.ids = tokenizer(text, add_special_tokens=False)["input_ids"] + [tokenizer.eos_token_id]

    async def generate(self, prompt_token_ids, sampling_params, multi_modal_data=None):
        out = SimpleNamespace(token_ids=self.ids, finish_reason="stop", logprobs=None)
        return SimpleNamespace(outputs=[out])


def execute(remote: str, tokenizer, answer: str, label: Any) -> Dict[str, Any]:
    executor = SingleTurnAgentExecutor(remote)
    params = SimpleNamespace(max_tokens=64, logprobs=None)
    return asyncio.run(
        executor.execute(PROMPT, label, params, 512, tokenizer, Engine(tokenizer, answer))
    )


def test_the_label_key_reads_the_dataset_column():
    # --data.label_key answer: OpenRLHF's dataset code hands the column's value over as is.
    prompt, label = preprocess_data({"q": "2 + 16?", "answer": "18"}, None, "q", "answer")
    assert (prompt, label) == ("2 + 16?", "18")


def test_remote_url_grades_queries_ending_in_special_tokens(token_url, tokenizer):
    url = token_url
    out = execute(f"{url}/v1/reward", tokenizer, "#### 18", "18")
    assert out["reward"] == [1.0]
    assert out["extra_logs"]["correct"] == [1.0]
    assert execute(f"{url}/v1/reward", tokenizer, "#### 17", "18")["reward"] == [0.0]


def test_remote_url_grades_verl_code_ground_truth(token_url, tokenizer):
    url = token_url
    label = {"inputs": ["1 2\n"], "outputs": ["3\n"]}
    program = "```python\na, b = map(int, input().split())\nprint(a + b)\n```"
    assert execute(f"{url}/v1/reward", tokenizer, program, label)["reward"] == [1.0]


def test_the_reward_func_file_reports_failures_in_extra_logs(url, tokenizer, monkeypatch):
    monkeypatch.setenv("HACRL_URL", url)
    monkeypatch.setattr(hacrl.openrlhf, "_grader", None)
    path = hacrl.openrlhf.__file__
    good = execute(path, tokenizer, "#### 18", "18")
    assert good["reward"] == [1.0] and good["extra_logs"]["reward_failed"] == [0.0]
    # A label the service refuses: 0.0 and counted, where the URL leaves reward None.
    bad = execute(path, tokenizer, "#### 18", '{"foo": 1}')
    assert bad["reward"] == [0.0] and bad["extra_logs"]["reward_failed"] == [1.0]
    assert execute(f"{url}/v1/reward", tokenizer, "#### 18", '{"foo": 1}')["reward"] is None
