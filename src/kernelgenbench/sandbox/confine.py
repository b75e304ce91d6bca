"""The boundary around candidate code: what a confined worker sees, and how it is put inside.

A worker enters its confinement before it reads the candidate, in the process that will import it:

- namespaces of its own: mounts, PIDs, IPC, hostname and, unless asked otherwise, network (only a
  loopback that is down: no address outside is reachable, nor the host's loopback);
- a root file system that is a tmpfs holding read-only binds of the toolchain (the system's
  programs and libraries, the Python installation, its site-packages, the harness's own package,
  selected files of /etc), a fresh /proc, the device nodes its platform needs, and one private,
  size-capped, writable scratch folder (its /tmp); what it must keep writing on purpose (its own
  Triton cache, the device gate's lock folder) is bound writable by name. The store, `solutions/`,
  the project's tests, the user's home and other candidates' folders are not there at all;
- a user of its own (root's workers get a uid no other worker has; others keep theirs inside a
  user namespace), no capabilities, no new privileges, and limits on processes, open files, file
  size and CPU time;
- it is process 2 of its PID namespace, under a `sleep` as process 1 that owns its orphans: when
  the worker ends, that is killed, and the kernel ends whatever the worker left running, daemons
  and new sessions included.

The process that calls `enter` stays outside (it relays the worker's exit status to whoever waits
for it); the confined worker is its one child, forked once, which returns from `enter`.
"""

from __future__ import annotations

import glob
import json
import os
import resource
import shutil
import signal
import site
import subprocess
import sys
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path

from . import linux

UID_BASE = 200_000  # workers of a root parent run as UID_BASE + (pid % UID_SPAN): no user of the host
UID_SPAN = 100_000
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
ETC = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "passwd", "group", "nsswitch.conf",
       "localtime", "os-release", "hosts")
ETC_NETWORK = ("resolv.conf", "host.conf", "gai.conf", "ssl", "ca-certificates", "pki")  # with a network
BASIC_DEVICES = ("null", "zero", "full", "random", "urandom")
# Exactly these variables, and those with these prefixes, reach a worker: what Python, torch,
# Triton, the device runtimes and the harness read. Anything else (an API key, a DATABASE_URL with
# a password in it, the agent's token) stays with the parent, whatever its name.
ENV_NAMES = frozenset({"PATH", "LANG", "LANGUAGE", "TZ", "LD_LIBRARY_PATH", "PYTHONPATH", "PYTHONHASHSEED",
                       "VIRTUAL_ENV", "CC", "CXX", "CUDA_HOME", "CUDA_PATH", "ROCM_PATH", "HIP_PATH",
                       "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "OPENBLAS_NUM_THREADS"})
ENV_PREFIXES = ("LC_", "KGB_", "TRITON_", "TORCH_", "PYTORCH_", "TORCHINDUCTOR_", "CUDA_", "NVIDIA_", "CUBLAS",
                "CUDNN_", "NCCL_", "OMP_", "KMP_", "MKL_", "HIP_", "ROCR_", "HSA_", "ZE_", "ONEAPI_", "SYCL_",
                "ASCEND_", "MUSA_", "MLU_", "CNRT_")
REAPER = (shutil.which("sleep") or "/bin/sleep", "infinity")


def allowed_env(env: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items() if k in ENV_NAMES or k.startswith(ENV_PREFIXES)}


@dataclass(frozen=True)
class Confinement:
    """One worker's view of the machine. Paths are the host's; inside they keep their names, so a
    traceback or a cache path reads the same in and out."""

    scratch: str  # the worker's folder: private, writable, `scratch_mb` at most, and its /tmp
    copy_in: tuple[str, ...] = ()  # files of the host's scratch folder the worker reads inside
    read_only: tuple[str, ...] = ()
    own: tuple[str, ...] = ()  # writable, made the worker's own: its Triton cache
    shared: tuple[str, ...] = ()  # writable by every worker, sticky: none can remove another's files
    hidden: tuple[str, ...] = ()  # emptied where a read-only path shows them (the harness inside site-packages)
    devices: tuple[str, ...] = ()  # device nodes beyond null, zero, full, random, urandom
    network: bool = False
    scratch_mb: int = 1024
    processes: int = 512  # tasks (threads count) of the worker's user; root's workers only
    open_files: int = 4096
    file_mb: int = 256
    cpu_s: int | None = None

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> Confinement:
        return cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in d.items()})


