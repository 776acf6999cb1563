"""A real `gpulane serve` on a free loopback port, and a headless Chromium driven by Selenium."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, port: int, process: subprocess.Popen, log: Path):
        self.port = port
        self.process = process
        self.log = log
        self.base = f"http://127.0.0.1:{port}"

    def get(self, path: str, timeout: float = 30.0) -> tuple[int, str, dict]:
        """GET a path; (status, body, headers) for any status."""
        try:
            with urllib.request.urlopen(self.base + path, timeout=timeout) as r:
                return r.status, r.read().decode("utf-8", "replace"), dict(r.headers)
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode("utf-8", "replace"), dict(e.headers)


@pytest.fixture(scope="session")
def server():
    """`gpulane serve` as a person starts it, on a free port; stopped after the session."""
    port = free_port()
    log = Path(tempfile.mkdtemp(prefix="gpulane-serve-")) / "serve.log"
    env = {**os.environ, "GPULANE_CACHE_DIR": tempfile.mkdtemp(prefix="gpulane-serve-cache-")}
    env.pop("GPULANE_DATA", None)
    with open(log, "wb") as out:
        process = subprocess.Popen([sys.executable, "-m", "gpulane", "serve", "--port", str(port)],
                                   stdout=out, stderr=subprocess.STDOUT, env=env)
    srv = Server(port, process, log)
    deadline = time.monotonic() + 90
    while True:
        try:
            if srv.get("/", timeout=5)[0] == 200:
                break
        except OSError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"gpulane serve did not start: {log.read_text(errors='replace')[-2000:]}")
        time.sleep(0.3)
    yield srv
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()


def _chromium() -> tuple[str | None, str | None]:
    browser = next((p for p in (shutil.which("chromium"), shutil.which("chromium-browser"),
                                "/usr/bin/chromium") if p and Path(p).exists()), None)
    driver = next((p for p in (shutil.which("chromedriver"), "/usr/bin/chromedriver",
                               "/usr/lib/chromium/chromedriver") if p and Path(p).exists()), None)
    return browser, driver


@pytest.fixture(scope="session")
def browser():
    """Headless Chromium (Debian's chromium and chromium-driver packages) through Selenium."""
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install -e '.[test]')")
    from selenium.webdriver.chrome.service import Service

    binary, driver_path = _chromium()
    if not binary or not driver_path:
        pytest.skip("no chromium and chromedriver here (Debian: apt-get install chromium chromium-driver; "
                    ".ci/run installs them)")
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1500,1100", "--hide-scrollbars", "--no-first-run", "--disable-extensions"):
        options.add_argument(arg)
    os.environ.setdefault("SE_AVOID_STATS", "true")
    try:
        drv = webdriver.Chrome(service=Service(executable_path=driver_path), options=options)
    except Exception as exc:  # a broken browser install is a skip with the reason, not an error
        pytest.skip(f"chromium could not be started: {str(exc).splitlines()[0]}")
    drv.set_page_load_timeout(60)
    yield drv
    drv.quit()
