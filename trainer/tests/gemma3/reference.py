"""transformers' side of trainer/tests/gemma3: reads a JSON job (argv[1]) and writes what
transformers computes to job["out"] (safetensors, and JSON for token ids).

Jobs:
  dequant  -- gguf's numpy dequantiser on raw blocks (job["blocks"]: [{type, file, out}]) and
              on the first blocks of real tensors of a GGUF (job["gguf"], job["tensors"]).
  parity   -- Gemma3ForCausalLM on job["model_dir"]: logits of left-padded rows, response
              log-probs and the gradient of their mean, greedy generation with scores.
  tokenize -- transformers' GGUF tokenizer conversion of job["gguf"] (cached in job["cache"]):
              ids of job["texts"], the chat template's ids; optional logits of job["model_dir"].
"""
import json
import os
import sys

import numpy as np


def dequant(job):
    from gguf import GGMLQuantizationType, GGUFReader
    from gguf.quants import dequantize

    for b in job["blocks"]:
        raw = np.fromfile(b["file"], dtype=np.uint8)
        qtype = GGMLQuantizationType[b["type"]]
        out = dequantize(raw, qtype).astype(np.float32)
        out.tofile(b["out"])
    reader = GGUFReader(job["gguf"])
    for t in reader.tensors:
        if t.name in job["tensors"]:
            # t.data is the raw blocks, shaped [rows, bytes per row]; the first rows suffice.
            rows = np.asarray(t.data)[: job["rows"]]
            dequantize(rows, t.tensor_type).astype(np.float32).tofile(job["tensors"][t.name])


def left_pad(rows, pad):
    import torch

    n = max(len(r) for r in rows)
    ids = torch.tensor([[pad] * (n - len(r)) + r for r in rows])
    mask = torch.tensor([[0] * (n - len(r)) + [1] * len(r) for r in rows])
    return ids, mask


def parity(job):
    import torch
    from safetensors.torch import save_file
    from transformers import Gemma3ForCausalLM

    torch.set_num_threads(1)
    model = Gemma3ForCausalLM.from_pretrained(job["model_dir"], dtype=torch.float32, attn_implementation="eager")
    pad = job["pad"]
    out = {}
    # Forward + log-probs + backward on (prompt, response) pairs, left-padded.
    rows = [p + r for p, r in job["pairs"]]
    ids, mask = left_pad(rows, pad)
    pos = (mask.cumsum(1) - 1).clamp(min=0)
    logits = model(input_ids=ids, attention_mask=mask, position_ids=pos).logits
    out["logits"] = logits.detach()
    means = []
    t = ids.shape[1]
    for i, (_, r) in enumerate(job["pairs"]):
        lp = logits[i, t - 1 - len(r) : t - 1].log_softmax(-1)
        tok = lp.gather(-1, torch.tensor(r).unsqueeze(-1)).squeeze(-1)
        out[f"logprobs.{i}"] = tok.detach()
        means.append(tok.mean())
    torch.stack(means).sum().backward()
    for name, p in model.named_parameters():
        out[f"grad.{name}"] = p.grad.detach().clone()
    model.zero_grad()
    # Greedy generation through transformers' own cache (sliding layers keep only their window).
    ids, mask = left_pad(job["prompts"], pad)
    with torch.no_grad():
        gen = model.generate(
            input_ids=ids, attention_mask=mask, max_new_tokens=job["max_new_tokens"], do_sample=False,
            pad_token_id=pad, eos_token_id=None, output_scores=True, return_dict_in_generate=True,
        )
    new = gen.sequences[:, ids.shape[1]:]
    out["gen_ids"] = new.contiguous()
    scores = torch.stack(gen.scores, 1).log_softmax(-1)
    out["gen_logprobs"] = scores.gather(-1, new.unsqueeze(-1)).squeeze(-1).contiguous()
    save_file({k: v.contiguous() for k, v in out.items()}, job["out"])


def tokenize(job):
    from transformers import AutoTokenizer

    cache = job["cache"]
    if not os.path.isfile(os.path.join(cache, "tokenizer.json")):
        d, f = os.path.split(job["gguf"])
        AutoTokenizer.from_pretrained(d, gguf_file=f).save_pretrained(cache)
    tok = AutoTokenizer.from_pretrained(cache)
    res = {
        "ids": [tok.encode(t, add_special_tokens=False) for t in job["texts"]],
        "decoded": [tok.decode(tok.encode(t, add_special_tokens=False)) for t in job["texts"]],
        "vocab_size": len(tok),
    }
    if job.get("model_dir"):
        import torch
        from safetensors.torch import save_file
        from transformers import Gemma3ForCausalLM

        torch.set_num_threads(1)
        model = Gemma3ForCausalLM.from_pretrained(job["model_dir"], dtype=torch.float32)
        ids = torch.tensor([job["forward_ids"]])
        with torch.no_grad():
            save_file({"logits": model(input_ids=ids).logits[0].contiguous()}, job["logits_out"])
    json.dump(res, open(job["out"], "w"))


if __name__ == "__main__":
    job = json.load(open(sys.argv[1]))
    {"dequant": dequant, "parity": parity, "tokenize": tokenize}[job["job"]](job)
