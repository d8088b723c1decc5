"""Logit parity for scripts/gpu-check: the model folder `trainer gpu-check parity` wrote, run
through transformers on the same device and in the same dtype, against the trainer's logits for
the same prompt. Usage: gpu-check-parity.py PARITY_INPUT_JSON OUT_JSON. Exits non-zero when the
largest difference exceeds 5 % of the largest logit or the argmax agreement is below 90 %
(bf16 keeps 8 significant bits and the two implementations order their sums differently, so
near-ties among random weights' logits may flip)."""
import json
import sys

import torch
import transformers
from safetensors.torch import load_file
from transformers import AutoModelForCausalLM


def main():
    job = json.load(open(sys.argv[1]))
    device = torch.device("cuda" if job["device"].startswith("Cuda") else "cpu")
    dtype = {"bf16": torch.bfloat16, "f32": torch.float32}[job["dtype"]]
    try:
        model = AutoModelForCausalLM.from_pretrained(job["model_dir"], dtype=dtype)
    except TypeError:  # transformers before 4.56 names it torch_dtype
        model = AutoModelForCausalLM.from_pretrained(job["model_dir"], torch_dtype=dtype)
    model = model.to(device).eval()
    ours = load_file(job["logits_file"])
    with torch.no_grad():
        theirs = model(input_ids=ours["input_ids"].to(device)).logits.float().cpu()
    diff = (theirs - ours["logits"]).abs()
    scale = theirs.abs().max().item()
    agree = (theirs.argmax(-1) == ours["logits"].argmax(-1)).float().mean().item()
    out = {
        "model": job["name"],
        "device": str(device),
        "dtype": job["dtype"],
        "positions": job["positions"],
        "max_abs_diff": diff.max().item(),
        "mean_abs_diff": diff.mean().item(),
        "max_abs_logit": scale,
        "argmax_agreement": agree,
        "torch": torch.__version__,
        "transformers": transformers.__version__,
    }
    out["pass"] = agree >= 0.9 and out["max_abs_diff"] <= 0.05 * scale
    json.dump(out, open(sys.argv[2], "w"), indent=2)
    print("parity:", json.dumps(out))
    sys.exit(0 if out["pass"] else 1)


if __name__ == "__main__":
    main()
