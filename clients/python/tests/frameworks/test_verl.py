"""`hacrl.verl` inside verl 0.9.1's own reward loop: its PPO config composed by Hydra with the
README's overrides, `load_reward_manager` (which loads `reward.custom_reward_function.*` and
picks the registered manager), and the manager's `run_single` on a `DataProto` as the reward
loop worker hands it one sample. Also verl's SandboxFusion route (`reward.sandbox_fusion.url`)
against the service's `/run_code`. No model, no Ray cluster: the reward path is verl's."""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any, List

import numpy as np
import pytest
import torch
import verl
import verl.trainer.config
from hydra import compose, initialize_config_dir
from verl import DataProto
from verl.trainer.ppo.reward import load_reward_manager

import hacrl.verl

HACRL_VERL = hacrl.verl.__file__


def test_the_pinned_version_is_installed():
    assert verl.__version__ == "0.9.1"


def config(*overrides: str) -> Any:
    with initialize_config_dir(os.path.dirname(verl.trainer.config.__file__), version_base=None):
        return compose(config_name="ppo_trainer", overrides=list(overrides))


def batch(tokenizer, responses: List[str], truths: List[Any], source: str = "openai/gsm8k"):
    """What the reward loop receives: prompt and response ids, their attention mask, and the
    dataset's non-tensor columns."""
    prompt = tokenizer("<|im_start|>user\nQ<|im_end|>\n", add_special_tokens=False)["input_ids"]
    out = [tokenizer(r + "<|im_end|>", add_special_tokens=False)["input_ids"] for r in responses]
    width = max(map(len, out))
    pad = tokenizer.pad_token_id
    resp = torch.tensor([ids + [pad] * (width - len(ids)) for ids in out])
    mask = torch.tensor([[1] * len(prompt) + [1] * len(ids) + [0] * (width - len(ids)) for ids in out])
    return DataProto.from_dict(
        tensors={"prompts": torch.tensor([prompt] * len(out)), "responses": resp,
                 "attention_mask": mask},
        non_tensors={
            "data_source": np.array([source] * len(out), dtype=object),
            "reward_model": np.array([{"ground_truth": t} for t in truths], dtype=object),
            "extra_info": np.array([{} for _ in out], dtype=object),
        },
    )


def scores(manager, data: DataProto) -> List[dict]:
    async def run():
        return await asyncio.gather(*(manager.run_single(data[i : i + 1]) for i in range(len(data))))

    return manager.loop.run_until_complete(run())


def test_the_reward_loop_calls_compute_score_by_its_reward_keys(url, monkeypatch, tokenizer):
    monkeypatch.setenv("HACRL_URL", url)
    cfg = config(f"reward.custom_reward_function.path={HACRL_VERL}",
                 "reward.custom_reward_function.name=compute_score",
                 "+reward.custom_reward_function.reward_kwargs.on_error=zero")
    manager = load_reward_manager(cfg, tokenizer)
    out = scores(manager, batch(tokenizer, ["#### 18", "\\boxed{41}"], ["18", "42"]))
    assert [o["reward_score"] for o in out] == [1.0, 0.0]
    assert out[0]["reward_extra_info"] == {"score": 1.0, "acc": 1.0, "judge_error": 0.0, "failed": 0.0}


def test_the_legacy_top_level_keys_are_ignored_by_verl(tokenizer):
    # What the README said before: verl accepts it and then runs its own scorer instead.
    cfg = config(f"custom_reward_function.path={HACRL_VERL}", "custom_reward_function.name=compute_score")
    assert cfg.reward.custom_reward_function.path is None
    assert load_reward_manager(cfg, tokenizer).compute_score is not hacrl.verl.compute_score


def test_one_request_per_batch_with_the_async_function(url, monkeypatch, tokenizer):
    monkeypatch.setenv("HACRL_URL", url)
    sent: List[int] = []
    real = hacrl.scoring.Grader.post

    def counting(self, queries, labels, prompts=None):
        sent.append(len(queries))
        return real(self, queries, labels, prompts)

    monkeypatch.setattr(hacrl.scoring.Grader, "post", counting)
    cfg = config(f"reward.custom_reward_function.path={HACRL_VERL}",
                 "reward.custom_reward_function.name=compute_score_async")
    manager = load_reward_manager(cfg, tokenizer)
    out = scores(manager, batch(tokenizer, ["\\boxed{1}", "\\boxed{2}", "\\boxed{4}"], [1, 2, 3]))
    assert [o["reward_score"] for o in out] == [1.0, 1.0, 0.0]
    # Batched: fewer requests than samples (all in one unless the machine stalls a decode).
    assert sum(sent) == 3 and max(sent) >= 2


