"""Benchmark: how long the command line takes, cold and warm, beside Python's own start.

    python benchmarks/bench_cli.py [--repeat 5]

Measured in one run, as subprocesses, on the shipped knowledge base:

- `python -c pass` and `python -c "import gpulane.cli.app"`: the floor any command pays;
- each of find, explain and fix **cold** (an empty cache folder: the first run after an
  install compiles the knowledge base) and **warm** (the cache filled by the cold run).

- find alternating between two knowledge-base folders (two copies of the shipped data),
  each warmed once first: both should stay warm, since the cache keeps an entry per folder.

Warm times are the median and the best of --repeat runs; cold times of --cold-repeat runs, each
the first run in a new empty cache folder. Each figure is also given as a multiple of
`python -c pass` from the same run: the machine's speed varies from hour to hour, the ratio less.
The cache folder is a fresh temporary one, so nothing the user has cached is touched or used.

Python runs as after `pip install`: compiled modules (.pyc) are cached, in a temporary folder
(PYTHONPYCACHEPREFIX) so that nothing is written beside the sources, and filled by one
untimed run of each command first. An environment that sets PYTHONDONTWRITEBYTECODE (as some
sandboxes do) would otherwise recompile gpulane's modules on every run of an editable install;
--env-bytecode keeps the environment's setting instead.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

COMMANDS = {
    "find": ["find", "gpu where vendor = AMD and app = vLLM and os = \"Ubuntu 24.04\""],
    "explain": ["explain", 'gpu = "GTX 1050", os = "Ubuntu 24.04", framework = "torch 2.8.0+cu128"'],
    "fix": ["fix", 'gpu = "RX 7900 XTX", os = "Windows 11", app = vLLM keep gpu'],
}


def timed(argv: list[str], env: dict) -> float:
    """Wall time of one subprocess, which must succeed."""
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr.strip()[:400]}")
    return elapsed


def row(label: str, times: list[float], peer: float | None = None) -> str:
    """One figure: median and best of its runs, and the median as a multiple of the peer's
    (`python -c pass` measured in the same run), which the machine's speed changes less."""
    ratio = f"  = {statistics.median(times) / peer:5.1f}x python -c pass" if peer else ""
    if len(times) == 1:
        return f"{label:<44} {times[0]:7.3f} s{ratio}"
    return (f"{label:<44} {statistics.median(times):7.3f} s median  {min(times):7.3f} s best  "
            f"({len(times)} runs){ratio}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="warm runs per command (default 5)")
    parser.add_argument("--cold-repeat", type=int, default=3,
                        help="cold runs per command, each with an empty cache folder (default 3)")
    parser.add_argument("--env-bytecode", action="store_true",
                        help="keep the environment's PYTHONDONTWRITEBYTECODE / PYTHONPYCACHEPREFIX")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="gpulane-bench-pycache-") as pycache:
        run(args, python_env(pycache, args.env_bytecode))


def python_env(pycache: str, keep: bool) -> dict:
    """The environment of the timed runs: no gpulane settings; compiled modules cached in
    `pycache` unless `keep` (the environment's own bytecode settings)."""
    env = {k: v for k, v in os.environ.items() if k not in ("GPULANE_DATA", "GPULANE_CACHE_DIR")}
    if not keep:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = pycache
    return env


def bytecode_note(env: dict) -> str:
    if env.get("PYTHONDONTWRITEBYTECODE"):
        return "bytecode not cached (PYTHONDONTWRITEBYTECODE set: sources compiled on every run)"
    return "bytecode cached" + (" in a temporary folder" if "PYTHONPYCACHEPREFIX" in env else "")


def run(args, base_env: dict) -> None:
    python = sys.executable
    gpulane = [python, "-m", "gpulane"]
    print(f"python {sys.version.split()[0]} · {os.cpu_count()} CPUs · {args.repeat} warm runs each · "
          f"{bytecode_note(base_env)}")
    with tempfile.TemporaryDirectory(prefix="gpulane-bench-cache-") as cache:  # untimed: fills the bytecode cache
        for argv in COMMANDS.values():
            timed([*gpulane, *argv], {**base_env, "GPULANE_CACHE_DIR": cache})
        for code in ("pass", "import gpulane.cli.app"):
            timed([python, "-c", code], base_env)
    passes = [timed([python, "-c", "pass"], base_env) for _ in range(args.repeat)]
    peer = statistics.median(passes)
    print(row("python -c pass", passes))
    print(row('python -c "import gpulane.cli.app"',
              [timed([python, "-c", "import gpulane.cli.app"], base_env) for _ in range(args.repeat)], peer))
    for name, argv in COMMANDS.items():
        cold, warm = [], []
        for i in range(args.cold_repeat):  # each cold run in its own empty cache folder
            with tempfile.TemporaryDirectory(prefix="gpulane-bench-cache-") as cache:
                env = {**base_env, "GPULANE_CACHE_DIR": cache}
                cold.append(timed([*gpulane, *argv], env))
                if i == 0:
                    warm = [timed([*gpulane, *argv], env) for _ in range(args.repeat)]
        print(row(f"gpulane {name} (cold: empty cache)", cold, peer))
        print(row(f"gpulane {name} (warm)", warm, peer))
    print(row("gpulane find, two data folders alternating", alternating(gpulane, base_env, args.repeat), peer))


def alternating(gpulane: list[str], env: dict, repeat: int) -> list[float]:
    """Warm find times while two knowledge-base folders take turns."""
    import shutil
    from pathlib import Path

    from gpulane.loaders.kbfiles import default_data_dir

    with tempfile.TemporaryDirectory(prefix="gpulane-bench-") as tmp:
        folders = []
        for name in ("a", "b"):
            folder = Path(tmp) / name
            shutil.copytree(default_data_dir(), folder)
            folders.append(folder)
        env = {**env, "GPULANE_CACHE_DIR": str(Path(tmp) / "cache")}
        argv = COMMANDS["find"]
        for folder in folders:  # the cold run of each folder
            timed([*gpulane, "--data", str(folder), *argv], env)
        return [timed([*gpulane, "--data", str(folders[i % 2]), *argv], env) for i in range(2 * repeat)]


if __name__ == "__main__":
    main()
