"""Drives verl's own SandboxFusion client (verl 0.9.1, unchanged) against a /run_code URL."""
import collections, os, sys, time
sys.path.insert(0, os.environ.get('VERL_SRC', '.'))  # unpacked verl wheel (pip download verl==0.9.1 --no-deps)
from verl.utils.reward_score.sandbox_fusion.utils import check_correctness

url, n = sys.argv[1] + '/run_code', int(sys.argv[2])
code = sys.argv[3] if len(sys.argv) > 3 else "while True:\n    pass\n"
in_outs = {"inputs": [""] * n, "outputs": ["x"] * n}
t = time.time()
results, meta = check_correctness(url, in_outs, code, timeout=10, language="python")
took = time.time() - t
api_errors = [m for m in meta if m and m.get("api_request_error")]
print({"n": n, "seconds": round(took, 1), "results": dict(collections.Counter(results)),
       "api_errors": len(api_errors), "first_api_error": api_errors[0]["api_request_error"] if api_errors else None})
