"""The local web app: a Starlette application over the same Python API as the command line.

Pages are rendered on the server (every answer works without JavaScript); the
small script in static/app.js only adds search as you type. Defences, because
names come from data files and from whoever can reach the port:

- Jinja2 autoescaping on every template, and a Content-Security-Policy that
  allows scripts and styles from this server only;
- long URLs (414), long statements or names (413) and request bodies (413) are
  refused before any work; only GET and HEAD are served;
- the knowledge graph is used by one request at a time, and each request is
  answered within ``request_timeout`` seconds (503 otherwise);
- with a loopback bind, requests must name a loopback host (against DNS rebinding).
"""

from __future__ import annotations

import asyncio
import threading
import time
from functools import lru_cache
from pathlib import Path
from typing import Callable

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from gpulane.errors import GpulaneError, QueryError
from gpulane.graph.kb import KnowledgeGraph
from gpulane.model import Layer
from gpulane.web import views
from gpulane.web.links import Links

__all__ = ["create_app", "templates", "MAX_URL_CHARS", "MAX_STATEMENT_CHARS", "MAX_NAME_CHARS", "MAX_BODY_BYTES",
           "LOOPBACK_HOSTS"]

HERE = Path(__file__).resolve().parent
MAX_URL_CHARS = 8_192
MAX_STATEMENT_CHARS = 2_000
MAX_NAME_CHARS = 200
MAX_BODY_BYTES = 16_384
MAX_COMPARE_GPUS = 4
LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "::1", "[::1]"]
_SECURITY_HEADERS = {
    "content-security-policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                               "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
}


