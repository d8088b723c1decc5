#!/usr/bin/env python3
"""Issue 53 §2, item 3: does the trainer's encoder for a GGUF model give the ids that other
implementations give, over a corpus of real and adversarial strings?

Run through `scripts/tokenizer-parity`, which installs the pinned venv. For each string of the
corpus (GSM8K questions and answers, MATH problems and solutions, HumanEval code, unicode,
whitespace runs, special-token spellings, seeded random mixes) it compares:

* `rust`: the trainer's ids, `trainer roundtrip encode` (the learner path for cross samples,
  `Policy::encode_response(text, false)`, i.e. the `tokenizers` crate on the tokenizer.json that
  `trainer import-gguf` writes from the GGUF's vocabulary and merges);
* `hf`: the Hugging Face `tokenizers` Python library on that same tokenizer.json (no official
  tokenizer.json is reachable offline: no package on PyPI ships SmolLM2's, so this checks the
  encoder, not the reconstruction);
* `reference`: an independent implementation written here from the GGUF's metadata alone, the
  way llama.cpp (the GGUF's own consumer) tokenizes: for byte-level BPE (`tokenizer.ggml.model =
  gpt2`, SmolLM2) the `tokenizer.ggml.pre` pre-tokenizer regexes, GPT-2's byte map and the
  merge ranks; for SentencePiece (`llama`, Gemma) the score-ordered bigram merges with byte
  fallback. Added tokens (control and user-defined) are matched in the text first, longest
  first, as Hugging Face's added tokens are (llama.cpp matches control tokens only on request).

Writes a JSON report: counts of mismatching strings per comparison, per corpus part, and
examples.
"""

from __future__ import annotations

import argparse
import gzip
import heapq
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import regex
from gguf import GGUFReader
from tokenizers import Tokenizer

ROOT = Path(__file__).resolve().parent.parent
CONTROL, USER_DEFINED = 3, 4

# llama.cpp's pre-tokenizer regexes (llama-vocab.cpp), applied in turn: each splits the chunks
# the previous one made. The GPT-2 pattern gets Hugging Face's trailing `|\s+` (llama.cpp's
# hand-written GPT-2 splitter behaves so).
GPT2 = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"
PRE = {"smollm": [r"\p{N}", GPT2], "gpt2": [GPT2], "default": [GPT2]}