STDIO_TRUTH = json.dumps({"inputs": ["1 2\n", "5 7\n"], "outputs": ["3\n", "12\n"]})
PROGRAM = "```python\na, b = map(int, input().split())\nprint(a + b)\n```"


def test_verl_code_ground_truth_through_the_custom_function(url, monkeypatch, tokenizer):
    monkeypatch.setenv("HACRL_URL", url)
    cfg = config(f"reward.custom_reward_function.path={HACRL_VERL}",
                 "reward.custom_reward_function.name=compute_score")
    manager = load_reward_manager(cfg, tokenizer)
    wrong = PROGRAM.replace("a + b", "a * b")
    out = scores(manager, batch(tokenizer, [PROGRAM, wrong], [STDIO_TRUTH] * 2, "codecontests"))
    assert [o["reward_score"] for o in out] == [1.0, 0.0]


def test_verl_sandbox_fusion_route_against_run_code(token_url, tokenizer):
    cfg = config(f"reward.sandbox_fusion.url={token_url}/run_code")
    manager = load_reward_manager(cfg, tokenizer)
    out = scores(manager, batch(tokenizer, [PROGRAM], [STDIO_TRUTH], "codecontests"))
    assert out[0]["reward_score"] == 1.0


def test_an_unreadable_ground_truth_follows_the_failure_policy(url, monkeypatch, tokenizer):
    monkeypatch.setenv("HACRL_URL", url)
    path = [f"reward.custom_reward_function.path={HACRL_VERL}",
            "reward.custom_reward_function.name=compute_score"]
    data = batch(tokenizer, ["1"], [json.dumps({"foo": 1})])
    zero = load_reward_manager(config(*path, "+reward.custom_reward_function.reward_kwargs.on_error=zero"), tokenizer)
    assert scores(zero, data)[0]["reward_extra_info"]["failed"] == 1.0
    monkeypatch.setenv("HACRL_ON_ERROR", "raise")
    with pytest.raises(hacrl.scoring.RewardUnavailable, match="labels\\[0\\]"):
        scores(load_reward_manager(config(*path), tokenizer), data)


# One accepted and one rejected program per language the sandbox runs as an interpreter or
# compiles (Go, Rust), under SandboxFusion's names, through verl's own SandboxFusion client
# (`check_correctness`).
LANGUAGE_CASES = {
    "lua": ('local a, b = io.read("n", "n")\nprint(a + b)\n',
            'local a, b = io.read("n", "n")\nprint(a - b)\n', "2 3\n", "5\n"),
    "nodejs": ("const [a, b] = require('fs').readFileSync(0, 'utf8').trim().split(/\\s+/).map(Number);\n"
               "console.log(a + b);\n",
               "const [a, b] = require('fs').readFileSync(0, 'utf8').trim().split(/\\s+/).map(Number);\n"
               "console.log(a - b);\n", "2 3\n", "5\n"),
    "sql": ("select 2 + 3;\n", "select 2 * 3;\n", "", "5\n"),
    "ruby": ("a, b = gets.split.map(&:to_i)\nputs a + b\n",
             "a, b = gets.split.map(&:to_i)\nputs a - b\n", "2 3\n", "5\n"),
    "typescript": ("import { readFileSync } from 'fs';\n"
                   "const [a, b]: number[] = readFileSync(0, 'utf8').trim().split(/\\s+/).map(Number);\n"
                   "console.log(a + b);\n",
                   "const [a, b] = require('fs').readFileSync(0, 'utf8').trim().split(/\\s+/) as string[];\n"
                   "console.log(a + b);\n", "2 3\n", "5\n"),
    "go": ('package main\n\nimport "fmt"\n\nfunc main() {\n\tvar a, b int\n\tfmt.Scan(&a, &b)\n'
           '\tfmt.Println(a + b)\n}\n',
           'package main\n\nimport "fmt"\n\nfunc main() {\n\tvar a, b int\n\tfmt.Scan(&a, &b)\n'
           '\tfmt.Println(a - b)\n}\n', "2 3\n", "5\n"),
    "rust": ("use std::io::Read;\n\nfn main() {\n    let mut s = String::new();\n"
             "    std::io::stdin().read_to_string(&mut s).unwrap();\n"
             "    let v: Vec<i64> = s.split_whitespace().map(|x| x.parse().unwrap()).collect();\n"
             "    println!(\"{}\", v[0] + v[1]);\n}\n",
             "use std::io::Read;\n\nfn main() {\n    let mut s = String::new();\n"
             "    std::io::stdin().read_to_string(&mut s).unwrap();\n"
             "    let v: Vec<i64> = s.split_whitespace().map(|x| x.parse().unwrap()).collect();\n"
             "    println!(\"{}\", v[0] - v[1]);\n}\n", "2 3\n", "5\n"),
}


