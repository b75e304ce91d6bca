"""The Linux system calls a confinement is made of, through libc: namespaces, mounts, pivot_root,
capabilities and prctl.

Python 3.11 has none of these in `os` (3.12 has only `unshare`), and the H200 image has no
bubblewrap and no package manager, so the kernel's primitives are called directly: the same code
then confines a worker on the CPU machine and on the GPU one, after a fork from the fork server,
with nothing to install.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
from functools import cache

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000

MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18
MNT_DETACH = 2

PR_SET_PDEATHSIG = 1
PR_CAPBSET_DROP = 24
PR_SET_NO_NEW_PRIVS = 38
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
SYS_PIVOT_ROOT = 155  # x86-64
SYS_CAPSET = 126
LINUX_CAPABILITY_VERSION_3 = 0x20080522


class SandboxError(OSError):
    """A step of the confinement failed: the worker must not go on to run the candidate."""


@cache
def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)


def _check(result: int, what: str) -> int:
    if result < 0:
        err = ctypes.get_errno()
        raise SandboxError(err, f"{what}: {os.strerror(err)}")
    return result


def unshare(flags: int) -> None:
    _check(_libc().unshare(ctypes.c_int(flags)), "unshare")


def mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    enc = (lambda s: None if s is None else s.encode())
    _check(_libc().mount(enc(source), enc(target), enc(fstype), ctypes.c_ulong(flags), enc(data)),
           f"mount {source or fstype or ''} on {target}")


def umount(target: str, flags: int = 0) -> None:
    _check(_libc().umount2(target.encode(), ctypes.c_int(flags)), f"umount {target}")


def pivot_root(new_root: str, put_old: str) -> None:
    _check(_libc().syscall(ctypes.c_long(SYS_PIVOT_ROOT), new_root.encode(), put_old.encode()), "pivot_root")


def prctl(option: int, arg: int = 0) -> None:
    _check(_libc().prctl(ctypes.c_int(option), ctypes.c_ulong(arg), ctypes.c_ulong(0), ctypes.c_ulong(0),
                         ctypes.c_ulong(0)), f"prctl {option}")


def sethostname(name: str) -> None:
    raw = name.encode()
    _check(_libc().sethostname(raw, ctypes.c_size_t(len(raw))), "sethostname")


def last_capability() -> int:
    try:
        with open("/proc/sys/kernel/cap_last_cap") as f:
            return int(f.read())
    except (OSError, ValueError):
        return 40


def drop_bounding_set() -> None:
    """Empty the bounding and ambient sets: no later exec can gain a capability back."""
    for cap in range(last_capability() + 1):
        try:
            prctl(PR_CAPBSET_DROP, cap)
        except SandboxError:
            break  # past the kernel's last capability, or no CAP_SETPCAP left to drop with
    try:
        prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL)
    except SandboxError:
        pass  # a kernel without ambient capabilities has none to clear


def clear_capabilities() -> None:
    """Empty the effective, permitted and inheritable sets: what the process can still do is what
    its user may."""

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]

    header = Header(LINUX_CAPABILITY_VERSION_3, 0)
    data = (Data * 2)()
    _check(_libc().syscall(ctypes.c_long(SYS_CAPSET), ctypes.byref(header), ctypes.byref(data)), "capset")


def write_id_maps(uid: int, gid: int, inside: int = 0) -> None:
    """After unshare(CLONE_NEWUSER) by a user who is not root: `inside` is that user, alone."""
    with open("/proc/self/setgroups", "w") as f:
        f.write("deny")
    with open("/proc/self/uid_map", "w") as f:
        f.write(f"{inside} {uid} 1")
    with open("/proc/self/gid_map", "w") as f:
        f.write(f"{inside} {gid} 1")