def corpus() -> list[tuple[str, str]]:
    """(part, text) pairs."""
    out: list[tuple[str, str]] = []
    for line in open(ROOT / "data/gsm8k_test.jsonl", encoding="utf-8"):
        row = json.loads(line)
        out += [("gsm8k", row["question"]), ("gsm8k", row["answer"])]
    for line in open(ROOT / "data/minerva_math.jsonl", encoding="utf-8"):
        row = json.loads(line)
        out += [("math", row["problem"]), ("math", row["solution"])]
    with gzip.open(ROOT / "data/HumanEval.jsonl.gz", "rt", encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            out += [("code", row["prompt"]), ("code", row["canonical_solution"]), ("code", row["test"])]
    unicode = [
        "Héllo, wörld! Ça va? Ñandú, ærøå, ß, İstanbul, ǅ",
        "日本語のテキストと漢字、ひらがな、カタカナ。",
        "中文：你好，世界！数学题：三加四等于七。",
        "한국어 문장입니다. 숫자 ١٢٣ and ۴۵۶.",
        "Русский текст: съешь же ещё этих мягких французских булок.",
        "Ελληνικά: Καλημέρα κόσμε, π ≈ 3.14159, Σ x_i.",
        "עברית: שלום עולם. العربية: مرحبا بالعالم.",
        "हिन्दी: नमस्ते दुनिया, संख्या ४२.",
        "ไทย: สวัสดีชาวโลก",
        "Emoji: 😀😃😄 👍🏽 👨‍👩‍👧‍👦 🇫🇷🇯🇵 ❤️ ✔︎ 🧮",
        "Combining: e\u0301 a\u0308 n\u0303 \u0041\u030a vs é ä ñ Å",
        "Zero width: a\u200bb\u200cc\u200dd\ufeffe \u2060f",
        "Spaces: a\u00a0b\u2009c\u3000d\u202fe\u2003f",
        "Line separators: a\u2028b\u2029c\x85d\x0be\x0cf",
        "Control: a\x00b\x01c\x07d\x1be\x7ff",
        "Fullwidth ０１２３ ＡＢＣ, superscripts x² y³ z⁴, fractions ½ ⅓ ¾, roman Ⅻ ⅷ.",
        "Math: ∀x∈ℝ, ∃y: x²+y² ≤ 1 ⇒ |x| ≤ 1; ∫₀¹ f(x) dx ≈ ∑ᵢ wᵢ f(xᵢ).",
        "Currency: $12.50, €3,99, £7, ¥1000, ₹500, ₿0.001",
        "Quotes: “double” ‘single’ «guillemets» „low“ — en–dash … ellipsis",
        "Astral: 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝐁𝐨𝐥𝐝 𝟙𝟚𝟛 𓂀 𠜎",
        "Mixed scripts: abcабвαβγ日本123١٢٣",
        "Private use: \ue000\uf8ff and replacement \ufffd",
    ]
    out += [("unicode", s) for s in unicode]
    ws = []
    for n in range(1, 21):
        ws += [
            " " * n,
            "\t" * n,
            "\n" * n,
            "a" + " " * n + "b",
            "a" + "\n" * n + "b",
            "x" + " " * n,
            " " * n + "x",
            "def f():\n" + " " * n + "return 1",
            ("\r\n" * n) + "end",
            "a \t \n" * n,
        ]
    out += [("whitespace", s) for s in ws]
    numbers = ["12345", "3.14159", "1,000,000", "-42", "2024-12-07", "0x1F", "1e-9", "007", "١٢٣٤", "٣.٥"]
    out += [("numbers", s) for s in numbers]
    specials = [
        "<|im_start|>user\nWhat is 2+2?<|im_end|>\n<|im_start|>assistant\n4<|im_end|>",
        "<|endoftext|>text after end<|endoftext|>",
        "<start_of_turn>user\nhi<end_of_turn>\n<start_of_turn>model\n",
        "<bos><eos><pad> literal angle brackets <not_a_token> <|not|>",
        "</span></div><br><img src='x'>",
    ]
    out += [("special", s) for s in specials]
    rng = random.Random(53)
    pool = [ch for s in unicode + numbers for ch in s] + list(" \t\n" * 8) + list("abcdefghijklmnopqrstuvwxyz0123456789.,;:!?'\"()[]{}<>/\\|")
    out += [("random", "".join(rng.choice(pool) for _ in range(rng.randint(1, 80)))) for _ in range(300)]
    return out


def bytes_to_unicode() -> dict[int, str]:
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {b: chr(c) for b, c in zip(bs, cs)}


def field(reader: GGUFReader, key: str):
    f = reader.fields.get(key)
    if f is None:
        return None
    if len(f.data) == 1 and key not in ("tokenizer.ggml.tokens", "tokenizer.ggml.merges"):
        v = f.parts[f.data[0]]
        return bytes(v).decode() if f.types and f.types[0].name == "STRING" else v[0].item()
    if f.types[-1].name == "STRING":
        return [bytes(f.parts[i]).decode() for i in f.data]
    return [f.parts[i][0].item() for i in f.data]


class Reference:
    """llama.cpp-style tokenizer built from a GGUF's metadata alone."""

    def __init__(self, gguf: Path):
        r = GGUFReader(str(gguf))
        self.model = field(r, "tokenizer.ggml.model")
        self.pre = field(r, "tokenizer.ggml.pre") or "default"
        self.arch = field(r, "general.architecture")
        self.tokens = field(r, "tokenizer.ggml.tokens")
        types = field(r, "tokenizer.ggml.token_type") or [1] * len(self.tokens)
        self.types = types
        if self.model == "llama":
            self.scores = field(r, "tokenizer.ggml.scores")
        self.id_of: dict[str, int] = {}
        for i, t in enumerate(self.tokens):
            self.id_of[t] = i  # a repeated spelling keeps its last id, as the trainer's does
        # As llama.cpp: control and user-defined tokens are cut out of the raw text first, by
        # their file spelling (Gemma's runs of spaces are user-defined tokens spelt with real
        # spaces, so they match raw space runs and never form by merging `▁`s).
        added = [i for i, ty in enumerate(types) if ty in (CONTROL, USER_DEFINED)]
        self.added = {self.tokens[i]: i for i in added}
        self.added_re = regex.compile("|".join(regex.escape(t) for t in sorted(self.added, key=len, reverse=True)))
        if self.model == "gpt2":
            merges = field(r, "tokenizer.ggml.merges")
            self.ranks = {tuple(m.split(" ", 1)): k for k, m in enumerate(merges)}
            self.byte_map = bytes_to_unicode()
            self.splitters = [regex.compile(p) for p in PRE[self.pre]]

    def encode(self, text: str) -> list[int]:
        ids: list[int] = []
        pos = 0
        for m in self.added_re.finditer(text):
            ids += self.encode_plain(text[pos : m.start()])
            ids.append(self.added[m.group()])
            pos = m.end()
        return ids + self.encode_plain(text[pos:])

    def encode_plain(self, text: str) -> list[int]:
        if not text:
            return []
        if self.model == "gpt2":
            return self.encode_bpe(text)
        return self.encode_spm(text)

    # -- byte-level BPE -------------------------------------------------------------------
    def split(self, text: str) -> list[str]:
        chunks = [text]
        for pattern in self.splitters:
            nxt = []
            for c in chunks:
                pos = 0
                for m in pattern.finditer(c):
                    if m.start() > pos:
                        nxt.append(c[pos : m.start()])
                    if m.end() > m.start():
                        nxt.append(m.group())
                    pos = m.end()
                if pos < len(c):
                    nxt.append(c[pos:])
            chunks = nxt
        return chunks

    def encode_bpe(self, text: str) -> list[int]:
        ids = []
        for chunk in self.split(text):
            word = [self.byte_map[b] for b in chunk.encode("utf-8")]
            while len(word) > 1:
                best = min(range(len(word) - 1), key=lambda i: self.ranks.get((word[i], word[i + 1]), 1 << 60))
                if (word[best], word[best + 1]) not in self.ranks:
                    break
                a, b = word[best], word[best + 1]
                merged, i = [], 0
                while i < len(word):
                    if i < len(word) - 1 and word[i] == a and word[i + 1] == b:
                        merged.append(a + b)
                        i += 2
                    else:
                        merged.append(word[i])
                        i += 1
                word = merged
            ids += [self.id_of[w] for w in word]
        return ids

    # -- SentencePiece BPE (llama.cpp's llm_tokenizer_spm) -----------------------------------
    def encode_spm(self, text: str) -> list[int]:
        syms = list(text.replace(" ", "\u2581"))
        n = len(syms)
        prev = list(range(-1, n - 1))
        nxt = list(range(1, n + 1))
        alive = [True] * n
        heap: list[tuple[float, int, int, str]] = []

        def push(left: int) -> None:
            right = nxt[left]
            if left < 0 or right >= n:
                return
            piece = syms[left] + syms[right]
            tid = self.id_of.get(piece)
            if tid is not None:
                # Highest score first, then the leftmost pair.
                heapq.heappush(heap, (-self.scores[tid], left, right, piece))

        for i in range(n - 1):
            push(i)
        while heap:
            _, left, right, piece = heapq.heappop(heap)
            if not (alive[left] and alive[right]) or nxt[left] != right or syms[left] + syms[right] != piece:
                continue
            syms[left] = piece
            alive[right] = False
            nxt[left] = nxt[right]
            if nxt[right] < n:
                prev[nxt[right]] = left
            if prev[left] >= 0:
                push(prev[left])
            push(left)
        ids = []
        for i in range(n):
            if not alive[i]:
                continue
            tid = self.id_of.get(syms[i])
            if tid is not None:
                ids.append(tid)
            else:
                ids += [self.id_of[f"<0x{b:02X}>"] for b in syms[i].encode("utf-8")]
        return ids


def imported_dir(gguf: Path) -> Path:
    cache = Path(os.environ.get("HACRL_CACHE", Path.home() / ".cache/hacrl"))
    return cache / "gguf" / f"{gguf.stem}-{gguf.stat().st_size}"


def first_diff(a: list[int], b: list[int]) -> int:
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return min(len(a), len(b))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trainer", default=str(ROOT / "target/release/trainer"))
    ap.add_argument("--model", default=str(Path(os.environ.get("HACRL_CACHE", Path.home() / ".cache/hacrl")) / "smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"))
    ap.add_argument("--out", required=True)
    ap.add_argument("--examples", type=int, default=12)
    args = ap.parse_args()
    gguf = Path(args.model)
    items = corpus()
    start = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        src, dst = Path(tmp) / "corpus.jsonl", Path(tmp) / "rust.jsonl"
        src.write_text("".join(json.dumps(t) + "\n" for _, t in items), encoding="utf-8")
        subprocess.run([args.trainer, "roundtrip", "encode", "--model", str(gguf), "--corpus", str(src), "--out", str(dst)], check=True)
        rust = [json.loads(line) for line in dst.read_text(encoding="utf-8").split("\n") if line]
    assert len(rust) == len(items)
    tok_json = imported_dir(gguf) / "tokenizer.json"
    hf = Tokenizer.from_file(str(tok_json))
    ref = Reference(gguf)
    parts: dict[str, dict[str, int]] = {}
    examples: dict[str, list[dict]] = {"hf": [], "reference": [], "decode": []}
    totals = {"strings": len(items), "hf": 0, "reference": 0, "decode": 0}
    for (part, text), r in zip(items, rust):
        p = parts.setdefault(part, {"strings": 0, "hf": 0, "reference": 0, "decode": 0})
        p["strings"] += 1
        ids = r["ids"]
        theirs = {"hf": hf.encode(text, add_special_tokens=False).ids, "reference": ref.encode(text)}
        for name, other in theirs.items():
            if other != ids:
                p[name] += 1
                totals[name] += 1
                if len(examples[name]) < args.examples:
                    i = first_diff(ids, other)
                    examples[name].append({
                        "part": part, "text": text[:300], "position": i,
                        "rust": [hf.id_to_token(t) for t in ids[i : i + 6]],
                        name: [hf.id_to_token(t) for t in other[i : i + 6]],
                        "rust_tokens": len(ids), f"{name}_tokens": len(other)})
        if r["decoded"] != text:
            p["decode"] += 1
            totals["decode"] += 1
            if len(examples["decode"]) < args.examples:
                examples["decode"].append({"part": part, "text": text[:200], "decoded": r["decoded"][:200]})
    import tokenizers
    report = {
        "model": str(gguf),
        "tokenizer_json": str(tok_json),
        "tokenizer_json_origin": "written by `trainer import-gguf` from the GGUF (no official tokenizer.json is available offline)",
        "gguf_tokenizer": {"model": ref.model, "pre": ref.pre, "vocab": len(ref.tokens), "added_tokens": len(ref.added)},
        "compared": {
            "rust": "trainer roundtrip encode: tokenizers crate on tokenizer.json, encode(text, add_special_tokens=false)",
            "hf": f"Hugging Face tokenizers {tokenizers.__version__} (Python) on the same tokenizer.json",
            "reference": "independent llama.cpp-style implementation from the GGUF metadata (this script)",
            "decode": "rust ids decoded (special tokens kept) differ from the text",
        },
        "mismatching_strings": totals,
        "by_part": parts,
        "examples": examples,
        "secs": round(time.time() - start, 1),
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    json.dump({"mismatching_strings": totals, "by_part": parts}, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
