#!/usr/bin/env python3
"""grid.py: the scale benchmark grid of `make bench` (docs/PERFORMANCE.md,
"Scale grid").

    python3 tests/bench/grid.py [BUILD_DIR]
    python3 tests/bench/grid.py --from SAVED...   # the summaries again

Generates training and mixed traces with `colosim gen` (fixed options and
seed, so the same bytes every time) at 1e3 .. BENCH_MAX_JOBS jobs, replays
each with `colosim replay --json` on clusters of 13x8, 125x8 and 1250x8
A100-80GB (104, 1,000 and 10,000 GPUs; up to BENCH_MAX_GPUS) under every
policy `colosim list policies` names, and prints one line per replay:

    bench grid kind=K jobs=N gpus=G policy=P status=ok cpu_s=... rss_mb=...
          events=... events_per_s=... cpu_us_per_job=... wall_s=...

cpu_s is user + system CPU of the replay process alone (wait4), rss_mb its
peak resident set (ru_maxrss), events_per_s and cpu_us_per_job are per CPU
second; wall_s is colosim's own figure (the machine is shared).  Then the
growth ratios of CPU per job (the issue's targets: <= 1.3x from 1e5 to 1e6
jobs at the same GPUs, and from 1e2 to 1e4 GPUs at the same jobs), for the
largest decade measured:

    bench grid_jobs_growth kind=K policy=P gpus=G jobs=A->B ratio=R (...)
    bench grid_gpus_growth kind=K policy=P jobs=N gpus=A->B ratio=R (...)

and a `bench grid_target ...` line per absolute target that the measured
sizes reach.  A replay that exceeds BENCH_TIMEOUT seconds of CPU
(RLIMIT_CPU; a wall-clock cap of 4x that plus 30 s guards against a stall)
is reported with status=timeout (tests/bench/rusage.c runs each replay),
and the larger traces of the same kind, policy and cluster are skipped
(status=skipped): the grid ends in bounded time whatever the simulator
does.  A replay that fails prints status=error
and its first stderr line; the script then exits 1 at the end.  Targets
missed are reported, never an error: this is a benchmark, not a test.

Knobs (environment):
  BENCH_MAX_JOBS   largest trace, 1e3..1e6 (default 10000: the quick grid)
  BENCH_MAX_GPUS   largest cluster, 104 | 1000 | 10000 (default 1000)
  BENCH_MIN_JOBS, BENCH_MIN_GPUS  the smallest ones (defaults 1000, 104):
                   with --from, to fill in part of a grid
  BENCH_TIMEOUT    CPU seconds per replay (default 30)
  BENCH_POLICIES   space-separated policies (default: every registered one)
  BENCH_KINDS      "training mixed" (default both)
  BENCH_RATE       job arrivals per second of every trace (default 0.01,
                   colosim gen's default)

Workloads (assumptions for a benchmark, not measurements): `training` is
`colosim gen --infer-frac 0` with gen's default mixes; `mixed` is gen's
default 30 % of services, each sending Poisson requests at a lognormal rate
of median 1 request/s for 600 s (about 600 requests a service), so that
request events do not swamp the per-job cost the grid measures.
"""
import json
import os
import subprocess
import sys
import tempfile
import time

JOB_SIZES = [1000, 10000, 100000, 1000000]
CLUSTERS = [(104, "13x8:a100-80gb"), (1000, "125x8:a100-80gb"),
            (10000, "1250x8:a100-80gb")]
KIND_OPTS = {
    "training": ["--infer-frac", "0"],
    "mixed": ["--infer-frac", "0.3", "--infer-rate-median", "1",
              "--infer-duration-s", "600"],
}
GROWTH_TARGET = 1.3
# The absolute targets: (kind, jobs, gpus, policies, CPU seconds).
CPU_TARGETS = [
    ("training", 1000000, 10000, ("exclusive", "mps", "timeslice", "colti"),
     10.0),
    ("mixed", 100000, 10000, ("gslice", "distmind"), 30.0),
]


def env_int(name, default):
    v = os.environ.get(name, "")
    try:
        return int(float(v)) if v else default
    except ValueError:
        sys.exit("grid.py: %s=%r: expected a number" % (name, v))


def run_limited(build, argv, cpu_limit, out_path):
    """Runs argv (stdout to out_path) through build/bench/rusage under a CPU
    limit; returns (status, cpu_s, rss_kb, stderr_text)."""
    rep = out_path + ".rusage"
    with open(out_path, "wb") as out, tempfile.TemporaryFile() as err:
        p = subprocess.run([os.path.join(build, "bench", "rusage"), "-o", rep,
                            str(cpu_limit), "--"] + argv, stdout=out,
                           stderr=err, stdin=subprocess.DEVNULL)
        err.seek(0)
        text = err.read().decode("utf-8", "replace")
    if p.returncode != 0:
        sys.exit("grid.py: rusage failed: %s" % text.strip())
    with open(rep) as f:
        kv = dict(t.split("=", 1) for t in f.read().split())
    return kv["status"], float(kv["cpu_s"]), int(kv["rss_kb"]), text


