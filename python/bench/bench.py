#!/usr/bin/env python3
"""claw's Python drop-ins against numba, in one process, interleaved, medians of CPU time.

Usage: PYTHONPATH=<build tree> python3 python/bench/bench.py [--repetitions R] [--quick]

Functions: integrate_zoh and pd_controller, claw's (claw.integrate_zoh, claw.pd_controller) and
numba's (numba_jiminy.py: gym_jiminy's algorithm, fastmath off, which reproduces the jiminy
reference vectors bit for bit; gym_jiminy itself compiles with fastmath on, shown for information),
plus claw.PdController.update (the class: the same kernel without the per-call checks of a
stateless function). Sizes: N = 7 (one robot, per call) and 4096 robots x 12 joints = 49152 joints
(per joint).

Scenario (benchmarks/bench_pd.cpp's): bounds position +-2, velocity +-5, acceleration +-100,
kp 100, kd 0.01 s, effort limit 50, control_dt 1 ms; the target acceleration a square wave +-A_j
(A_j in [20, 90]) held 40 control periods, as a PD adapter feeds it: the state is periodic and
stays inside its bounds. Each timed block starts from the same state and runs whole periods
(160 calls), writing the target into the command state every 40 calls (inside the timing, for
every implementation alike). Blocks of the implementations alternate, their order rotating per
repetition; the figure is the median over repetitions of the block's CPU time (process_time) per
call, or per joint for the batch. Wall-clock medians are printed too: on a loaded machine they
include time spent waiting for the CPU.
"""
import argparse
import statistics
import sys
import time

import numpy as np

import claw

try:
    import numba_jiminy
except ImportError:  # numba missing (the module imports numba)
    numba_jiminy = None

PERIOD = 160
HOLD = 40


def scenario(n, seed=12345):
    rng = np.random.default_rng(seed)
    amplitude = rng.uniform(20.0, 90.0, n)
    phase = rng.integers(0, 4, n)
    targets = np.empty((4, n))
    for segment in range(4):
        targets[segment] = np.where((segment + phase) % 4 < 2, amplitude, -amplitude)
    start_velocity = np.stack([-amplitude * HOLD * 1e-3, np.zeros(n), amplitude * HOLD * 1e-3,
                               np.zeros(n)])[phase, np.arange(n)]
    state = np.zeros((3, n))
    state[0] = rng.uniform(-1.0, 1.0, n)
    state[1] = start_velocity
    lower = np.tile(np.array([[-2.0], [-5.0], [-100.0]]), (1, n))
    upper = -lower
    q = state[0] + rng.uniform(-0.6, 0.6, n)
    v = state[1] + rng.uniform(-1.0, 1.0, n)
    return dict(state=state, lower=lower, upper=upper, q=q, v=v, targets=targets,
                kp=np.full(n, 100.0), kd=np.full(n, 0.01), limit=np.full(n, 50.0), dt=1e-3)


