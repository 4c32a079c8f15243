#!/usr/bin/env python3
"""1000 robots x 12 joints of a double integrator (m q'' = u + d, a constant disturbance d), driven
from numpy by claw in one call per control period: gym_jiminy's PD block (PdAdapter + PdController:
the command state integrated at 1 kHz from a position action every 40 ms) and a PID (claw.Pid,
which removes the disturbance's steady-state error the PD keeps) side by side.

Usage: PYTHONPATH=build/python python3 examples/python/pd_batched.py [OUT.png]
       (default build/demo/pd_batched.png; run by scripts/demo)
"""
import pathlib
import sys
import time

import numpy as np

import claw

ROBOTS, JOINTS = 1000, 12
N = ROBOTS * JOINTS
DT = 1e-3          # control period [s]
STEP_DT = 0.04     # agent step [s]
T = 3.0            # simulated time [s]
MASS = 1.0         # [kg m^2]
DISTURBANCE = -4.0  # constant effort on every joint [N m] (gravity-like)


def main():
    out_png = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "build/demo/pd_batched.png")
    rng = np.random.default_rng(1)
    goal = rng.uniform(-1.0, 1.0, N)  # target position of every joint [rad]
    lower = np.tile(np.array([[-2.0], [-4.0], [-60.0]]), (1, N))
    upper = -lower
    kp, kd, limit = np.full(N, 100.0), np.full(N, 0.2), np.full(N, 40.0)

    pd = claw.PdController(N, command_state_lower=lower, command_state_upper=upper, kp=kp, kd=kd,
                           effort_limit=limit, control_dt=DT)
    adapter = claw.PdAdapter(N, order=claw.PdActionOrder.Position, step_dt=STEP_DT)
    # The PID: the PD's parallel gains (kp, kp kd) plus an integral, clamped like the PD.
    pid = claw.Pid(N, kp=100.0, ki=200.0, kd=100.0 * 0.2, dt=DT, effort_limit=40.0,
                   anti_windup=claw.AntiWindup.Conditional)

    q_pd, v_pd = np.zeros(N), np.zeros(N)
    q_pid, v_pid = np.zeros(N), np.zeros(N)
    u_pd, u_pid, target_acc = np.zeros(N), np.zeros(N), np.zeros(N)
    assert pd.reset(q_pd, v_pd, u_pd) == claw.Status.Ok
    steps = int(round(T / DT))
    hold = int(round(STEP_DT / DT))
    times, err_pd, err_pid = [], [], []
    spent = 0.0
    for k in range(steps):
        start = time.perf_counter()
        if k % hold == 0:
            assert adapter.update(goal, pd, target_acc) == claw.Status.Ok
        assert pd.update(q_pd, v_pd, target_acc, u_pd) == claw.Status.Ok
        assert pid.update(goal, q_pid, v_pid, u_pid) == claw.Status.Ok
        spent += time.perf_counter() - start
        # Semi-implicit Euler of m q'' = u + d for both sets of robots.
        v_pd += DT * (u_pd + DISTURBANCE) / MASS
        q_pd += DT * v_pd
        v_pid += DT * (u_pid + DISTURBANCE) / MASS
        q_pid += DT * v_pid
        if k % 10 == 0:
            times.append(k * DT)
            err_pd.append(np.percentile(np.abs(goal - q_pd), [50, 95]))
            err_pid.append(np.percentile(np.abs(goal - q_pid), [50, 95]))
    err_pd, err_pid = np.array(err_pd), np.array(err_pid)
    print(f"pd_batched: {ROBOTS} robots x {JOINTS} joints, {steps} periods; claw calls took "
          f"{spent / steps * 1e6:.0f} us per period ({spent / steps / N * 1e9:.1f} ns per joint, "
          f"adapter + PD + PID)")
    print(f"pd_batched: final |error| median PD {err_pd[-1, 0]:.4f} rad, PID {err_pid[-1, 0]:.2e} rad")

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(8, 4.5))
    ax.semilogy(times, err_pd[:, 0], "C0-", label="PD block (PdAdapter + PdController), median")
    ax.semilogy(times, err_pd[:, 1], "C0--", label="PD, 95th percentile")
    ax.semilogy(times, err_pid[:, 0], "C1-", label="Pid, median")
    ax.semilogy(times, err_pid[:, 1], "C1--", label="Pid, 95th percentile")
    ax.set_xlabel("time [s]")
    ax.set_ylabel("|q* - q| [rad]")
    ax.set_title(f"{ROBOTS} robots x {JOINTS} joints, double integrator, disturbance {DISTURBANCE} N m")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    out_png.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(out_png, dpi=110)
    print(f"pd_batched: wrote {out_png}")


if __name__ == "__main__":
    main()
