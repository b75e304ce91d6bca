"""`kgbench` inside an agent's sandbox: `kgbench verify FILE --op OP [--public] [--json] [--fail-fast]`.

The sandbox holds no harness, no store and no solutions, so this client only carries FILE's text
to the judge outside (`agent_judge.VerifyServer`, on the Unix socket beside this file) and prints
what it answers, with its exit code. The judge reads nothing of the workspace itself, so a symbolic
link planted there points it at nothing. Standard library only: it runs under whatever Python the
sandbox shows.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys

SOCKET = os.path.join(os.path.dirname(os.path.abspath(__file__)), "verify.sock")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="kgbench", description="judge a kernel on the public cases")
    commands = parser.add_subparsers(dest="command", required=True)
    verify = commands.add_parser("verify", help="judge FILE on the public cases of OP")
    verify.add_argument("file")
    verify.add_argument("--op", required=True)
    verify.add_argument("--public", action="store_true", help="always on here: hidden cases never reach a workspace")
    verify.add_argument("--device")
    verify.add_argument("--json", action="store_true")
    verify.add_argument("--fail-fast", action="store_true")
    args = parser.parse_args(argv)
    try:
        with open(args.file, encoding="utf-8") as f:
            source = f.read()
    except (OSError, UnicodeDecodeError) as e:
        print(f"kgbench: cannot read {args.file}: {e}", file=sys.stderr)
        return 2
    request = {"command": "verify", "op": args.op, "source": source, "json": args.json, "fail_fast": args.fail_fast}
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.connect(SOCKET)
            conn.sendall(json.dumps(request).encode() + b"\n")
            data = b""
            while not data.endswith(b"\n"):
                chunk = conn.recv(65536)
                if not chunk:
                    break
                data += chunk
    except OSError as e:
        print(f"kgbench: the judge is not reachable ({e})", file=sys.stderr)
        return 2
    try:
        reply = json.loads(data)
    except ValueError:
        print("kgbench: the judge's answer was cut short", file=sys.stderr)
        return 2
    sys.stdout.write(reply.get("output", ""))
    return int(reply.get("rc", 2))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
