#!/usr/bin/python3
"""phold_simpy.py: the PHOLD benchmark of tests/bench/phold.c, in SimPy 3.

The same model, event for event: N LPs, M initial events each addressed to
itself, on each arrival a uniform draw decides a remote send (uniform over all
LPs) and an exponential draw (mean in seconds, rounded to integer ns) gives the
increment.  Time is an integer count of nanoseconds here too, so SimPy orders
events by (time, priority, insertion counter) exactly as the colosim engine
orders them by (time, class, insertion sequence).

Random numbers: each LP owns a random.Random whose MT19937 state is set the
way GSL's gsl_rng_set(mt19937, s) sets it (Knuth's initialisation, not
Python's init_by_array), with s derived from (seed, "phold", index) by the
same SplitMix64/FNV-1a mixing as sim/rng.c.  getrandbits(32) then returns
GSL's gsl_rng_get() draws, and uniform, uniform_int and exponential below are
GSL 2.7's formulas.  So both programs print the same checksum for the same
options; run.sh checks that.

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
import math
import random
import sys
import time

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


def gsl_mt19937(s):
    """A random.Random in the state gsl_rng_set(gsl_rng_mt19937, s) leaves."""
    if s == 0:
        s = 4357
    mt = [s & 0xffffffff]
    for i in range(1, 624):
        mt.append((1812433253 * (mt[-1] ^ (mt[-1] >> 30)) + i) & 0xffffffff)
    r = random.Random()
    r.setstate((3, tuple(mt) + (624,), None))
    return r


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
    rngs = [gsl_mt19937(rng_seed32(a.seed, "phold", i)) for i in range(n)]
    bits = [r.getrandbits for r in rngs]
    count = [0] * n
    tsum = [0] * n
    log1p = math.log1p
    floor = math.floor
    env = simpy.Environment()
    timeout = env.timeout
    done = [0]
    # gsl_rng_uniform_int for MT19937 (min 0, max 2^32-1).
    scale = 0xffffffff // n

    def arrive(lp, now):
        """One PHOLD event at LP lp; returns (delay_ns, destination)."""
        count[lp] += 1
        tsum[lp] += now
        g = bits[lp]
        dest = lp
        if g(32) * INV32 < remote:
            while True:
                dest = g(32) // scale
                if dest < n:
                    break
        # sim_time_from_s(gsl_ran_exponential(r, mean)), inlined.
        x = (-mean_s * log1p(-(g(32) * INV32))) * 1e9
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
            t = llround((-mean_s * log1p(-(g(32) * INV32))) * 1e9)
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
          "python=%s wall_s=%.3f cpu_s=%.3f events_per_s=%.0f"
          % (n, a.init, remote, mean_s, a.seed, a.style, done[0],
             env.now, h, simpy.__version__, sys.version.split()[0], wall_s,
             cpu_s, done[0] / cpu_s))


if __name__ == "__main__":
    main()
