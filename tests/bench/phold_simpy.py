#!/usr/bin/python3
"""phold_simpy.py: the PHOLD benchmark of tests/bench/phold.c, in SimPy 3.

The same model, event for event: N LPs, M initial events each addressed to
itself, on each arrival a uniform draw decides a remote send (uniform over all
LPs) and an exponential draw (mean in seconds, rounded to integer ns) gives the
increment.  Time is an integer count of nanoseconds here too, so SimPy orders
events by (time, priority, insertion counter) exactly as the colosim engine
orders them by (time, class, insertion sequence).

Random numbers: each LP owns a stream of GSL's taus2 generator (L'Ecuyer's
combined Tausworthe, as sim/rng.c), seeded the way gsl_rng_set(taus2, s)
seeds it, with s derived from (seed, "phold", index) by the same
SplitMix64/FNV-1a mixing as sim/rng.c; taus2() below is GSL 2.7's taus_get,
and uniform, uniform_int and exponential are GSL 2.7's formulas.  So both
programs print the same checksum for the same options; run.sh checks that.

Python has no built-in taus2, and one written in Python costs about ten
times what the C-coded random.Random.getrandbits costs, so drawing in the
timed loop would slow SimPy down for a reason that has nothing to do with
SimPy.  The draws are therefore made before the clock starts: each LP gets
an array of its first draws (its expected need plus a margin), read in the
loop through the array iterator's C-coded __next__, which costs what
getrandbits(32) did (about 0.14 us on the reference machine); an LP that
runs out continues in Python (counted as refills= in the output; none in
the standard runs).  rng_setup_s= reports the untimed generation.

Two styles, the same model and the same checksum:
  --style=callback (default): each PHOLD event is a SimPy Timeout with a
    callback, one SimPy event per PHOLD event.  The cheapest way to run a
    pure event-scheduling model in SimPy, so the ratio it yields is the
    conservative one (it also reads env._now and ev._value directly).
  --style=process: each PHOLD event is a SimPy process that waits for its
    Timeout and then handles the arrival, as SimPy's documentation writes
    models; SimPy then runs about three of its own events (process start,
    timeout, process end) per PHOLD event.  Counted events are PHOLD events.

Output: one line `bench phold_simpy key=value ... events_per_s=...`.
Run with /usr/bin/python3 (Debian's python3-simpy3).
"""
import argparse
import itertools
import math
import sys
import time
from array import array

import simpy
from simpy.core import StopSimulation

M64 = (1 << 64) - 1
INV32 = 1.0 / 4294967296.0


def mix64(x):
    """SplitMix64's finaliser, as sim_mix64."""
    x = (x + 0x9e3779b97f4a7c15) & M64
    x = ((x ^ (x >> 30)) * 0xbf58476d1ce4e5b9) & M64
    x = ((x ^ (x >> 27)) * 0x94d049bb133111eb) & M64
    return x ^ (x >> 31)


def hash_str(s):
    """FNV-1a 64, as sim_hash_str."""
    h = 0xcbf29ce484222325
    for b in s.encode():
        h ^= b
        h = (h * 0x100000001b3) & M64
    return h


def rng_seed32(master, name, index):
    """The 32-bit seed sim_rng_init hands to gsl_rng_set."""
    h = mix64(master)
    h = mix64(h ^ hash_str(name))
    seed = mix64(h ^ mix64((index + 0x632be59bd9b4e019) & M64))
    s32 = (seed ^ (seed >> 32)) & 0xffffffff
    return s32 if s32 else 0x5eed


M32 = 0xffffffff


def taus2_state(s):
    """The state gsl_rng_set(gsl_rng_taus2, s) leaves (GSL 2.7 taus2_set),
    before its six warm-up draws."""
    if s == 0:
        s = 1
    s1 = (69069 * s) & M32
    if s1 < 2:
        s1 += 2
    s2 = (69069 * s1) & M32
    if s2 < 8:
        s2 += 8
    s3 = (69069 * s2) & M32
    if s3 < 16:
        s3 += 16
    return [s1, s2, s3]


def taus2(st, count, out):
    """Appends the next count gsl_rng_get() draws of state st to out."""
    s1, s2, s3 = st
    for _ in range(count):
        s1 = (((s1 & 4294967294) << 12) & M32) ^ \
            ((((s1 << 13) & M32) ^ s1) >> 19)
        s2 = (((s2 & 4294967288) << 4) & M32) ^ \
            ((((s2 << 2) & M32) ^ s2) >> 25)
        s3 = (((s3 & 4294967280) << 17) & M32) ^ \
            ((((s3 << 3) & M32) ^ s3) >> 11)
        out.append(s1 ^ s2 ^ s3)
    st[0], st[1], st[2] = s1, s2, s3


