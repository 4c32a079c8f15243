#!/usr/bin/python3
# scripts/plot_fliqc_arm.py: plots the CSV of examples/03_fliqc_arm to a PNG: the smallest distance
# from the arm to the sphere over time with and without the FLIQC filter (with the eps and zero
# lines, and a zoom on eps), and the end-effector error of both runs.
#
# Usage: /usr/bin/python3 scripts/plot_fliqc_arm.py INPUT.csv OUTPUT.png
# Needs only Debian's python3 and python3-matplotlib (the Agg backend: no display required).

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_common  # noqa: E402  (scripts/plot_common.py)

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)

COLUMNS = ("t", "eps", "psi_min_guide", "psi_min_fliqc", "ee_error_guide", "ee_error_fliqc",
           "fliqc_active")

GUIDE = ("guide only", "tab:red")
FLIQC = ("guide + claw FliqcFilter", "tab:blue")


def plot(data, png_path):
    t = data["t"]
    eps = data["eps"][0]
    min_guide = min(data["psi_min_guide"])
    min_fliqc = min(data["psi_min_fliqc"])

    fig, (ax_psi, ax_zoom, ax_err) = plt.subplots(
        3, 1, sharex=True, figsize=(9, 9), gridspec_kw={"height_ratios": [3, 1.5, 2]})
    fig.suptitle("FLIQC safety filter on a 7-DOF arm (Panda kinematics) reaching past a sphere\n"
                 "smallest distance of 10 link capsules to the sphere; step 2 ms, "
                 f"filter horizon 0.02 s, eps = {eps:g} m")

    def reference_lines(ax):
        ax.axhline(eps, color="black", linestyle="--", linewidth=1.0, label=f"eps = {eps:g} m")
        ax.axhline(0.0, color="grey", linewidth=0.8, label="contact (psi = 0)")

    reference_lines(ax_psi)
    ax_psi.plot(t, data["psi_min_guide"], color=GUIDE[1], linewidth=1.3,
                label=f"{GUIDE[0]} (min {min_guide * 1000:.1f} mm)")
    ax_psi.plot(t, data["psi_min_fliqc"], color=FLIQC[1], linewidth=1.3,
                label=f"{FLIQC[0]} (min {min_fliqc * 1000:.3f} mm)")
    ax_psi.set_ylabel("min distance psi [m]")
    ax_psi.legend(loc="upper right", fontsize=8.5)
    ax_psi.grid(True, alpha=0.3)

    # Zoom on eps: how the filtered distance rides on the margin while constraints are held.
    reference_lines(ax_zoom)
    ax_zoom.plot(t, data["psi_min_fliqc"], color=FLIQC[1], linewidth=1.3, label=FLIQC[0])
    ax_zoom.set_ylim(eps - 0.005, eps + 0.015)
    ax_zoom.set_ylabel("psi [m], zoom")
    ax_active = ax_zoom.twinx()
    ax_active.step(t, data["fliqc_active"], where="post", color="tab:green", linewidth=0.8,
                   alpha=0.6)
    ax_active.set_ylabel("active distances", color="tab:green")
    ax_active.set_ylim(-0.5, max(max(data["fliqc_active"]), 1) + 1.5)
    ax_zoom.grid(True, alpha=0.3)

    ax_err.plot(t, data["ee_error_guide"], color=GUIDE[1], linewidth=1.3,
                label=f"{GUIDE[0]} (final {data['ee_error_guide'][-1] * 1000:.2f} mm)")
    ax_err.plot(t, data["ee_error_fliqc"], color=FLIQC[1], linewidth=1.3, linestyle="--",
                label=f"{FLIQC[0]} (final {data['ee_error_fliqc'][-1] * 1000:.2f} mm)")
    ax_err.set_yscale("log")
    ax_err.set_xlabel("time t [s]")
    ax_err.set_ylabel("end-effector error [m]")
    ax_err.legend(loc="upper right", fontsize=8.5)
    ax_err.grid(True, which="both", alpha=0.3)

    fig.tight_layout()
    fig.savefig(png_path, dpi=120)
    plt.close(fig)


if __name__ == "__main__":
    sys.exit(plot_common.run("plot_fliqc_arm", COLUMNS, plot))
