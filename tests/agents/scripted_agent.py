"""A stand-in for a coding-agent CLI: reads its task, writes a kernel, runs the verify command the
task names, and prints its token usage as JSON, as Claude Code's `--output-format json` does.

Usage: scripted_agent.py TASK_FILE [KERNEL]: KERNEL is the file to write as kernel.py (default:
leave kernel.py alone); it is named on the command line, so the sandbox shows it to the agent.
KGB_AGENT_MODE: `done` (default), `hang` (start a child marked with KGB_AGENT_MARKER, then sleep
past any budget), `silent` (no usage printed) or `peek` (first try to read the answer key, the
store and the harness's source, and to edit the harness: each path is in KGB_AGENT_PEEK, joined by
os.pathsep; say what each attempt got).
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
mode = os.environ.get("KGB_AGENT_MODE", "done")
if mode == "peek":
    for path in os.environ["KGB_AGENT_PEEK"].split(os.pathsep):
        try:
            with open(path, "rb") as f:
                print(f"peek read {path}: {len(f.read())} bytes")
            with open(path, "ab"):
                print(f"peek opened {path} for writing")
        except OSError as e:
            print(f"peek refused {path}: {e.strerror}")
if len(sys.argv) > 2:
    shutil.copy(sys.argv[2], "kernel.py")
if mode == "hang":
    subprocess.Popen(["/bin/sh", "-c", f"sleep 300 # {os.environ['KGB_AGENT_MARKER']}"], start_new_session=True)
    time.sleep(300)
rc = subprocess.run(shlex.split(verify), capture_output=True, text=True).returncode
print(f"verify exited with {rc}")
if mode != "silent":
    print(json.dumps({"type": "result", "verify_rc": rc, "usage": {"input_tokens": 1200, "output_tokens": 340,
                                                                   "cache_read_input_tokens": 800}}))