def toolchain(package_dir: str | None = None, network: bool = False,
              programs: tuple[str, ...] = ()) -> tuple[str, ...]:
    """What Python, torch, Triton (which runs gcc, ptxas and ldconfig) and the device runtimes read:
    the system's folders, this interpreter's installation and site-packages, the harness's package
    (alone, not the project around it), the folders the environment points libraries to, and the
    installation of each of `programs` (an agent's CLI: its npm package tree); with `network`, the
    resolver's and the certificate authorities' files too."""
    paths: list[str] = [p for p in SYSTEM if os.path.lexists(p)]
    paths += [os.path.realpath(p) for p in SYSTEM if os.path.islink(p)]
    paths += [f"/etc/{name}" for name in ETC + (ETC_NETWORK if network else ()) if os.path.lexists(f"/etc/{name}")]
    paths += [sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix]
    paths += [p for p in site.getsitepackages() if os.path.isdir(p)]
    user_site = site.getusersitepackages()
    if user_site in sys.path and os.path.isdir(user_site):
        paths.append(user_site)
    for var in ("PYTHONPATH", "LD_LIBRARY_PATH"):
        paths += [p for p in os.environ.get(var, "").split(os.pathsep) if p and os.path.isdir(p)]
    for var in ("CUDA_HOME", "CUDA_PATH", "ROCM_PATH", "TRITON_PTXAS_PATH", "TRITON_LIBCUDA_PATH"):
        value = os.environ.get(var)
        if value and os.path.exists(value):
            paths.append(value)
    paths += _compilers()
    paths += [installation(p) for p in programs]
    if package_dir:
        paths.append(package_dir)
    return _outermost(paths)


def installation(program: str) -> str:
    """The folder a program's installation fills: for an npm CLI the `node_modules` its entry point
    lies in (its dependencies are beside it), for a `bin/` program the folder above, else its own."""
    real = os.path.realpath(shutil.which(program) or program)
    parts = real.split(os.sep)
    if "node_modules" in parts:
        return os.sep.join(parts[:len(parts) - parts[::-1].index("node_modules")])
    folder = os.path.dirname(real)
    return os.path.dirname(folder) if os.path.basename(folder) == "bin" else folder


def _compilers() -> list[str]:
    """The installation a C compiler on the PATH lives in (Triton builds its launchers with it):
    the H200 image's gcc is /opt/gcc/bin/gcc, with its own lib and libexec beside bin."""
    found = []
    for name in (os.environ.get("CC"), "gcc", "cc", "clang"):
        path = shutil.which(name) if name else None
        if path:
            real = os.path.realpath(path)
            found += [os.path.dirname(path), os.path.dirname(real)]
            if os.path.basename(os.path.dirname(real)) == "bin":
                found.append(os.path.dirname(os.path.dirname(real)))
    return found


def _outermost(paths: list[str]) -> tuple[str, ...]:
    """Absolute, without duplicates, and without a path that a shorter one already shows."""
    kept: list[str] = []
    for p in sorted({os.path.abspath(p) for p in paths}, key=lambda p: (p.count("/"), p)):
        if not any(p == k or p.startswith(k.rstrip("/") + "/") for k in kept if not os.path.islink(k)):
            kept.append(p)
    return tuple(kept)


