#!/usr/bin/env python3
"""scripts/lib/vllm-check.py VERSION TORCH_VERSION: scripts/setup.d/50-vllm.sh's check of the venv
it made, run by that venv's Python: torch stayed at the pinned TORCH_VERSION, and vLLM imports and
knows its VERSION."""
import sys
import torch, vllm
assert torch.__version__.startswith(sys.argv[2]), torch.__version__
assert vllm.__version__ == sys.argv[1], vllm.__version__
