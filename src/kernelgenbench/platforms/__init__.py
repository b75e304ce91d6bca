"""Platforms: profiles of every supported chip, detection on this machine, and the descriptor a
stored result carries."""

from .descriptor import Descriptor, describe, environment
from .profiles import ACCELERATORS, PROFILES, PlatformError, Profile, dispatch_key_for, names, profile
from .runtime import INTERPRETER, Platform, detect, device_count, device_memory, platform_of

__all__ = ["ACCELERATORS", "INTERPRETER", "PROFILES", "Descriptor", "Platform", "PlatformError", "Profile",
           "describe", "detect", "device_count", "device_memory", "dispatch_key_for", "environment", "names",
           "platform_of", "profile"]
