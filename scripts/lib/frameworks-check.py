#!/usr/bin/env python3
"""scripts/lib/frameworks-check.py BASE: scripts/setup.d/52-frameworks.sh's check of the venv it
made, run by that venv's Python: the reward paths under test import, and torch is the one of the
venv BASE (the vLLM venv), not a second one."""
import sys
import torch
assert torch.__file__.startswith(sys.argv[1]), torch.__file__
from trl import GRPOTrainer  # noqa: F401
from verl.trainer.ppo.reward import load_reward_manager  # noqa: F401
from openrlhf.utils.agent import SingleTurnAgentExecutor  # noqa: F401
