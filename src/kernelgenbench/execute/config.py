"""A campaign described in a TOML file: the `kgbench run` options as top-level keys, plus prices.

    method = "llm"
    ops = ["aten::silu", "aten::softmax"]
    provider = "openai"
    model = "Qwen/Qwen3-8B"
    base_url = "http://localhost:8000/v1"
    samples = 5

    [prices."Qwen/Qwen3-8B"]   # USD per million tokens
    input = 0.1
    output = 0.4

Options given on the command line win over the file.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

NUMBER = (int, float)
KEYS: dict[str, tuple[type, ...]] = {
    "method": (str,), "ops": (list, str), "source": (str,), "db": (str,), "device": (str,), "name": (str,),
    "workers": (int,), "timers": (int,), "timeout": NUMBER, "concurrency": (int,), "dir": (str,),
    "provider": (str,), "model": (str,), "base_url": (str,), "api_key_env": (str,), "temperature": NUMBER,
    "top_p": NUMBER, "max_tokens": (int,), "request_timeout": NUMBER, "retries": (int,), "backoff": NUMBER,
    "samples": (int,), "n": (int,), "rounds": (int,), "agent": (str,), "budget": NUMBER, "prices": (dict,),
    "perf": (bool,), "graph": (bool,), "tiers": (list,), "quick_timing": (bool,), "executor": (str,),
    "address": (str,), "with_perturbed": (bool,), "fail_fast": (bool,), "copy_check": (bool,), "sandbox": (bool,),
}


class ConfigError(ValueError):
    """The campaign file cannot be read or says something kgbench does not understand."""


def _prices(path: Path, prices: dict[str, Any]) -> dict[str, dict[str, float]]:
    out = {}
    for model, table in prices.items():
        if not isinstance(table, dict) or set(table) - {"input", "output"} or \
                not all(isinstance(v, NUMBER) and not isinstance(v, bool) for v in table.values()):
            raise ConfigError(f"{path}: [prices.\"{model}\"] takes numbers `input` and `output` "
                              f"(USD per million tokens)")
        out[model] = {k: float(v) for k, v in table.items()}
    return out


def load(path: str | Path) -> dict[str, Any]:
    """The file's options, checked by name and type; `ops` as a list."""
    p = Path(path)
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"--config {path}: no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"cannot read --config {path}: {e}") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path} is not valid TOML: {e}") from None
    for key, value in data.items():
        if key not in KEYS:
            raise ConfigError(f"{path}: unknown key {key!r} (keys: {', '.join(sorted(KEYS))})")
        if not isinstance(value, KEYS[key]) or (isinstance(value, bool) and bool not in KEYS[key]):
            raise ConfigError(f"{path}: {key} = {value!r} has the wrong type")
    if isinstance(data.get("ops"), str):
        data["ops"] = [o for o in data["ops"].replace(" ", ",").split(",") if o]
    if "prices" in data:
        data["prices"] = _prices(p, data["prices"])
    return data
