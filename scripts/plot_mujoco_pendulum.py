#!/usr/bin/python3
# scripts/plot_mujoco_pendulum.py: plots the CSV of examples/02_mujoco_pendulum to a PNG. Left: the
# three joint angles against the target and the predicted PD sag, with a zoom on the target, and the
# torques. Right: the PID with anti-windup beside the same PID without it (angle and torque).
#
# Usage: /usr/bin/python3 scripts/plot_mujoco_pendulum.py INPUT.csv OUTPUT.png
# Needs only Debian's python3 and python3-matplotlib (the Agg backend: no display required).

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_common  # noqa: E402  (scripts/plot_common.py)

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)

COLUMNS = ("t", "q_pd", "q_pd_ff", "q_pid", "tau_pd", "tau_pd_ff", "tau_pid", "target",
           "q_pid_no_aw", "tau_pid_no_aw")

# The example's parameters (examples/02_mujoco_pendulum.cpp; the CSV does not carry them).
MASS = 1.0          # m [kg]
LENGTH = 0.5        # l [m]
GRAVITY = 9.81      # g [m/s^2]
KP = 100.0          # [N m/rad]
EFFORT_LIMIT = 1.5 * MASS * GRAVITY * LENGTH  # [N m]

SERIES = (  # column suffix, label, colour
    ("pd", "(a) PD", "tab:red"),
    ("pd_ff", "(b) PD + gravity feedforward (qfrc_bias)", "tab:blue"),
    ("pid", "(c) PID, back-calculation anti-windup", "tab:green"),
)
WINDUP_SERIES = (  # the right column: column suffix, label, colour, line style
    ("pid", "(c) PID, back-calculation anti-windup", "tab:green", "-"),
    ("pid_no_aw", "the same PID without anti-windup", "tab:purple", "--"),
)


def plot(data, png_path):
    t = data["t"]
    target = data["target"][-1]
    holding_torque = MASS * GRAVITY * LENGTH
    sag = holding_torque / KP
    predicted_pd = target - sag

    fig, ((ax_q, ax_windup_q), (ax_tau, ax_windup_tau)) = plt.subplots(
        2, 2, sharex=True, figsize=(16, 8.5), gridspec_kw={"height_ratios": [3, 2]})
    fig.suptitle("MuJoCo pendulum held horizontal by claw controllers\n"
                 f"m = {MASS:g} kg, l = {LENGTH:g} m, kp = {KP:g} N m/rad, effort limit "
                 f"{EFFORT_LIMIT:.3g} N m = 1.5 m g l, control period 1 ms")

    def reference_lines(ax):
        ax.plot(t, data["target"], color="black", linestyle="--", linewidth=1.0, zorder=4,
                label="target q* = pi/2 (horizontal)")
        ax.axhline(predicted_pd, color="tab:red", linestyle=":", linewidth=1.4,
                   label=f"predicted PD sag: q* - m g l / kp = q* - {sag:.4f} rad")

    reference_lines(ax_q)
    for suffix, label, colour in SERIES:
        ax_q.plot(t, data["q_" + suffix], color=colour, linewidth=1.3, label=label)
    ax_q.set_ylabel("joint angle q [rad]")
    ax_q.legend(loc="lower right", fontsize=8.5)
    ax_q.grid(True, alpha=0.3)

    # Zoom on the target: the sag is a few percent of the swing.
    zoom = ax_q.inset_axes([0.40, 0.36, 0.57, 0.34])
    zoom.plot(t, data["target"], color="black", linestyle="--", linewidth=1.0, zorder=4)
    zoom.axhline(predicted_pd, color="tab:red", linestyle=":", linewidth=1.4)
    for suffix, _, colour in SERIES:
        zoom.plot(t, data["q_" + suffix], color=colour, linewidth=1.2)
    zoom.set_xlim(0.3, t[-1])
    zoom.set_ylim(target - 2.0 * sag, target + 2.0 * sag)
    zoom.set_title("zoom around q*", fontsize=8.5)
    zoom.tick_params(labelsize=7.5)
    zoom.grid(True, alpha=0.3)

    ax_tau.axhline(holding_torque, color="grey", linestyle="--", linewidth=0.9,
                   label=f"m g l = {holding_torque:.3f} N m (holding torque at q*)")
    ax_tau.axhline(EFFORT_LIMIT, color="black", linestyle=":", linewidth=0.9,
                   label="effort limit +-1.5 m g l")
    ax_tau.axhline(-EFFORT_LIMIT, color="black", linestyle=":", linewidth=0.9)
    for suffix, label, colour in SERIES:
        ax_tau.step(t, data["tau_" + suffix], where="post", color=colour, linewidth=1.1,
                    label=label.split(",")[0])
    ax_tau.set_xlabel("time t [s]")
    ax_tau.set_ylabel("joint torque [N m]")
    ax_tau.set_ylim(-1.25 * EFFORT_LIMIT, 1.25 * EFFORT_LIMIT)
    ax_tau.legend(loc="lower right", fontsize=8.5, ncol=2)
    ax_tau.grid(True, alpha=0.3)

    # Without anti-windup the integral keeps growing while the drive is saturated; the stored
    # effort then has to be unwound by an error of the other sign: a large overshoot.
    ax_windup_q.plot(t, data["target"], color="black", linestyle="--", linewidth=1.0, zorder=4,
                     label="target q*")
    for suffix, label, colour, style in WINDUP_SERIES:
        q = data["q_" + suffix]
        overshoot = max(q) - target
        ax_windup_q.plot(t, q, color=colour, linestyle=style, linewidth=1.3,
                         label=f"{label} (overshoot {overshoot:.3f} rad)")
    ax_windup_q.set_title("why anti-windup matters: the PID (c) with and without it", fontsize=10)
    ax_windup_q.set_ylabel("joint angle q [rad]")
    ax_windup_q.legend(loc="lower right", fontsize=8.5)
    ax_windup_q.grid(True, alpha=0.3)

    ax_windup_tau.axhline(EFFORT_LIMIT, color="black", linestyle=":", linewidth=0.9,
                          label="effort limit +-1.5 m g l")
    ax_windup_tau.axhline(-EFFORT_LIMIT, color="black", linestyle=":", linewidth=0.9)
    for suffix, label, colour, style in WINDUP_SERIES:
        tau = data["tau_" + suffix]
        saturated = sum(1 for value in tau if abs(value) >= EFFORT_LIMIT)
        ax_windup_tau.step(t, tau, where="post", color=colour, linestyle=style, linewidth=1.1,
                           label=f"{label.split(',')[0]}: {saturated} periods at the limit")
    ax_windup_tau.set_xlabel("time t [s]")
    ax_windup_tau.set_ylabel("joint torque [N m]")
    ax_windup_tau.set_ylim(-1.25 * EFFORT_LIMIT, 1.25 * EFFORT_LIMIT)
    ax_windup_tau.legend(loc="lower right", fontsize=8.5)
    ax_windup_tau.grid(True, alpha=0.3)

    fig.tight_layout()
    fig.savefig(png_path, dpi=120)
    plt.close(fig)


if __name__ == "__main__":
    sys.exit(plot_common.run("plot_mujoco_pendulum", COLUMNS, plot))
