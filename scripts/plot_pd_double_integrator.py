#!/usr/bin/python3
# scripts/plot_pd_double_integrator.py: plots the CSV of examples/01_pd_double_integrator to a PNG:
# position from claw against the continuous closed form, the position error, and the effort.
#
# Usage: /usr/bin/python3 scripts/plot_pd_double_integrator.py INPUT.csv OUTPUT.png
# Needs only Debian's python3 and python3-matplotlib (the Agg backend: no display required).

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_common  # noqa: E402  (scripts/plot_common.py)

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)

COLUMNS = ("t", "x", "v", "tau", "x_closed")


def plot(data, png_path):
    t = data["t"]
    error = [x - xc for x, xc in zip(data["x"], data["x_closed"])]
    max_error = max(abs(e) for e in error)

    fig, (ax_x, ax_err, ax_tau) = plt.subplots(
        3, 1, sharex=True, figsize=(8, 8), gridspec_kw={"height_ratios": [3, 1.3, 2]})
    fig.suptitle("claw PdController on a unit-mass double integrator x'' = tau\n"
                 "kp = w², kd = 2/w, w = 10 rad/s, control period 1 ms, x0 = 1 m, v0 = 0")

    ax_x.plot(t, data["x_closed"], color="black", linewidth=3.0, alpha=0.35,
              label="continuous closed form (x0 + (v0 + w x0) t) e^(-w t)")
    ax_x.plot(t, data["x"], color="tab:blue", linewidth=1.2, label="claw PdController + exact ZOH plant")
    ax_x.axhline(0.0, color="grey", linewidth=0.6)
    ax_x.set_ylabel("position x [m]")
    ax_x.legend(loc="upper right")
    ax_x.grid(True, alpha=0.3)

    ax_err.plot(t, error, color="tab:red", linewidth=1.0,
                label=f"x - x_closed (max |error| = {max_error:.2e} m)")
    ax_err.axhline(0.0, color="grey", linewidth=0.6)
    ax_err.set_ylabel("error [m]")
    ax_err.ticklabel_format(axis="y", style="sci", scilimits=(-2, 2))
    ax_err.legend(loc="lower right")
    ax_err.grid(True, alpha=0.3)

    ax_tau.step(t, data["tau"], where="post", color="tab:green", linewidth=1.2,
                label="effort tau (held over each period)")
    ax_tau.axhline(0.0, color="grey", linewidth=0.6)
    ax_tau.set_xlabel("time t [s]")
    ax_tau.set_ylabel("effort tau [N]")
    ax_tau.legend(loc="lower right")
    ax_tau.grid(True, alpha=0.3)

    fig.tight_layout()
    fig.savefig(png_path, dpi=120)
    plt.close(fig)


if __name__ == "__main__":
    sys.exit(plot_common.run("plot_pd_double_integrator", COLUMNS, plot))
