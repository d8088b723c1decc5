"""The share of cross samples each cross rule would let carry gradient, from a gate_pair run's
samples.jsonl (one line per response: author, s_per_token, s_per_byte). The same arithmetic as
trainer::gate::RuleShares: window = s in [0.8, 1]; calibrated = s / median(s) in [0.8, 1];
truncated = s <= 1. Quantiles are nearest rank, as the trainer's.

    python3 experiments/cross-tokenizer/rule_shares.py experiments/gemma-smollm2/samples.jsonl
"""

import json
import sys


def nearest_rank(values, q):
    v = sorted(values)
    return v[round((len(v) - 1) * q)]


def main(path):
    rows = [json.loads(line) for line in open(path)]
    print("| author → scorer | unit | samples | median s | window | calibrated | truncated |")
    print("|---|---|---|---|---|---|---|")
    for author in sorted({r["author"] for r in rows}):
        mine = [r for r in rows if r["author"] == author]
        scorer = mine[0]["scorer"]
        for unit in ("s_per_token", "s_per_byte"):
            s = [r[unit] for r in mine]
            median = nearest_rank(s, 0.5)
            share = lambda keep: sum(map(keep, s)) / len(s)
            window = share(lambda x: 0.8 <= x <= 1)
            calibrated = share(lambda x: 0.8 <= x / median <= 1)
            truncated = share(lambda x: x <= 1)
            print(
                f"| {author} → {scorer} | {unit[2:].replace('_', ' ')} | {len(s)} | {median:.3f} "
                f"| {window:.0%} | {calibrated:.0%} | {truncated:.0%} |"
            )


if __name__ == "__main__":
    main(sys.argv[1])
