"""Scan the build tags (bNNNN) of a llama.cpp git clone and write the pinned importer
input (data-inputs/llama-cpp-tags.json).

Usage: python scripts/scan_llama_cpp_tags.py /path/to/llama.cpp.git > llama-cpp-tags.json

Per tag: the commit and date; the block of CMake code that sets the default
CMAKE_CUDA_ARCHITECTURES (the file that holds it moved: CMakeLists.txt, then
ggml/src/CMakeLists.txt, then ggml/src/ggml-cuda/CMakeLists.txt), comments and blank
lines dropped; and, from the workflow that publishes the release binaries
(.github/workflows/release.yml, before it existed build.yml), the jobs that upload a
release archive (an artifact named llama-...-bin-...) for a GPU backend: the CUDA
versions of the Windows CUDA job, the GPU targets and ROCm/HIP SDK version of the HIP
jobs (Windows, Linux), and whether a Vulkan archive is built for Windows and Linux.
Only what the files say is recorded; the importer interprets it. Thousands of tags say
the same, so only the tags where something scanned changes are written (plus the newest),
each with ``through``, the last tag of its run; ``tags_scanned`` counts every tag read.

The scanned clone must hold ggml-org/llama.cpp's build tags (the pinned input was made from
a fork snapshot whose tags b1046-b4747 are identical, tag for tag, to the upstream snapshot's,
and which carries the upstream tags up to b9402).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import yaml

CUDA_FILES = ("ggml/src/ggml-cuda/CMakeLists.txt", "ggml/src/CMakeLists.txt", "CMakeLists.txt")


class Repo:
    """Reads files at tags through one `git cat-file --batch` process (thousands of tags)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.proc = subprocess.Popen(["git", "-C", path, "cat-file", "--batch"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE)

    def blob(self, rev: str, path: str) -> tuple[str, str] | None:
        """(blob id, text) of a file at a revision, or None where it is absent."""
        self.proc.stdin.write(f"{rev}:{path}\n".encode())
        self.proc.stdin.flush()
        header = self.proc.stdout.readline().decode().split()
        if len(header) < 3 or header[1] != "blob":
            return None
        data = self.proc.stdout.read(int(header[2]))
        self.proc.stdout.read(1)
        return header[0], data.decode("utf-8", "replace")

    def show(self, rev: str, path: str) -> str | None:
        found = self.blob(rev, path)
        return found[1] if found else None

    def parsed(self, rev: str, path: str, reader, default):
        """``reader(text)`` of a file at a revision, computed once per distinct file content
        (consecutive tags mostly share their workflow files)."""
        found = self.blob(rev, path)
        if found is None:
            return default
        cache = self.__dict__.setdefault("_parsed", {})
        key = (reader.__name__, found[0])
        if key not in cache:
            cache[key] = reader(found[1])
        return cache[key]


def cuda_default_block(text: str) -> str | None:
    """The `if (NOT DEFINED CMAKE_CUDA_ARCHITECTURES) ... endif()` block, one statement a line."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if re.search(r"if\s*\(\s*NOT DEFINED CMAKE_CUDA_ARCHITECTURES\s*\)", line):
            depth, out = 0, []
            for raw in lines[i:]:
                stmt = raw.split("#")[0].strip()
                if re.match(r"if\s*\(", stmt):
                    depth += 1
                elif re.match(r"endif\s*\(", stmt):
                    depth -= 1
                if stmt:
                    out.append(re.sub(r"\s+", " ", stmt))
                if depth == 0:
                    return "\n".join(out)
    return None


def _text(obj) -> str:
    return json.dumps(obj)


def _uploads_release_archive(job: dict) -> str | None:
    for step in job.get("steps") or []:
        if "upload-artifact" in str(step.get("uses", "")):
            path = str((step.get("with") or {}).get("path", ""))
            if re.search(r"llama-.*bin-", path):
                return path
    return None


def _targets(job: dict) -> list[list[str]]:
    """GPU target lists of a HIP job: matrix entries (gpu_target(s)) or literal -DGPU_TARGETS."""
    out: list[list[str]] = []
    matrix = (job.get("strategy") or {}).get("matrix") or {}
    entries = list(matrix.get("include") or [])
    for key in ("gpu_target", "gpu_targets"):
        if isinstance(matrix.get(key), list):
            entries += [{key: v} for v in matrix[key]]
    for entry in entries:
        if isinstance(entry, dict):
            for key in ("gpu_target", "gpu_targets"):
                if isinstance(entry.get(key), str):
                    out.append([t for t in re.split(r"[;,\s]+", entry[key]) if t])
    if not out:
        for m in re.finditer(r"-D(?:AMDGPU|GPU)_TARGETS=\\?\"?([a-z0-9;:+\-]+)", _text(job)):
            out.append([t for t in m.group(1).split(";") if t])
    return out


def release_jobs(workflow: str) -> dict:
    try:
        doc = yaml.safe_load(workflow)
    except yaml.YAMLError:
        return {"error": "workflow is not valid YAML"}
    jobs = (doc or {}).get("jobs") or {}
    out: dict = {"windows_cuda": [], "windows_hip": [], "linux_rocm": [], "windows_vulkan": False,
                 "linux_vulkan": False, "hip_sdk": None, "linux_rocm_version": []}
    for name, job in jobs.items():
        if not isinstance(job, dict):
            continue
        path = _uploads_release_archive(job)
        if not path:
            continue
        text = _text(job)
        windows = "windows" in str(job.get("runs-on", "")) or name.startswith("windows")
        matrix = (job.get("strategy") or {}).get("matrix") or {}
        if ("cuda" in name or "cublas" in name) and windows and isinstance(matrix.get("cuda"), list):
            out["windows_cuda"] = [str(v) for v in matrix["cuda"]]
        elif ("hip" in name or "rocm" in name):
            targets = _targets(job)
            if windows:
                out["windows_hip"] = targets
                sdk = (job.get("env") or {}).get("HIPSDK_INSTALLER_VERSION")
                url = re.search(r"AMD-Software-PRO-Edition-(\d+\.Q\d)-", text)
                out["hip_sdk"] = str(sdk) if sdk else (url.group(1) if url else None)
            else:
                out["linux_rocm"] = targets
                versions = [str(e.get("ROCM_VERSION")) for e in matrix.get("include") or []
                            if isinstance(e, dict) and e.get("ROCM_VERSION")]
                image = re.search(r"rocm/dev-ubuntu-[\d.]+:(\d+(?:\.\d+)*)", text)
                out["linux_rocm_version"] = versions or ([image.group(1)] if image else [])
        if "vulkan" in path or "-DGGML_VULKAN=ON" in text or "LLAMA_VULKAN=ON" in text:
            builds = [str(e.get("build") or e.get("backend")) for e in matrix.get("include") or [] if isinstance(e, dict)]
            if "vulkan" in path or "vulkan" in name or any("vulkan" in b for b in builds):
                out["windows_vulkan" if windows else "linux_vulkan"] = True
    return out


BACKEND_FLAGS = {"cuda": r"(LLAMA_CUBLAS|LLAMA_CUDA|GGML_CUDA)\b", "rocm": r"(LLAMA_HIPBLAS|GGML_HIPBLAS|GGML_HIP)\b",
                 "vulkan": r"(LLAMA_VULKAN|GGML_VULKAN)\b"}


def backend_options(texts: list[str]) -> list[str]:
    """The GPU backends the CMake build offers: an option() naming the backend's switch."""
    found = []
    for backend, flag in BACKEND_FLAGS.items():
        if any(re.search(r"option\s*\(\s*" + flag, t or "") for t in texts):
            found.append(backend)
    return found


def linux_ci(workflow: str) -> list[str]:
    """The GPU backends the CI workflow builds on an Ubuntu runner or container (jobs named ubuntu-*)."""
    try:
        jobs = (yaml.safe_load(workflow) or {}).get("jobs") or {}
    except yaml.YAMLError:
        return []
    found = []
    for backend, flag in BACKEND_FLAGS.items():
        if any(name.startswith("ubuntu") and re.search(r"-D" + flag + r"=ON", _text(job))
               for name, job in jobs.items() if isinstance(job, dict)):
            found.append(backend)
    return found


def readme_backends(readme: str) -> dict:
    """The README's "Supported backends" table: backend name -> target devices."""
    out = {}
    section = re.search(r"## Supported backends\n(.*?)(?:\n## |\Z)", readme, re.S)
    for line in (section.group(1) if section else "").splitlines():
        m = re.match(r"\|\s*\[([^\]]+)\]\([^)]*\)\s*\|\s*([^|]+?)\s*\|", line)
        if m:
            out[m.group(1)] = m.group(2)
    return out


def scan(repo: Repo, tag: str, commit: str, date: str) -> dict:
    cuda_file, block = None, None
    for path in CUDA_FILES:
        text = repo.show(commit, path)
        if text and "CMAKE_CUDA_ARCHITECTURES" in text:
            cuda_file, block = path, cuda_default_block(text)
            break
    workflow_file = ".github/workflows/release.yml"
    if repo.blob(commit, workflow_file) is None:
        workflow_file = ".github/workflows/build.yml"
    jobs = repo.parsed(commit, workflow_file, release_jobs, None) or release_jobs("")
    cmake = [repo.show(commit, p) for p in ("CMakeLists.txt", "ggml/CMakeLists.txt")]
    return {"tag": tag, "commit": commit, "date": date, "backends": backend_options(cmake),
            "cuda_file": cuda_file, "cuda_default": block, "workflow": workflow_file, **jobs,
            "linux_ci": repo.parsed(commit, ".github/workflows/build.yml", linux_ci, []),
            "readme_backends": repo.parsed(commit, "README.md", readme_backends, {})}


IDENTITY = ("tag", "commit", "date")


def changes_only(rows: list[dict]) -> list[dict]:
    """The rows where something scanned differs from the tag before, plus the newest tag; each
    kept row gets ``through``, the last tag before the next kept row (the same facts hold
    from ``tag`` through ``through``)."""
    def facts(row: dict) -> dict:
        return {k: v for k, v in row.items() if k not in IDENTITY}
    kept = [i for i, row in enumerate(rows) if i == 0 or i == len(rows) - 1 or facts(row) != facts(rows[i - 1])]
    out = []
    for n, i in enumerate(kept):
        end = kept[n + 1] - 1 if n + 1 < len(kept) else i
        out.append({**rows[i], "through": rows[end]["tag"]})
    return out


def write(rows: list[dict], out) -> None:
    out.write('{"repository": "https://github.com/ggml-org/llama.cpp", '
              f'"tags_scanned": {len(rows)}, "first": "{rows[0]["tag"]}", "last": "{rows[-1]["tag"]}", "releases": [\n')
    out.write(",\n".join(json.dumps(r, separators=(",", ":")) for r in changes_only(rows)))
    out.write("\n]}\n")


def main() -> None:
    path = sys.argv[1]
    # Tag, the commit it points to (peeled where the tag is annotated), the commit's date.
    fmt = ("%(refname:short) %(if)%(*objectname)%(then)%(*objectname) %(*committerdate:short)"
           "%(else)%(objectname) %(committerdate:short)%(end) %(objecttype)")
    refs = subprocess.run(["git", "-C", path, "for-each-ref", f"--format={fmt}", "refs/tags"], capture_output=True,
                          text=True, check=True).stdout.splitlines()
    tags = []
    for line in refs:
        tag, commit, date, _ = line.split()
        if re.fullmatch(r"b\d+", tag):
            tags.append((int(tag[1:]), tag, commit, date))
    tags.sort()
    repo = Repo(path)
    rows = [scan(repo, tag, commit, date) for _, tag, commit, date in tags]
    write(rows, sys.stdout)


if __name__ == "__main__":
    main()
