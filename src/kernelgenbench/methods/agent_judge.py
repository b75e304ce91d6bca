"""The judge's door into an agent's sandbox.

A Unix socket in the folder the agent's `kgbench` lies in (read-only to it): the client sends a
kernel's text, the judge writes it to a file of its own and runs `kgbench verify --public` on it in
a fresh process outside, with the harness's own untouched install (the candidate still runs in a
confined worker), and sends back what that printed and its exit code. Only the task's operator is
judged, only on public cases; nothing of the run (its seed, the store) crosses.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from .. import prompts
from ..platforms import Platform
from ..suite.spec import Operator

CLIENT = Path(__file__).with_name("agent_client.py")
VERIFY_TIMEOUT_S = 900.0
MAX_REQUEST = 8 << 20  # a kernel file larger than this is no kernel


def install_client(bin_dir: Path) -> Path:
    """`kgbench` in `bin_dir`: the client, run by this interpreter (which every sandbox shows)."""
    path = bin_dir / "kgbench"
    path.write_text(f"#!{sys.executable}\n" + CLIENT.read_text())
    path.chmod(0o755)
    return path


class VerifyServer:
    """Serves one agent's `kgbench verify` calls, one at a time, until closed."""

    def __init__(self, folder: Path, op: Operator, platform: Platform, sandbox: bool):
        self.op, self.platform, self.sandbox = op, platform, sandbox
        self.path = folder / "verify.sock"
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._listener.bind(str(self.path))
        os.chmod(self.path, 0o666)  # the agent's own user, whichever it is, may connect
        self._listener.listen(4)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, name=f"kgb-verify-{op.name}", daemon=True)
        self._thread.start()
        self.calls = 0

    def close(self) -> None:
        self._stop.set()
        try:
            self._listener.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._listener.close()
        self._thread.join(timeout=5)

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            with conn:
                try:
                    reply = self._answer(self._read(conn))
                except (OSError, ValueError) as e:
                    reply = {"output": f"kgbench: bad request ({e})\n", "rc": 2}
                try:
                    conn.sendall(json.dumps(reply).encode() + b"\n")
                except OSError:
                    pass

    @staticmethod
    def _read(conn: socket.socket) -> dict:
        data = b""
        while not data.endswith(b"\n"):
            chunk = conn.recv(65536)
            if not chunk:
                break
            data += chunk
            if len(data) > MAX_REQUEST:
                raise ValueError(f"a request over {MAX_REQUEST >> 20} MiB")
        request = json.loads(data)
        if not isinstance(request, dict):
            raise ValueError("not a JSON object")
        return request

    def _answer(self, request: dict) -> dict:
        shown = prompts.shown_id(self.op)
        if request.get("command") != "verify" or not isinstance(request.get("source"), str):
            return {"output": "kgbench: only `kgbench verify FILE --op OP` is available in this workspace\n", "rc": 2}
        if request.get("op") not in (shown, shown.split("::")[-1]):
            return {"output": f"kgbench: this workspace judges {shown} only\n", "rc": 2}
        self.calls += 1
        folder = Path(tempfile.mkdtemp(prefix="kgb-agent-verify-"))
        try:
            kernel = folder / "kernel.py"
            kernel.write_text(request["source"])
            argv = [sys.executable, "-m", "kernelgenbench.cli", "verify", str(kernel), "--op", shown, "--public",
                    "--device", self.platform.device]
            argv += ["--json"] if request.get("json") else []
            argv += ["--fail-fast"] if request.get("fail_fast") else []
            argv += [] if self.sandbox else ["--no-sandbox"]
            env = dict(os.environ)
            if self.op.twin_of:  # a twin's workspace verifies against the twin under the original's id
                env[prompts.ALIAS_ENV] = f"{self.op.twin_of}={self.op.id}"
            try:
                done = subprocess.run(argv, cwd=folder, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                                      text=True, timeout=VERIFY_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                return {"output": f"kgbench: no verdict within {VERIFY_TIMEOUT_S:g} s\n", "rc": 1}
            return {"output": done.stdout + done.stderr, "rc": done.returncode}
        finally:
            shutil.rmtree(folder, ignore_errors=True)