def device_nodes(patterns: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(sorted({p for pattern in patterns for p in glob.glob(pattern)}))


# --- entering ---------------------------------------------------------------------------------


def enter(c: Confinement) -> None:
    """Confine this process's work: returns in the confined worker, a child of this process, which
    stays outside, waits for it and ends as it ended. On failure the worker raises
    `linux.SandboxError` before any candidate code has run, and may report and exit."""
    root = os.geteuid() == 0
    uid = UID_BASE + os.getpid() % UID_SPAN if root else os.getuid()
    outer_uid, outer_gid = os.getuid(), os.getgid()
    flags = linux.CLONE_NEWNS | linux.CLONE_NEWPID | linux.CLONE_NEWIPC | linux.CLONE_NEWUTS
    if not c.network:
        flags |= linux.CLONE_NEWNET
    if not root:
        flags |= linux.CLONE_NEWUSER
    linux.unshare(flags)
    if not root:
        linux.write_id_maps(outer_uid, outer_gid)
    # Process 1 of the namespace: a `sleep` spawned without copying this (large) process; it owns
    # the orphans, and when it is killed the kernel ends everything left in the namespace
    init = os.posix_spawn(REAPER[0], list(REAPER), {})
    worker = os.fork()
    if worker:
        _relay(worker, init)
    linux.prctl(linux.PR_SET_PDEATHSIG, signal.SIGKILL)
    _build_root(c, uid if root else None)
    _drop_privileges(c, uid if root else None)


def _relay(worker: int, init: int) -> None:
    """Outside: wait for the worker, end its namespace, then end as it ended (a signal as that signal)."""
    os.closerange(0, 1 << 16)
    while True:
        try:
            _, status = os.waitpid(worker, 0)
            break
        except InterruptedError:
            continue
    os.kill(init, signal.SIGKILL)
    os.waitpid(init, 0)
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 1)


def _bind(source: str, target: str, *, writable: bool, devices: bool = False) -> None:
    if os.path.isdir(source) and not os.path.islink(source):
        os.makedirs(target, exist_ok=True)
    elif not os.path.exists(target):
        os.makedirs(os.path.dirname(target), exist_ok=True)
        Path(target).touch()
    linux.mount(source, target, None, linux.MS_BIND | linux.MS_REC)
    flags = 0 if writable else linux.MS_RDONLY
    flags |= linux.MS_NOSUID | (0 if devices else linux.MS_NODEV)
    for point in _mounts_under(target):
        linux.mount(None, point, None, linux.MS_BIND | linux.MS_REMOUNT | flags | _locked_flags(point))


def _mounts_under(target: str) -> list[str]:
    """`target` and the mounts a recursive bind brought along below it, each with its own flags, so
    each is made read-only in turn. Found by mount ID: a mount hidden under a later one at the same
    path is not the one a path now reaches."""
    mounts: list[tuple[str, str, str]] = []  # (id, parent id, mount point)
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields = line.split()
            mounts.append((fields[0], fields[1], fields[4].encode().decode("unicode_escape")))
    top = [m for m in mounts if m[2] == target][-1][0]
    found, frontier = [target], {top}
    while frontier:
        below = [m for m in mounts if m[1] in frontier]
        found += [m[2] for m in below]
        frontier = {m[0] for m in below}
    return found


def _locked_flags(point: str) -> int:
    """Flags a bind remount must keep: in a user namespace, dropping one the mount has is refused."""
    st = os.statvfs(point).f_flag
    flags = 0
    for st_flag, ms_flag in ((os.ST_NOSUID, linux.MS_NOSUID), (os.ST_NODEV, linux.MS_NODEV),
                             (os.ST_NOEXEC, linux.MS_NOEXEC), (os.ST_NOATIME, 1024), (os.ST_NODIRATIME, 2048),
                             (os.ST_RELATIME, 1 << 21)):
        if st & st_flag:
            flags |= ms_flag
    return flags


