"""PyTorch-eager reference for benches/policy.rs: the same SmolLM2 weights through Hugging Face
transformers, the same batches, the same loops (KV-cached sampling; forward+backward of the mean
response log-prob; one HACPO update step). Reads a JSON job from argv[1], prints one JSON line of
results."""
import copy
import json
import statistics
import sys
import time

import torch
from safetensors.torch import load_file
from transformers import AutoModelForCausalLM


def left_pad(rows, pad, device):
    n = max(len(r) for r in rows)
    ids = torch.tensor([[pad] * (n - len(r)) + r for r in rows], device=device)
    mask = torch.tensor([[0] * (n - len(r)) + [1] * len(r) for r in rows], device=device)
    return ids, mask


def sync(device):
    if device.type == "cuda":
        torch.cuda.synchronize()


def main():
    job = json.load(open(sys.argv[1]))
    torch.set_num_threads(job["threads"])
    device = torch.device(job["device"])
    dtype = torch.bfloat16 if device.type == "cuda" else torch.float32
    model = AutoModelForCausalLM.from_pretrained(job["model_dir"], dtype=dtype).to(device)
    out = {}

    # Parity: logits of the first prompt against ours.
    theirs = load_file(job["parity_file"])
    ids = theirs["input_ids"].to(device)
    with torch.no_grad():
        logits = model(input_ids=ids).logits.float().cpu()
    out["max_abs_logit_diff"] = (logits - theirs["logits"]).abs().max().item()

    def generate():
        ids, mask = left_pad(job["prompts"], job["pad_id"], device)
        pos = (mask.cumsum(1) - 1).clamp(min=0)
        torch.manual_seed(0)
        with torch.no_grad():
            o = model(input_ids=ids, attention_mask=mask, position_ids=pos, use_cache=True)
            past, logits = o.past_key_values, o.logits[:, -1]
            for _ in range(job["new_tokens"] - 1):
                logp = logits.float().log_softmax(-1)
                nxt = torch.multinomial(logits.float().softmax(-1), 1)
                logp.gather(-1, nxt).cpu()
                mask = torch.cat([mask, torch.ones_like(nxt)], 1)
                pos = pos[:, -1:] + 1
                o = model(input_ids=nxt, attention_mask=mask, position_ids=pos, past_key_values=past, use_cache=True)
                past, logits = o.past_key_values, o.logits[:, -1]
            torch.multinomial(logits.float().softmax(-1), 1).cpu()
        sync(device)

    def mean_response_logprob(m):
        rows = [p + r for p, r in job["train_pairs"]]
        ids, mask = left_pad(rows, job["pad_id"], device)
        pos = (mask.cumsum(1) - 1).clamp(min=0)
        r_max = max(len(r) for _, r in job["train_pairs"])
        logits = m(input_ids=ids, attention_mask=mask, position_ids=pos, logits_to_keep=r_max + 1).logits[:, :-1]
        targets = ids[:, -r_max:]
        logp = logits.float().log_softmax(-1).gather(-1, targets.unsqueeze(-1)).squeeze(-1)
        lens = torch.tensor([len(r) for _, r in job["train_pairs"]], device=device)
        resp = (torch.arange(r_max, device=device)[None, :] >= (r_max - lens)[:, None]).float()
        return (logp * resp).sum(-1) / resp.sum(-1)

    def train_step():
        mean_response_logprob(model).mean().backward()
        model.zero_grad(set_to_none=False)
        sync(device)

    # One HACPO update step (HACPO.md): GSPO self terms, cross terms with exponential importance
    # sampling and the step-0 clip, mean, backward, clip_grad_norm_, AdamW.
    u = job["update"]
    learner = copy.deepcopy(model)
    opt = torch.optim.AdamW(learner.parameters(), lr=u["lr"], weight_decay=u["weight_decay"])
    column = lambda k: torch.tensor(u[k], dtype=torch.float32, device=device)
    adv, old, omega = column("advantage"), column("old_logprob"), column("omega")
    cross = torch.tensor(u["cross"], device=device)
    lo, hi = 1 - u["gspo_eps"][0], 1 + u["gspo_eps"][1]

    def update_step():
        opt.zero_grad(set_to_none=False)
        delta = mean_response_logprob(learner) - old
        s_self = delta.exp()
        self_term = -torch.minimum(s_self * adv, s_self.clamp(lo, hi) * adv)
        c = delta.clamp(-10, 10).exp().clamp(u["cross_lower"], 1.0)
        cross_term = -(c * c.detach().pow(u["alpha"]) * omega * adv)
        torch.where(cross, cross_term, self_term).mean().backward()
        torch.nn.utils.clip_grad_norm_(learner.parameters(), u["max_grad_norm"])
        opt.step()
        sync(device)

    for name, fn in (("generate", generate), ("train", train_step), ("update", update_step)):
        fn()  # warm-up
        if device.type == "cuda":
            torch.cuda.reset_peak_memory_stats()
        times = []
        for _ in range(job["repeats"]):
            t = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t)
        out[f"{name}_secs"] = statistics.median(times)
        if device.type == "cuda":
            out[f"{name}_peak_mem_bytes"] = torch.cuda.max_memory_allocated()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
