"""A stand-in for a coding-agent CLI: reads its task, writes a kernel, runs the verify command the
task names, and prints its token usage as JSON, as Claude Code's `--output-format json` does.

KGB_AGENT_KERNEL: the file to write as kernel.py (default: leave kernel.py alone).
KGB_AGENT_MODE: `done` (default), `hang` (start a child, record its pid in KGB_AGENT_PIDFILE, then
sleep past any budget) or `silent` (no usage printed).
"""

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

task = Path(sys.argv[1]).read_text()
verify = re.search(r"^    (kgbench verify .*)$", task, re.M).group(1)
kernel = os.environ.get("KGB_AGENT_KERNEL")
if kernel:
    shutil.copy(kernel, "kernel.py")
mode = os.environ.get("KGB_AGENT_MODE", "done")
if mode == "hang":
    child = subprocess.Popen(["sleep", "300"])
    Path(os.environ["KGB_AGENT_PIDFILE"]).write_text(str(child.pid))
    time.sleep(300)
rc = subprocess.run(shlex.split(verify), capture_output=True, text=True).returncode
print(f"verify exited with {rc}")
if mode != "silent":
    print(json.dumps({"type": "result", "verify_rc": rc, "usage": {"input_tokens": 1200, "output_tokens": 340,
                                                                   "cache_read_input_tokens": 800}}))