def _link_or_bind(path: str, new: str) -> None:
    """A symbolic link (merged /usr's /bin -> usr/bin) is made again, its target being in the
    toolchain too (`toolchain` adds it); anything else is bound."""
    target = new + path
    if os.path.islink(path):
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if not os.path.lexists(target):
            os.symlink(os.readlink(path), target)
        return
    _bind(path, target, writable=False)


def _build_root(c: Confinement, uid: int | None) -> None:
    linux.mount(None, "/", None, linux.MS_REC | linux.MS_PRIVATE)
    new = os.path.join(c.scratch, ".root")
    os.makedirs(new, exist_ok=True)
    linux.mount("tmpfs", new, "tmpfs", linux.MS_NOSUID | linux.MS_NODEV, "size=16m,mode=755")
    size = f"size={c.scratch_mb}m"
    os.makedirs(new + "/tmp", exist_ok=True)
    linux.mount("tmpfs", new + "/tmp", "tmpfs", linux.MS_NOSUID | linux.MS_NODEV, f"{size},mode=1777")
    for path in c.read_only:  # after /tmp, which an agent's own files may lie under
        if os.path.lexists(path):
            _link_or_bind(path, new)
    os.makedirs(new + "/dev", exist_ok=True)
    linux.mount("tmpfs", new + "/dev", "tmpfs", linux.MS_NOSUID, "size=1m,mode=755")
    for name in BASIC_DEVICES:
        _bind(f"/dev/{name}", f"{new}/dev/{name}", writable=True, devices=True)
    for node in c.devices:
        _bind(node, new + node, writable=True, devices=True)
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1"),
                         ("stderr", "/proc/self/fd/2")):
        os.symlink(target, f"{new}/dev/{name}")
    os.makedirs(new + "/dev/shm")
    linux.mount("tmpfs", new + "/dev/shm", "tmpfs", linux.MS_NOSUID | linux.MS_NODEV, "size=64m,mode=1777")
    os.makedirs(new + "/proc", exist_ok=True)
    linux.mount("proc", new + "/proc", "proc", linux.MS_NOSUID | linux.MS_NODEV | linux.MS_NOEXEC)
    if os.path.isdir("/sys"):
        _bind("/sys", new + "/sys", writable=False)
    scratch = new + c.scratch
    if not os.path.exists(scratch):
        os.makedirs(scratch)
        if not c.scratch.startswith("/tmp/"):
            linux.mount("tmpfs", scratch, "tmpfs", linux.MS_NOSUID | linux.MS_NODEV, f"{size},mode=700")
    for name in c.copy_in:
        shutil.copyfile(os.path.join(c.scratch, name), os.path.join(scratch, name))
    for path in c.own:
        os.makedirs(path, exist_ok=True)
        if uid is not None:
            _chown_tree(path, uid)
        _bind(path, new + path, writable=True)
    for path in c.shared:
        os.makedirs(path, exist_ok=True)
        os.chmod(path, 0o1777)
        _bind(path, new + path, writable=True)
    for path in c.hidden:
        if os.path.isdir(new + path):
            linux.mount("tmpfs", new + path, "tmpfs", linux.MS_RDONLY | linux.MS_NOSUID | linux.MS_NODEV, "size=4k")
    if uid is not None:
        _chown_tree(scratch, uid)
        os.chmod(scratch, 0o700)
    linux.sethostname("kgb-sandbox")
    os.makedirs(new + "/.old")
    linux.pivot_root(new, new + "/.old")
    os.chdir("/")
    linux.umount("/.old", linux.MNT_DETACH)
    os.rmdir("/.old")
    linux.mount(None, "/", None, linux.MS_BIND | linux.MS_REMOUNT | linux.MS_RDONLY | linux.MS_NOSUID
                | linux.MS_NODEV)
    os.chdir(c.scratch)


def _chown_tree(path: str, uid: int) -> None:
    os.chown(path, uid, uid)
    for folder, dirs, files in os.walk(path):
        for name in dirs + files:
            os.chown(os.path.join(folder, name), uid, uid, follow_symlinks=False)


