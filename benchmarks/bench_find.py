"""Benchmark: one `find` question answered by gpulane, Oxigraph and rdflib on the same data.

    python benchmarks/bench_find.py [--sizes 100,1000,10000,100000] [--rdflib-bound 30] [--repeat 5]

For each size a synthetic knowledge base is generated (gpulane.graph.synthetic),
compiled (timed apart), exported to N-Triples and loaded into pyoxigraph and
rdflib. The question BENCH_QUESTION is answered by gpulane in process (plan +
Solver.find, best of N), by the generated SPARQL on Oxigraph (best of N) and on
rdflib (once, skipped at sizes where a smaller one already took longer than
the bound). All answers must agree. Then `gpulane find ...` is timed end to end
as a subprocess on the shipped knowledge base with a warm cache.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

import pyoxigraph as ox

from gpulane.graph import rdf
from gpulane.graph.kb import KnowledgeGraph
from gpulane.graph.synthetic import BENCH_QUESTION, generate
from gpulane.queries import run
from gpulane.queries.sparql import answer_ids, to_sparql


def best(fn, repeat: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), result


def gpulane_answers(kg: KnowledgeGraph):
    plan = run.compile_query(kg, BENCH_QUESTION)
    return sorted(a[0][0] for a in run.solver_for(kg).find(plan.problem, plan.project))


def _rdflib_worker(nt: str, query: str, out) -> None:
    import rdflib

    graph = rdflib.Graph().parse(data=nt, format="nt")
    start = time.perf_counter()
    answers = sorted(answer_ids(str(r[0])) for r in graph.query(query))
    out.put((time.perf_counter() - start, answers))


def rdflib_bounded(nt: str, query: str, bound: float):
    """rdflib's time and answers, or (None, None) when it runs past the bound (it is stopped)."""
    import multiprocessing as mp

    out = mp.Queue()
    proc = mp.Process(target=_rdflib_worker, args=(nt, query, out))
    proc.start()
    proc.join(bound + 60)  # parsing is not timed; the query is bounded
    if proc.is_alive():
        proc.terminate()
        proc.join()
        return None, None
    elapsed, answers = out.get()
    return (elapsed, answers) if elapsed <= bound else (None, None)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="100,1000,10000,100000")
    ap.add_argument("--rdflib-bound", type=float, default=30.0, help="seconds; larger sizes are skipped after")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    rows, ok = [], True
    rdflib_ok = True
    print(f"question: {BENCH_QUESTION}\n")
    for n in [int(s) for s in args.sizes.split(",")]:
        kb = generate(n)
        start = time.perf_counter()
        kg = KnowledgeGraph(kb)
        build = time.perf_counter() - start
        run.solver_for(kg)  # the solver's tables are part of the build, not of the query
        g_time, g_ans = best(lambda: gpulane_answers(kg), args.repeat)
        nt = rdf.export(kg, "ntriples")
        store = ox.Store()
        store.bulk_load(nt.encode(), format=ox.RdfFormat.N_TRIPLES)
        query = to_sparql(kg, run.compile_query(kg, BENCH_QUESTION))
        o_time, o_rows = best(lambda: [answer_ids(r["gpu"].value) for r in store.query(query)],
                              max(1, args.repeat // 2))
        o_ans = sorted(o_rows)
        r_time = r_ans = None
        r_note = "not run (a smaller size passed the bound)"
        if rdflib_ok:
            r_time, r_ans = rdflib_bounded(nt, query, args.rdflib_bound)
            rdflib_ok = r_time is not None
            r_note = f"stopped after {args.rdflib_bound:.0f} s"
        agree = g_ans == o_ans and (r_ans is None or r_ans == g_ans)
        print(f"  {n} facts: build {build:.2f} s, gpulane {g_time * 1000:.2f} ms, oxigraph {o_time * 1000:.1f} ms, "
              f"rdflib {r_note if r_time is None else f'{r_time * 1000:.0f} ms'}", flush=True)
        ok &= agree
        rows.append((n, len(store), len(g_ans), build, g_time, o_time, r_time if r_time is not None
                     else (f"> {args.rdflib_bound:.0f} s" if r_note.startswith("stopped") else "not run"), agree))
    print(f"{'facts':>7} {'triples':>9} {'answers':>7} {'build s':>8} {'gpulane ms':>11} {'oxigraph ms':>12} "
          f"{'rdflib ms':>11} {'gl/oxi':>7} {'rdflib/oxi':>10} agree")
    for n, triples, count, build, g, o, r, agree in rows:
        rtext = f"{r * 1000:11.1f}" if isinstance(r, float) else f"{r:>11}"
        ratio = f"{r / o:10.1f}" if isinstance(r, float) else f"{'-':>10}"
        print(f"{n:>7} {triples:>9} {count:>7} {build:8.2f} {g * 1000:11.2f} {o * 1000:12.1f} {rtext} "
              f"{g / o:7.3f} {ratio} {'yes' if agree else 'NO'}")
    print()
    print(end_to_end())
    return 0 if ok else 1


def end_to_end() -> str:
    """`gpulane find ...` as a subprocess on the shipped knowledge base, cache warm (best of 3)."""
    cmd = [sys.executable, "-m", "gpulane", "find", "gpu", "where", "vendor", "=", "AMD", "and", "app", "=",
           "vLLM", "and", "os", "=", "Ubuntu 24.04"]
    env = dict(os.environ)
    subprocess.run(cmd, capture_output=True, env=env, check=False)  # warm the cache
    times = []
    for _ in range(3):
        start = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, env=env, check=False)
        times.append(time.perf_counter() - start)
    status = "ok" if proc.returncode == 0 else f"exit {proc.returncode}: {proc.stderr.decode()[-300:]}"
    return f"gpulane find (subprocess, warm cache, shipped KB): {min(times):.3f} s best of 3 ({status})"


if __name__ == "__main__":
    sys.exit(main())