def taus2_stream(s, ahead, refills):
    """The draws of stream s as a C-coded __next__: `ahead` draws made
    now, then more in Python, 4096 at a time, if the LP needs them."""
    st = taus2_state(s)
    taus2(st, 6, array("I"))        # GSL's warm-up
    first = array("I")
    taus2(st, ahead, first)

    def more():
        while True:
            refills[0] += 1
            buf = array("I")
            taus2(st, 4096, buf)
            yield from buf
    return itertools.chain(first, more()).__next__


def llround(x):
    """C's llround for x >= 0 (halves away from zero)."""
    f = math.floor(x)
    return f + 1 if x - f >= 0.5 else f


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lps", type=int, default=1024)
    ap.add_argument("--init", type=int, default=16)
    ap.add_argument("--events", type=int, default=1000000)
    ap.add_argument("--remote", type=float, default=0.5)
    ap.add_argument("--mean", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--style", choices=("callback", "process"),
                    default="callback")
    a = ap.parse_args()
    if a.lps < 1 or a.init < 1 or a.events < 1 or not 0 <= a.remote <= 1 \
            or not a.mean > 0 or a.seed < 0:
        ap.error("need --lps, --init, --events >= 1, 0 <= --remote <= 1, "
                 "--mean > 0, --seed >= 0")

    n = a.lps
    remote = a.remote
    mean_s = a.mean
    budget = a.events
    # Draws per LP: init exponentials, then per event one uniform, one
    # exponential and, for a remote send, one or more (rejection) integers;
    # an LP receives budget / n events on average; ten Poisson standard
    # deviations plus 64 of margin (the spread across LPs is wider than
    # Poisson: six left a few LPs short in the 2e6-event run).
    expect = (a.init + budget / n) * (2 + remote)
    ahead = int(expect + 10 * math.sqrt(expect)) + 64
    refills = [0]
    s0 = time.process_time()
    bits = [taus2_stream(rng_seed32(a.seed, "phold", i), ahead, refills)
            for i in range(n)]
    setup_s = time.process_time() - s0
    refills_setup = refills[0]
    count = [0] * n
    tsum = [0] * n
    log1p = math.log1p
    floor = math.floor
    env = simpy.Environment()
    timeout = env.timeout
    done = [0]
    # gsl_rng_uniform_int for taus2 (min 0, max 2^32-1).
    scale = 0xffffffff // n

    def arrive(lp, now):
        """One PHOLD event at LP lp; returns (delay_ns, destination)."""
        count[lp] += 1
        tsum[lp] += now
        g = bits[lp]
        dest = lp
        if g() * INV32 < remote:
            while True:
                dest = g() // scale
                if dest < n:
                    break
        # sim_time_from_s(gsl_ran_exponential(r, mean)), inlined.
        x = (-mean_s * log1p(-(g() * INV32))) * 1e9
        f = floor(x)
        return (f + 1 if x - f >= 0.5 else f), dest

    def event(ev):
        dt, dest = arrive(ev._value, env._now)
        timeout(dt, dest).callbacks.append(event)
        done[0] += 1
        if done[0] == budget:
            raise StopSimulation(None)

    def message(delay, dest):
        yield timeout(delay)
        dt, nxt = arrive(dest, env.now)
        env.process(message(dt, nxt))
        done[0] += 1
        if done[0] == budget:
            raise StopSimulation(None)

    for i in range(n):
        g = bits[i]
        for _ in range(a.init):
            t = llround((-mean_s * log1p(-(g() * INV32))) * 1e9)
            if a.style == "callback":
                timeout(t, i).callbacks.append(event)
            else:
                env.process(message(t, i))

    t0 = time.perf_counter()
    c0 = time.process_time()
    env.run()
    cpu_s = time.process_time() - c0
    wall_s = time.perf_counter() - t0
    if done[0] != budget:
        sys.exit("phold_simpy: ran out of events after %d" % done[0])

    h = 0xcbf29ce484222325
    for i in range(n):
        h = mix64(h ^ count[i])
        h = mix64(h ^ (tsum[i] & M64))
    print("bench phold_simpy lps=%d init=%d remote=%g mean_s=%g seed=%d "
          "style=%s events=%d end_t_ns=%d checksum=%016x simpy=%s "
          "python=%s rng=taus2 rng_setup_s=%.2f refills=%d wall_s=%.3f "
          "cpu_s=%.3f events_per_s=%.0f"
          % (n, a.init, remote, mean_s, a.seed, a.style, done[0],
             env.now, h, simpy.__version__, sys.version.split()[0], setup_s,
             refills[0] - refills_setup, wall_s, cpu_s, done[0] / cpu_s))


if __name__ == "__main__":
    main()