def _drop_privileges(c: Confinement, uid: int | None) -> None:
    limits = [(resource.RLIMIT_NOFILE, c.open_files), (resource.RLIMIT_FSIZE, c.file_mb << 20),
              (resource.RLIMIT_CORE, 0)]
    if uid is not None:  # counted per user: only a user of the worker's own makes it a per-worker cap
        limits.append((resource.RLIMIT_NPROC, c.processes))
    for which, value in limits:
        _, hard = resource.getrlimit(which)
        resource.setrlimit(which, (value, value if hard == resource.RLIM_INFINITY else min(value, hard)))
    if c.cpu_s:
        resource.setrlimit(resource.RLIMIT_CPU, (c.cpu_s, c.cpu_s + 5))
    linux.prctl(linux.PR_SET_NO_NEW_PRIVS, 1)
    linux.drop_bounding_set()
    if uid is not None:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
    linux.clear_capabilities()


# --- whether it works here --------------------------------------------------------------------


@lru_cache(maxsize=1)
def problem() -> str | None:
    """Why workers cannot be confined on this machine, or None when they can: a confined child
    must start, find the host's files gone and its network unreachable."""
    if sys.platform != "linux":
        return f"confinement needs Linux namespaces (this is {sys.platform})"
    probe = Path(os.environ.get("TMPDIR", "/tmp")) / f"kgb-probe-{os.getpid()}"
    outside = probe.with_suffix(".outside")
    probe.mkdir(parents=True, exist_ok=True)
    outside.touch()
    try:
        c = Confinement(str(probe), read_only=toolchain(str(Path(__file__).resolve().parents[1])))
        proc = subprocess.run([sys.executable, "-m", "kernelgenbench.sandbox.confine", "probe",
                               json.dumps(c.to_dict()), str(outside)],
                              capture_output=True, text=True, timeout=60, env=allowed_env(dict(os.environ)))
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"the confinement self-test did not run: {e}"
    finally:
        shutil.rmtree(probe, ignore_errors=True)
        outside.unlink(missing_ok=True)
    if proc.returncode != 0 or proc.stdout.strip() != "confined":
        said = (proc.stdout + proc.stderr).strip().splitlines()
        return f"the confinement self-test failed: {said[-1] if said else f'exit {proc.returncode}'}"
    return None


def run(c: Confinement, argv: list[str], cwd: str) -> None:
    """Enter, then become `argv` (an agent's CLI) in `cwd`: what it starts stays inside with it."""
    enter(c)
    os.chdir(cwd)
    try:
        os.execvp(argv[0], argv)
    except OSError as e:
        print(f"kgbench: cannot start {argv[0]!r} in the sandbox: {e.strerror}", file=sys.stderr, flush=True)
        os._exit(127)


def command(c: Confinement, argv: list[str], cwd: str) -> list[str]:
    """The command line that runs `argv` confined (`run`), for a caller that starts it with Popen."""
    return [sys.executable, "-m", "kernelgenbench.sandbox.confine", "run", json.dumps(c.to_dict()), cwd, *argv]


def _self_test(c: Confinement, outside: str) -> None:
    """In the probe: enter, then check that a host file is gone and the network is unreachable."""
    import socket

    enter(c)
    seen = os.path.exists(outside)
    try:
        socket.create_connection(("127.0.0.1", 9), timeout=2).close()
        reached = True
    except OSError:
        reached = False
    print("leaky" if seen or reached else "confined", flush=True)
    sys.exit(0)


if __name__ == "__main__":
    if sys.argv[1] == "run":
        run(Confinement.from_dict(json.loads(sys.argv[2])), sys.argv[4:], sys.argv[3])
    else:
        _self_test(Confinement.from_dict(json.loads(sys.argv[2])), sys.argv[3])
