"""Fixtures of the framework tests: a small real tokenizer with a chat template's special tokens.

These tests import TRL, verl and OpenRLHF themselves (the venv of scripts/setup.d/52-frameworks.sh)
and call their reward-computing code; the service is the real one, as in ../conftest.py.
"""

from __future__ import annotations

import pytest
from tokenizers import Tokenizer, decoders, models, pre_tokenizers
from transformers import PreTrainedTokenizerFast

# ChatML's, as Qwen's tokenizers have them; OpenRLHF keeps them when it decodes a query.
SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]


@pytest.fixture(scope="session")
def tokenizer() -> PreTrainedTokenizerFast:
    """A byte-level tokenizer (every byte a token, no merges) with ChatML's special tokens: it
    encodes and decodes any text exactly, as the frameworks' tokenizers do."""
    alphabet = pre_tokenizers.ByteLevel.alphabet()
    vocab = {ch: i for i, ch in enumerate(sorted(alphabet))}
    core = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    core.decoder = decoders.ByteLevel()
    tok = PreTrainedTokenizerFast(
        tokenizer_object=core, eos_token="<|im_end|>", pad_token="<|endoftext|>"
    )
    tok.add_special_tokens({"additional_special_tokens": SPECIAL[1:2]})
    return tok


@pytest.fixture(scope="session")
def token_url(url: str) -> str:
    """The service's URL as a framework that sends no headers of its own must be given it: with
    the token as HTTP Basic credentials (`http://hacrl:$HACRL_TOKEN@host`, README's form), when
    the service asks for one."""
    import os
    from urllib.parse import urlsplit, urlunsplit

    token = os.environ.get("HACRL_TOKEN")
    if not token:
        return url
    parts = urlsplit(url)
    return urlunsplit(parts._replace(netloc=f"hacrl:{token}@{parts.netloc}"))