@lru_cache(maxsize=1)
def templates() -> Environment:
    """The Jinja2 environment: every template autoescaped, undefined names are errors."""
    from jinja2 import StrictUndefined

    env = Environment(loader=FileSystemLoader(str(HERE / "templates")),
                      autoescape=select_autoescape(["html", "xml"], default_for_string=True, default=True),
                      undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    return env


def render(name: str, links: Links, **context) -> str:
    """A page as HTML text (used by the server and by the static site writer)."""
    return templates().get_template(name).render(links=links, **context)


class _Refused(Exception):
    def __init__(self, status: int, message: str):
        self.status = status
        self.message = message


def create_app(kg: KnowledgeGraph, request_timeout: float = 20.0, loopback_only: bool = True) -> Starlette:
    """The ASGI application for one knowledge graph."""
    lock = threading.Lock()
    links = Links()

    def page(name: str, status: int = 200, **context) -> HTMLResponse:
        return HTMLResponse(render(name, links, **context), status_code=status, headers=_SECURITY_HEADERS)

    def refused(status: int, message: str) -> HTMLResponse:
        return page("error.html", status, title=f"{status}", message=message)

    async def computed(fn: Callable[[], Response]) -> Response:
        """Run graph work in a worker thread, one at a time, within the request's time bound."""
        deadline = time.monotonic() + request_timeout

        def work() -> Response:
            if not lock.acquire(timeout=max(0.0, deadline - time.monotonic())):
                return refused(503, "the server is busy; try again in a moment")
            try:
                return fn()
            finally:
                lock.release()

        try:
            return await asyncio.wait_for(asyncio.to_thread(work), timeout=request_timeout + 0.5)
        except asyncio.TimeoutError:
            return refused(503, f"the answer took longer than {request_timeout:g} seconds")

    def params_of(request: Request, keys=views.CONFIG_KEYS) -> dict[str, str]:
        out = {}
        for key in keys:
            value = request.query_params.get(key, "").strip()
            if len(value) > MAX_NAME_CHARS:
                raise _Refused(413, f"the {key} name is longer than {MAX_NAME_CHARS} characters")
            if value:
                out[key] = value
        return out

    def guarded(handler):
        """Refusals and user mistakes become pages; anything else a plain 500 page (never a traceback)."""
        async def endpoint(request: Request) -> Response:
            try:
                return await handler(request)
            except _Refused as exc:
                return refused(exc.status, exc.message)
            except QueryError as exc:
                return page("error.html", 400, title="That cannot be answered", message=exc.message,
                            error=views.error_view(exc))
        endpoint.__name__ = handler.__name__
        return endpoint

    # -- pages ------------------------------------------------------------------------------------

    async def selector(request: Request) -> Response:
        params = params_of(request)
        show_workarounds = request.query_params.get("workarounds") in ("1", "on", "yes", "true")

        def work() -> Response:
            choices = views.selector_choices(kg)
            answer, error, status = None, None, 200
            if params.get("gpu") or (params and request.url.path == "/explain"):
                try:
                    answer = views.explain_view(kg, params, links, show_workarounds=show_workarounds)
                except QueryError as exc:
                    error, status = views.error_view(exc), 400
            return page("selector.html", status, title="gpulane", params=params, choices=choices, answer=answer,
                        error=error, show_workarounds=show_workarounds)
        return await computed(work)

    async def compare_page(request: Request) -> Response:
        gpus = [g.strip() for g in request.query_params.getlist("gpu") if g.strip()]
        if any(len(g) > MAX_NAME_CHARS for g in gpus):
            raise _Refused(413, f"a GPU name is longer than {MAX_NAME_CHARS} characters")
        if len(gpus) > MAX_COMPARE_GPUS:
            raise _Refused(400, f"compare at most {MAX_COMPARE_GPUS} GPUs at once")
        extra: dict[str, list[str]] = {}
        for key in ("os", "app", "framework"):
            values = [v.strip() for v in request.query_params.getlist(key) if v.strip()][:12]
            if any(len(v) > MAX_NAME_CHARS for v in values):
                raise _Refused(413, f"an {key} name is longer than {MAX_NAME_CHARS} characters")
            if values:
                extra[key] = values

        def work() -> Response:
            from gpulane.queries.compare import compare

            grid, error, status = None, None, 200
            if gpus:
                try:
                    result = compare(kg, gpus, extra.get("os"), extra.get("app"), extra.get("framework"),
                                     budget_s=max(1.0, request_timeout - 2))
                    grid = views.compare_view(kg, result, links)
                except QueryError as exc:
                    error, status = views.error_view(exc), 400
            return page("compare.html", status, title="compare", gpus=gpus + [""] * max(0, 2 - len(gpus)),
                        grid=grid, error=error, extra=extra)
        return await computed(work)

    async def node_page(request: Request) -> Response:
        node_id = request.path_params["node_id"]
        if node_id not in kg.nodes:
            return _not_found(node_id, "node")

        def work() -> Response:
            data = views.node_view(kg, node_id, links)
            return page("node.html", title=data["name"], node=data, compare_link=None)
        return await computed(work)

    async def gpu_page(request: Request) -> Response:
        """/gpu/NAME: a GPU by any of its names, redirected to its node page."""
        name = request.path_params["name"]
        if len(name) > MAX_NAME_CHARS:
            raise _Refused(413, "the name is too long")
        if name in kg.nodes:
            return RedirectResponse(f"/node/{name}", status_code=307)
        found = sorted({i for r in kg.names.resolve(name, Layer.gpu) for i in r.ids})
        if len(found) == 1:
            return RedirectResponse(f"/node/{found[0]}", status_code=307)
        return _not_found(name, "GPU")

    async def source_page(request: Request) -> Response:
        source_id = request.path_params["source_id"]
        if source_id not in kg.sources:
            return _not_found(source_id, "source")

        def work() -> Response:
            data = views.source_view(kg, source_id, links)
            return page("source.html", title=data["title"], source=data)
        return await computed(work)

    async def sources_page(request: Request) -> Response:
        rows = sorted(kg.sources.values(), key=lambda s: (s.publisher.lower(), s.title.lower()))
        return page("sources.html", title="sources",
                    sources=[{"id": s.id, "title": s.title, "publisher": s.publisher, "version": s.version,
                              "reviewed": str(s.reviewed or ""), "link": links.source(s.id)} for s in rows])

    async def query_page(request: Request) -> Response:
        text = request.query_params.get("q", "")
        if len(text) > MAX_STATEMENT_CHARS:
            raise _Refused(413, f"the statement is longer than {MAX_STATEMENT_CHARS} characters")

        def work() -> Response:
            result, error, status = None, None, 200
            if text.strip():
                try:
                    result = _run_query(kg, text, links)
                except QueryError as exc:
                    error, status = views.error_view(exc), 400
            return page("query.html", status, title="query", q=text, result=result, error=error)
        return await computed(work)

    async def api_gpus(request: Request) -> Response:
        text = request.query_params.get("q", "")[:MAX_NAME_CHARS]
        return JSONResponse(views.gpu_matches(kg, text), headers=_SECURITY_HEADERS)

    def _not_found(what: str, kind: str) -> HTMLResponse:
        return page("error.html", 404, title="not found", message=f"no {kind} called {what!r} in the knowledge base")

    async def not_found(request: Request, exc: Exception) -> Response:
        return refused(getattr(exc, "status_code", 404), "no such page")

    async def server_error(request: Request, exc: Exception) -> Response:
        if isinstance(exc, GpulaneError):
            return refused(500, str(exc))
        return refused(500, "the server could not answer this request")

    routes = [
        Route("/", guarded(selector)),
        Route("/explain", guarded(selector)),
        Route("/compare", guarded(compare_page)),
        Route("/node/{node_id:path}", guarded(node_page)),
        Route("/gpu/{name:path}", guarded(gpu_page)),
        Route("/source/{source_id:path}", guarded(source_page)),
        Route("/sources", guarded(sources_page)),
        Route("/query", guarded(query_page)),
        Route("/api/gpus", guarded(api_gpus)),
        Mount("/static", app=StaticFiles(directory=str(HERE / "static")), name="static"),
    ]
    middleware = []
    if loopback_only:
        middleware.append(Middleware(TrustedHostMiddleware, allowed_hosts=LOOPBACK_HOSTS + ["testserver"]))
    app = Starlette(routes=routes, middleware=middleware,
                    exception_handlers={404: not_found, 405: not_found, 500: server_error})
    return _Limits(app, refused)


class _Limits:
    """ASGI wrapper: refuse long URLs, request bodies and methods other than GET/HEAD before routing."""

    def __init__(self, app, refused: Callable[[int, str], Response]):
        self.app = app
        self.refused = refused

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        raw = scope.get("raw_path") or scope.get("path", "").encode("utf-8", "replace")
        query = scope.get("query_string") or b""
        problem = None
        if len(raw) + len(query) > MAX_URL_CHARS:
            problem = (414, f"the address is longer than {MAX_URL_CHARS} characters")
        elif scope.get("method") not in ("GET", "HEAD"):
            length = _content_length(scope)
            if length is not None and length > MAX_BODY_BYTES:
                problem = (413, f"the request body is larger than {MAX_BODY_BYTES} bytes")
            else:
                problem = (405, "this server only answers GET requests")
        if problem is not None:
            response = self.refused(*problem)
            return await response(scope, receive, send)
        return await self.app(scope, receive, send)


def _content_length(scope) -> int | None:
    for key, value in scope.get("headers") or []:
        if key == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


def _run_query(kg: KnowledgeGraph, text: str, links: Links) -> dict:
    """Any statement of the language: its answer as a grid, a list of links, or the command line's words."""
    from gpulane.cli import render, render_explain
    from gpulane.queries import run
    from gpulane.queries.compare import compare_statement
    from gpulane.queries.explain import explain
    from gpulane.queries.fix import fix
    from gpulane.queries.parser import parse
    from gpulane.queries.plan import plan as make_plan

    statement = parse(text)
    if statement.verb == "compare":
        return {"kind": "compare", "grid": views.compare_view(kg, compare_statement(kg, statement), links)}
    plan = make_plan(kg, statement)
    verb = statement.verb
    if verb == "find":
        return {"kind": "text", "text": render.find_text(kg, run.find(kg, plan))}
    if verb == "paths":
        return {"kind": "text", "text": render.paths_text(kg, run.paths(kg, plan))}
    if verb in ("explain", "why"):
        return {"kind": "text", "text": render_explain.explain_text(kg, explain(kg, plan))}
    if verb == "fix":
        return {"kind": "text", "text": render_explain.fix_text(kg, fix(kg, plan))}
    if verb == "show":
        found = sorted({i for r in kg.names.resolve(statement.subject.text) for i in r.ids})
        return {"kind": "nodes", "nodes": [{"name": kg.nodes[i].name, "layer": kg.nodes[i].layer.value,
                                            "link": links.node(i)} for i in found[:50]]}
    layer = plan.project[0] if plan.project else Layer.gpu
    ids = plan.problem.pins.get(layer, frozenset(kg.by_layer[layer]))
    nodes = sorted((kg.nodes[i] for i in ids), key=lambda n: (n.vendor or "", n.family or "", n.name))
    return {"kind": "nodes", "nodes": [{"name": n.name, "layer": n.layer.value, "link": links.node(n.id)}
                                       for n in nodes[:500]]}

