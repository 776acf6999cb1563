"""200 hostile requests: script tags in names, 1 MB queries, bad UTF-8, odd methods and hosts.

Each must be answered — an escaped page or a 4xx — within a bound, and the server must stay up.
Requests go through raw sockets so that bytes no HTTP library would send can be sent.
"""

from __future__ import annotations

import socket
import time
from urllib.parse import quote

PAYLOADS = [
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(1)>',
    "'';!--\"<XSS>=&{()}",
    "</textarea><script>alert(1)</script>",
    "{{7*7}}{% raw %}",
    "javascript:alert(1)",
    "<svg/onload=alert(1)>",
    "RX 7900 XTX\"<b>bold</b>",
]
# What must never come back unescaped.
RAW_MARKERS = ["<script>alert", "<img src=x", "<XSS>", "<svg/onload", "<b>bold</b>"]
BOUND_S = 25.0  # the server's default request bound (20 s) plus slack for a loaded machine


def _requests() -> list[bytes]:
    def get(target: str, host: str = "127.0.0.1") -> bytes:
        return f"GET {target} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode("latin-1")

    out: list[bytes] = []
    for p in PAYLOADS:
        q = quote(p, safe="")
        out += [get(f"/explain?gpu={q}"), get(f"/explain?gpu=RX%207900%20XTX&os={q}"),
                get(f"/explain?gpu=RX%207900%20XTX&app={q}"), get(f"/explain?gpu={q}&framework={q}&workarounds=1"),
                get(f"/?gpu={q}"), get(f"/compare?gpu={q}&gpu=RTX%204090"), get(f"/compare?gpu=RTX%204090&os={q}"),
                get(f"/compare?gpu=RTX%204090&app={q}"), get(f"/node/{q}"), get(f"/gpu/{q}"), get(f"/source/{q}"),
                get(f"/query?q={q}"), get(f"/query?q=find%20gpu%20where%20gpu%20%3D%20{quote(chr(34) + p, safe='')}"),
                get(f"/query?q=show%20{q}"), get(f"/api/gpus?q={q}"), get(f"/sources?x={q}")]
    big = "a" * (1 << 20)
    out += [get(f"/query?q={big}"), get(f"/explain?gpu={big}"), get(f"/compare?gpu={big}"), get(f"/{big}"),
            get("/query?q=" + "x" * 3000), get("/explain?gpu=" + "x" * 300), get("/compare?" + "gpu=x&" * 2000)]
    body = b"q=" + b"b" * (1 << 20)
    out.append(b"POST /query HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n"
               b"Content-Length: " + str(len(body)).encode() + b"\r\nConnection: close\r\n\r\n" + body)
    bad = [b"%FF%FE%FD", b"%C3%28", b"%ED%A0%80", b"%F4%90%80%80", b"%C0%AF", b"%00", b"%0A%0D", b"%E2%80%AE"]
    for seq in bad:
        for path in (b"/explain?gpu=", b"/explain?gpu=RX%207900%20XTX&os=", b"/compare?gpu=", b"/query?q=find%20",
                     b"/node/", b"/source/", b"/api/gpus?q=", b"/gpu/"):
            out.append(b"GET " + path + seq + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    # Raw bytes that are not UTF-8 (nor valid in a request line).
    for raw in (b"\xff\xfe", b"\xc3\x28", b"\x80abc", b"caf\xe9"):
        out.append(b"GET /explain?gpu=" + raw + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        out.append(b"GET /query?q=" + raw + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    out += [get("/", host="evil.example"), get("/explain?gpu=4090", host="attacker.test:80"),
            b"DELETE / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
            b"PUT /query HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc",
            get("/static/../../../../etc/passwd"), get("/static/%2e%2e/%2e%2e/etc/passwd"),
            get("/query?q=" + quote('explain gpu = "a\'b"c', safe="")),
            get("/query?q=" + quote("compare gpu in {" + ", ".join(["\"RTX 4090\""] * 40) + "}", safe="")),
            b"GARBAGE\r\n\r\n", b"GET / HTTP/9.9\r\n\r\n"]
    filler = [get(f"/explain?gpu={quote(p, safe='')}&os=Windows%2011&app=vLLM") for p in PAYLOADS]
    i = 0
    while len(out) < 200:
        out.append(filler[i % len(filler)])
        i += 1
    return out[:200]


def _send(port: int, data: bytes) -> tuple[int | None, bytes, float]:
    start = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=BOUND_S) as s:
        try:
            s.sendall(data)
        except OSError:
            pass  # the server may answer and close before reading a huge request; read what it said
        chunks = []
        while True:
            try:
                chunk = s.recv(65536)
            except (ConnectionResetError, socket.timeout):
                break
            if not chunk:
                break
            chunks.append(chunk)
    reply = b"".join(chunks)
    status = None
    if reply.startswith(b"HTTP/1.1 "):
        status = int(reply[9:12])
    return status, reply, time.monotonic() - start


def test_two_hundred_hostile_requests(server):
    requests = _requests()
    assert len(requests) == 200
    slow = []
    for data in requests:
        status, reply, took = _send(server.port, data)
        shown = data[:90]
        assert status is not None, f"no HTTP answer to {shown!r}"
        assert status < 500, f"{status} for {shown!r}: {reply[:300]!r}"
        assert took < BOUND_S, f"{took:.1f}s for {shown!r}"
        if took > 10:
            slow.append(shown)
        body = reply.split(b"\r\n\r\n", 1)[-1].decode("utf-8", "replace")
        for marker in RAW_MARKERS:
            assert marker not in body, f"unescaped {marker!r} in the answer to {shown!r}"
        if status == 200 and b"text/html" in reply.split(b"\r\n\r\n", 1)[0]:
            assert body.rstrip().endswith("</html>")
    assert server.process.poll() is None, "the server died"
    assert server.get("/")[0] == 200
    assert server.get("/explain?gpu=RX%207900%20XTX&os=Windows%2011&app=vLLM")[0] == 200