def make_runners(n, numba_pair, numba_fast_pair):
    """name -> (function, prepare): prepare() gives a fresh block runner (state copied in)."""
    s = scenario(n)
    runners = {}

    def pd_block(pd):
        def prepare():
            state = s["state"].copy()
            out = np.zeros(n)
            q, v, lo, hi, kp, kd, lim, dt, targets = (s["q"], s["v"], s["lower"], s["upper"],
                                                      s["kp"], s["kd"], s["limit"], s["dt"],
                                                      s["targets"])
            accel = state[2]

            def run(periods):
                for _ in range(periods):
                    for segment in range(4):
                        accel[:] = targets[segment]
                        for _ in range(HOLD):
                            pd(q, v, state, lo, hi, kp, kd, lim, dt, out)
            return run
        return prepare

    def zoh_block(zoh):
        def prepare():
            state = s["state"].copy()
            lo, hi, dt, targets = s["lower"], s["upper"], s["dt"], s["targets"]
            accel = state[2]

            def run(periods):
                for _ in range(periods):
                    for segment in range(4):
                        accel[:] = targets[segment]
                        for _ in range(HOLD):
                            zoh(state, lo, hi, dt)
            return run
        return prepare

    def class_block():
        def prepare():
            block = claw.PdController(n, command_state_lower=s["lower"],
                                      command_state_upper=s["upper"], kp=s["kp"], kd=s["kd"],
                                      effort_limit=s["limit"], control_dt=s["dt"])
            assert block.set_command_state(s["state"]) == claw.Status.Ok
            out = np.zeros(n)
            q, v, targets = s["q"], s["v"], s["targets"]
            update = block.update

            def run(periods):
                for _ in range(periods):
                    for segment in range(4):
                        target = targets[segment]
                        for _ in range(HOLD):
                            update(q, v, target, out)
            return run
        return prepare

    runners["pd_controller"] = {"claw": pd_block(claw.pd_controller)}
    runners["integrate_zoh"] = {"claw": zoh_block(claw.integrate_zoh)}
    if numba_pair:
        runners["pd_controller"]["numba"] = pd_block(numba_pair[1])
        runners["integrate_zoh"]["numba"] = zoh_block(numba_pair[0])
        runners["pd_controller"]["numba fastmath"] = pd_block(numba_fast_pair[1])
        runners["integrate_zoh"]["numba fastmath"] = zoh_block(numba_fast_pair[0])
    runners["pd_controller"]["claw.PdController.update"] = class_block()
    return runners


def measure(runners, periods, repetitions):
    """name -> (median CPU s per call, median wall s per call), blocks interleaved."""
    names = list(runners)
    cpu = {k: [] for k in names}
    wall = {k: [] for k in names}
    for name in names:  # warm-up (numba compiles here)
        runners[name]()(1)
    for r in range(repetitions):
        order = names[r % len(names):] + names[:r % len(names)]
        for name in order:
            run = runners[name]()
            c0, w0 = time.process_time_ns(), time.perf_counter_ns()
            run(periods)
            c1, w1 = time.process_time_ns(), time.perf_counter_ns()
            calls = periods * PERIOD
            cpu[name].append((c1 - c0) * 1e-9 / calls)
            wall[name].append((w1 - w0) * 1e-9 / calls)
    return {k: (statistics.median(cpu[k]), statistics.median(wall[k])) for k in names}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repetitions", type=int, default=9)
    parser.add_argument("--quick", action="store_true", help="fewer calls (a smoke run)")
    args = parser.parse_args()
    numba_pair = numba_fast_pair = None
    if numba_jiminy is None:
        print("bench: numba is not installed (Debian python3-numba): the comparison is skipped, "
              "claw's figures only")
    else:
        numba_pair = numba_jiminy.make(fastmath=False)
        numba_fast_pair = numba_jiminy.make(fastmath=True)
    targets = {7: 2.0, 49152: 15.0}
    failures = []
    print(f"{'function':<14} {'N':>6} {'implementation':<26} {'CPU':>12} {'wall':>12}  unit")
    for n, periods, unit in ((7, 25, "us/call"), (49152, 1, "ns/joint")):
        if args.quick:
            periods = max(1, periods // 5)
        scale = 1e6 if n == 7 else 1e9 / n
        for function, runners in make_runners(n, numba_pair, numba_fast_pair).items():
            results = measure(runners, periods, max(3, args.repetitions // (2 if args.quick else 1)))
            for name, (c, w) in results.items():
                print(f"{function:<14} {n:>6} {name:<26} {c * scale:>12.3f} {w * scale:>12.3f}  {unit}")
            if "numba" in results:
                ratio = results["numba"][0] / results["claw"][0]
                goal = targets[n]
                verdict = "meets" if ratio >= goal else "MISSES"
                print(f"{function:<14} {n:>6} {'numba / claw (CPU)':<26} {ratio:>12.2f}"
                      f"              target >= {goal:g}x: {verdict}")
                if ratio < goal:
                    failures.append(f"{function} N={n}: {ratio:.2f}x < {goal:g}x")
    if failures:
        print("bench: targets missed: " + "; ".join(failures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
