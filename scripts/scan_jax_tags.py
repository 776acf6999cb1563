"""Scan the JAX release tags jax-v0.4.0 onwards of a git clone of jax-ml/jax and write the
pinned importer input (data-inputs/jax-builds.json).

Usage: python scripts/scan_jax_tags.py /path/to/jax.git > data-inputs/jax-builds.json

A tag is a build release when its setup.py names the jaxlib of the same version as the
current jaxlib (``_current_jaxlib_version``): jax 0.4.5, 0.4.8, 0.4.37 and 0.5.2 came
without a jaxlib of their own and are skipped. Per release tag the scan records:

* the commit;
* ``setup.py``: the CUDA majors its pip extras name (``cuda11_pip``, ``cuda12``,
  ``cuda13-local`` ...; in early 0.4 releases the ``cuda{N}_cudnn{M}`` extras made from
  ``_available_cuda_versions``), per major whether the extras install the monolithic
  ``jaxlib==X+cudaN.cudnnM`` wheel and/or the ``jax-cudaN-plugin`` wheel, and its ROCm extras;
* ``.bazelrc``: every CUDA config that sets the CUDA compute capabilities
  (``TF_CUDA_COMPUTE_CAPABILITIES`` / ``HERMETIC_CUDA_COMPUTE_CAPABILITIES``) with the
  hermetic CUDA and cuDNN versions the same config sets, where it sets them;
* the installation instructions at the tag (``docs/installation.md``, or ``README.md``
  before that file existed): the bolded platform phrase of "JAX provides pre-built
  CUDA-compatible wheels for ...", the CUDA wheel variants the text lists (CUDA and cuDNN
  release), and whether it names Linux x86-64 and Windows x86-64 among the platforms
  jaxlib wheels are released for;
* ``ci/build_artifacts.sh``: whether the script builds release-tagged wheels
  (``JAXCI_ARTIFACT_TYPE`` "release") by calling build/build.py without its
  ``--cuda_compute_capabilities`` option.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys


def git(repo: str, *args: str) -> str:
    out = subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True)
    return out.stdout if out.returncode == 0 else ""


def show(repo: str, tag: str, path: str) -> str:
    return git(repo, "show", f"{tag}:{path}")


_CAPS = re.compile(r"^(?:build|common):(cuda\w*)\s+--(?:action_env|repo_env)[ =]?"
                   r"(?:TF|HERMETIC)_CUDA_COMPUTE_CAPABILITIES=\"?([\w,]+)\"?", re.M)


def _config_value(text: str, config: str, name: str) -> str | None:
    m = re.search(rf"^(?:build|common):{config}\s+--repo_env[ =]?{name}=\"?([\d.]+)\"?", text, re.M)
    return m.group(1) if m else None


def cuda_configs(bazelrc: str) -> list[dict]:
    out = []
    for m in _CAPS.finditer(bazelrc):
        config = m.group(1)
        out.append({"config": config, "capabilities": m.group(2).split(","),
                    "cuda": _config_value(bazelrc, config, "HERMETIC_CUDA_VERSION"),
                    "cudnn": _config_value(bazelrc, config, "HERMETIC_CUDNN_VERSION")})
    return out


def setup_extras(setup: str) -> tuple[list[str], list[str]]:
    keys = re.findall(r"^\s*['\"]([\w-]+)['\"]\s*:\s*\[", setup, re.M)
    keys += re.findall(r"\*\*\{f['\"]([\w-]+?)\{", setup)
    cuda = {m.group(1) for k in keys if (m := re.match(r"cuda(\d\d)", k))}
    # early 0.4 releases spell the extras with a loop over _available_cuda_versions
    listed = re.search(r"^_available_cuda_versions = \[([^\]]*)\]", setup, re.M)
    if listed and "cuda{cuda_version}_cudnn" in setup:
        cuda |= set(re.findall(r"'(\d+)'", listed.group(1)))
    cuda = sorted(cuda)
    rocm = sorted(k for k in keys if k.startswith("rocm"))
    return cuda, rocm


def setup_wheels(setup: str, majors: list[str]) -> dict:
    """Per CUDA major, the wheels the extras install: the monolithic ``jaxlib==X+cudaN.cudnnM``
    and/or the ``jax-cudaN-plugin``."""
    out = {}
    for n in majors:
        kinds = []
        if f"+cuda{n}." in setup or ("+cuda{cuda_version}" in setup or "+cuda{_default_cuda_version}" in setup):
            kinds.append("monolithic")
        if f"jax-cuda{n}-plugin" in setup:
            kinds.append("plugin")
        out[n] = kinds
    return out


def install_doc(repo: str, tag: str) -> dict:
    path = "docs/installation.md"
    text = show(repo, tag, path)
    if not text:
        path, text = "README.md", show(repo, tag, "README.md")
    m = re.search(r"JAX provides pre-built CUDA-compatible wheels for \*\*([^*]+)\*\*", text)
    variants = []
    block = re.search(r"JAX currently ships (?:one|two|\w+) CUDA wheel variants?:(.*?)\n\n(?:[A-Z])", text, re.S)
    if block:
        body = block.group(1)
        for cuda, cudnn in re.findall(r"^\* CUDA (\d+\.\d+)(?:,| and) [Cc]u[Dd][Nn][Nn] (\d+\.\d+)", body, re.M):
            variants.append({"cuda": cuda, "cudnn": cudnn})
        t_cuda = re.search(r"^\|\s*CUDA (\d+\.\d+)\s*\|", body, re.M)
        t_cudnn = re.search(r"^\|\s*CUDNN (\d+\.\d+)\s*\|", body, re.M)
        if t_cuda:
            variants.append({"cuda": t_cuda.group(1), "cudnn": t_cudnn.group(1) if t_cudnn else None})
    windows = bool(re.search(r"^\s*[*-] Windows, x86[-_]64", text, re.M))
    linux = bool(re.search(r"^\s*[*-] Linux, x86[-_]64|for Linux, we currently release wheels for `x86_64`", text, re.M))
    return {"install_doc": path, "cuda_wheel_platforms": m.group(1) if m else None,
            "doc_cuda_variants": variants, "jaxlib_linux_wheels": linux, "jaxlib_windows_wheels": windows}


def ci_release_build(script: str) -> bool:
    return ('JAXCI_ARTIFACT_TYPE" == "release"' in script and "build/build.py build" in script
            and "cuda_compute_capabilities" not in script)


def scan(repo: str, tag: str) -> dict | None:
    version = tag[len("jax-v"):]
    setup = show(repo, tag, "setup.py")
    cur = re.search(r"_current_jaxlib_version = ['\"]([^'\"]+)['\"]", setup)
    if not cur or cur.group(1) != version:
        return None
    cuda, rocm = setup_extras(setup)
    return {"tag": tag, "version": version, "commit": git(repo, "rev-parse", f"{tag}^{{commit}}").strip(),
            "setup_cuda_majors": cuda, "setup_cuda_wheels": setup_wheels(setup, cuda), "setup_rocm_extras": rocm,
            "cuda_configs": cuda_configs(show(repo, tag, ".bazelrc")),
            **install_doc(repo, tag),
            "ci_release_build": ci_release_build(show(repo, tag, "ci/build_artifacts.sh"))}


def main() -> None:
    from packaging.version import Version
    repo = sys.argv[1]
    tags = [t for t in git(repo, "tag").split() if re.fullmatch(r"jax-v\d+\.\d+\.\d+(\.\d+)?", t)
            and Version(t[5:]) >= Version("0.4.0")]
    rows = [r for r in (scan(repo, t) for t in sorted(tags, key=lambda t: Version(t[5:]))) if r]
    sys.stdout.write('{"repository": "https://github.com/jax-ml/jax", "releases": [\n')
    sys.stdout.write(",\n".join(json.dumps(r, separators=(",", ":")) for r in rows))
    sys.stdout.write("\n]}\n")


if __name__ == "__main__":
    main()