def policies(colosim):
    want = os.environ.get("BENCH_POLICIES", "").split()
    if want:
        return want
    out = subprocess.run([colosim, "list", "policies"], check=True,
                         capture_output=True, text=True).stdout
    return [ln.split()[0] for ln in out.splitlines()[1:] if ln.strip()]


def parse_saved(paths):
    """Rebuilds the results of saved grid outputs (their `bench grid`
    lines; a later file's line for the same replay wins, unless it says
    skipped) for --from."""
    res, kinds, pols, jobs, gpus = {}, [], [], set(), set()
    lines = []
    for path in paths:
        with open(path) as f:
            lines += f.readlines()
    for ln in lines:
        if not ln.startswith("bench grid "):
            continue
        kv = dict(t.split("=", 1) for t in ln.split()[2:] if "=" in t)
        key = (kv["kind"], int(kv["jobs"]), int(kv["gpus"]),
               kv["policy"])
        if kv["status"] == "skipped" and key in res:
            continue
        r = {"status": kv["status"]}
        if "cpu_s" in kv:
            r.update(cpu_s=float(kv["cpu_s"]),
                     rss_mb=float(kv["rss_mb"]))
        if kv["status"] == "ok":
            r["us_per_job"] = float(kv["cpu_us_per_job"])
        res[key] = r
        if key[0] not in kinds:
            kinds.append(key[0])
        if key[3] not in pols:
            pols.append(key[3])
        jobs.add(key[1])
        gpus.add(key[2])
    clusters = [c for c in CLUSTERS if c[0] in gpus]
    return res, kinds, pols, sorted(jobs), clusters


def main():
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0
    if len(sys.argv) >= 3 and sys.argv[1] == "--from":
        res, kinds, pols, jobs, clusters = parse_saved(sys.argv[2:])
        report_growth(res, kinds, pols, jobs, clusters)
        report_targets(res)
        report_table(res, kinds, pols, jobs, clusters)
        return 0
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    colosim = os.path.join(build, "colosim")
    for f in (colosim, os.path.join(build, "bench", "rusage")):
        if not os.access(f, os.X_OK):
            sys.exit("grid.py: %s: not built (make bench builds it)" % f)
    max_jobs = env_int("BENCH_MAX_JOBS", 10000)
    max_gpus = env_int("BENCH_MAX_GPUS", 1000)
    timeout = env_int("BENCH_TIMEOUT", 30)
    rate = os.environ.get("BENCH_RATE", "0.01")
    kinds = os.environ.get("BENCH_KINDS", "training mixed").split()
    for k in kinds:
        if k not in KIND_OPTS:
            sys.exit("grid.py: BENCH_KINDS: unknown kind %r (training, "
                     "mixed)" % k)
    min_jobs = env_int("BENCH_MIN_JOBS", 1000)
    min_gpus = env_int("BENCH_MIN_GPUS", 104)
    jobs = [n for n in JOB_SIZES if min_jobs <= n <= max_jobs]
    clusters = [c for c in CLUSTERS if min_gpus <= c[0] <= max_gpus]
    if not jobs or not clusters:
        sys.exit("grid.py: BENCH_MAX_JOBS >= 1000 and BENCH_MAX_GPUS >= "
                 "104 are needed")
    pols = policies(colosim)
    print("# grid: %d cores, %s; jobs %s, GPUs %s, CPU limit %d s per replay"
          % (os.cpu_count(), time.strftime("%Y-%m-%dT%H:%MZ", time.gmtime()),
             jobs, [c[0] for c in clusters], timeout), flush=True)
    res = {}          # (kind, jobs, gpus, policy) -> dict
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        out_path = os.path.join(tmp, "out.json")
        for kind in kinds:
            given_up = set()                     # (policy, gpus)
            for n in jobs:
                trace = os.path.join(tmp, "%s-%d.csv" % (kind, n))
                t0 = time.process_time()
                g = subprocess.run([colosim, "gen", "--seed", "1", "--jobs",
                                    str(n), "--rate", rate] +
                                   KIND_OPTS[kind] + ["-o", trace])
                if g.returncode != 0:
                    sys.exit("grid.py: colosim gen failed")
                for gpus, spec in clusters:
                    for pol in pols:
                        key = (kind, n, gpus, pol)
                        if (pol, gpus) in given_up:
                            res[key] = {"status": "skipped"}
                            print("bench grid kind=%s jobs=%d gpus=%d "
                                  "policy=%s status=skipped" % key,
                                  flush=True)
                            continue
                        st, cpu, rss, err = run_limited(
                            build, [colosim, "replay", trace, "--policy", pol,
                             "--cluster", spec, "--json"], timeout, out_path)
                        r = {"status": st, "cpu_s": cpu, "rss_mb": rss / 1024}
                        line = ("bench grid kind=%s jobs=%d gpus=%d policy=%s"
                                " status=%s cpu_s=%.2f rss_mb=%.1f"
                                % (kind, n, gpus, pol, st, cpu, rss / 1024))
                        if st == "ok":
                            with open(out_path) as f:
                                d = json.load(f)
                            ev = d.get("events") or 0
                            c = max(cpu, 1e-3)
                            r.update(events=ev, us_per_job=1e6 * c / n)
                            line += (" events=%d events_per_s=%.0f "
                                     "cpu_us_per_job=%.1f wall_s=%.2f"
                                     % (ev, ev / c, 1e6 * c / n,
                                        d.get("wall_s") or 0))
                        elif st == "timeout":
                            # Larger traces on this cluster cost more; a
                            # larger cluster may not (a small one can be
                            # the overloaded one), so it is still run.
                            given_up.add((pol, gpus))
                        else:
                            failed = True
                            first = (err.strip().splitlines() or [""])[0]
                            line += " error=%r" % first[:200]
                        res[key] = r
                        print(line, flush=True)
                os.unlink(trace)
    report_growth(res, kinds, pols, jobs, clusters)
    report_targets(res)
    report_table(res, kinds, pols, jobs, clusters)
    return 1 if failed else 0