@pytest.mark.parametrize("language", sorted(LANGUAGE_CASES))
def test_verls_own_sandbox_client_judges_each_language(token_url, language):
    from verl.utils.reward_score.sandbox_fusion.utils import check_correctness

    right, wrong, stdin, stdout = LANGUAGE_CASES[language]
    in_outs = {"inputs": [stdin], "outputs": [stdout]}
    url = f"{token_url}/run_code"
    ok, meta = check_correctness(url, in_outs, right, timeout=10, language=language)
    assert ok == [True], meta
    bad, meta = check_correctness(url, in_outs, wrong, timeout=10, language=language)
    assert bad == [False], meta


# Python that imports the scientific stack: verl sends it as plain `python`, and the service
# runs it on its scientific runtime (the fast one lacks numpy and pandas).
SCIENTIFIC_RIGHT = ("import sys\nimport numpy as np\nimport pandas as pd\n"
                    "v = pd.Series(np.array(sys.stdin.read().split(), dtype=float))\n"
                    "print(int(v.sum()), v.idxmax())\n")


def test_verls_own_sandbox_client_judges_scientific_python(token_url):
    from verl.utils.reward_score.sandbox_fusion.utils import check_correctness

    in_outs = {"inputs": ["4 9 2\n"], "outputs": ["15 1\n"]}
    url = f"{token_url}/run_code"
    ok, meta = check_correctness(url, in_outs, SCIENTIFIC_RIGHT, timeout=120, language="python")
    assert ok == [True], meta
    wrong = SCIENTIFIC_RIGHT.replace("idxmax", "idxmin")
    bad, meta = check_correctness(url, in_outs, wrong, timeout=120, language="python")
    assert bad == [False], meta


SPECIAL_JUDGE = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "data", "special-judge")


def test_verls_sandbox_client_has_no_checker_so_another_right_answer_scores_0(token_url):
    """SandboxFusion's `/run_code` has no checker field, and verl's `check_correctness` compares
    stdout itself (`==` after stripping newlines): on a problem with several right outputs
    (data/special-judge) verl's own client passes the reference's output and fails another right
    one, which the task's checker accepts through `/v1/verify/code`."""
    import requests
    from verl.utils.reward_score.sandbox_fusion.utils import check_correctness

    def lines(name):
        with open(os.path.join(SPECIAL_JUDGE, name)) as f:
            return {row["external_id"]: row for row in map(json.loads, f)}

    task = lines("problems.jsonl")["topological-order"]
    solutions = lines("solutions.jsonl")["topological-order"]
    cases = task["reference"]["cases"]
    in_outs = {"inputs": [c["stdin"] for c in cases], "outputs": [c["stdout"] for c in cases]}
    url = f"{token_url}/run_code"
    source = {k: solutions[k]["source"] for k in ("reference", "right")}
    ok, meta = check_correctness(url, in_outs, source["reference"], timeout=10, language="python")
    assert ok == [True] * len(cases), meta
    ok, meta = check_correctness(url, in_outs, source["right"], timeout=10, language="python")
    assert False in ok and -1 not in ok, meta
    v = requests.post(f"{token_url}/v1/verify/code", timeout=120, json={
        "reference": task["reference"], "response": f"```python\n{source['right']}```"}).json()
    assert v["status"] == "passed", v