def report_table(res, kinds, pols, jobs, clusters):
    """The grid as a Markdown table (docs/PERFORMANCE.md): one row per
    kind, policy and trace size; per cluster, CPU s / CPU us per job /
    peak RSS MB."""
    print()
    print("| kind | policy | jobs | " + " | ".join(
        "%d GPUs: CPU s / us per job / RSS MB" % g for g, _ in clusters) +
        " |")
    print("|---|---|---:|" + "---:|" * len(clusters))
    for kind in kinds:
        for pol in pols:
            for n in jobs:
                cells = []
                for g, _ in clusters:
                    r = res.get((kind, n, g, pol))
                    if r is None:
                        cells.append("")
                    elif r["status"] == "ok":
                        cells.append("%.2f / %.1f / %.0f" % (
                            r["cpu_s"], r["us_per_job"], r["rss_mb"]))
                    elif r["status"] == "timeout":
                        cells.append("> %.0f s (timeout)" % r["cpu_s"])
                    else:
                        cells.append(r["status"])
                print("| %s | %s | %d | %s |" % (kind, pol, n,
                                                 " | ".join(cells)))


def per_job(res, key):
    r = res.get(key)
    return r["us_per_job"] if r and r["status"] == "ok" else None


def growth(name, what, pa, pb):
    ratio = pb / pa
    print("bench %s %s us_per_job=%.1f->%.1f ratio=%.2f (target <= %.1f: %s)"
          % (name, what, pa, pb, ratio, GROWTH_TARGET,
             "met" if ratio <= GROWTH_TARGET else "MISSED"))


def report_growth(res, kinds, pols, jobs, clusters):
    """CPU per job growth over the largest job decade measured (at each
    cluster) and from the smallest to the largest cluster measured (at each
    trace size); peak RSS over the same job decade, as KB per job added to
    the trace (a replay whose memory follows the active jobs only, as the
    issue's target asks, stays near 0 where the cluster keeps up)."""
    for kind in kinds:
        for pol in pols:
            for gpus, _ in clusters:
                ok = [n for n in jobs if per_job(res, (kind, n, gpus, pol))]
                if len(ok) >= 2:
                    a, b = ok[-2], ok[-1]
                    growth("grid_jobs_growth", "kind=%s policy=%s gpus=%d "
                           "jobs=%d->%d" % (kind, pol, gpus, a, b),
                           per_job(res, (kind, a, gpus, pol)),
                           per_job(res, (kind, b, gpus, pol)))
            for n in jobs:
                ok = [g for g, _ in clusters
                      if per_job(res, (kind, n, g, pol))]
                if len(ok) >= 2:
                    a, b = ok[0], ok[-1]
                    growth("grid_gpus_growth", "kind=%s policy=%s jobs=%d "
                           "gpus=%d->%d" % (kind, pol, n, a, b),
                           per_job(res, (kind, n, a, pol)),
                           per_job(res, (kind, n, b, pol)))
            for gpus, _ in clusters:
                ok = [n for n in jobs if per_job(res, (kind, n, gpus, pol))]
                if len(ok) < 2:
                    continue
                a, b = ok[-2], ok[-1]
                ra = res[(kind, a, gpus, pol)]["rss_mb"]
                rb = res[(kind, b, gpus, pol)]["rss_mb"]
                print("bench grid_rss kind=%s policy=%s gpus=%d jobs=%d->%d "
                      "rss_mb=%.1f->%.1f kb_per_added_job=%.2f"
                      % (kind, pol, gpus, a, b, ra, rb,
                         (rb - ra) * 1024 / (b - a)))


def report_targets(res):
    for kind, n, gpus, pols, limit in CPU_TARGETS:
        for pol in pols:
            r = res.get((kind, n, gpus, pol))
            if r is None:
                continue
            if r["status"] == "ok":
                verdict = "met" if r["cpu_s"] <= limit else "MISSED"
                got = "cpu_s=%.2f" % r["cpu_s"]
            else:
                verdict, got = "MISSED", "status=%s" % r["status"]
            print("bench grid_target kind=%s jobs=%d gpus=%d policy=%s %s "
                  "(target <= %g s: %s)" % (kind, n, gpus, pol, got, limit,
                                            verdict))


if __name__ == "__main__":
    sys.exit(main())
