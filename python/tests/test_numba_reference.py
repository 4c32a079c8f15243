"""The benchmark's numba baseline (python/bench/numba_jiminy.py, fastmath off) reproduces the
jiminy reference vectors bit for bit: it is gym_jiminy's algorithm. Skipped without numba."""
import pathlib
import sys

import numpy as np
import pytest

from conftest import array, bits_equal, load_reference, number

numba = pytest.importorskip("numba")
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "bench"))
import numba_jiminy  # noqa: E402


def test_numba_baseline_reproduces_the_reference_vectors():
    integrate_zoh, pd_controller = numba_jiminy.make(fastmath=False)
    for c in load_reference("jiminy", "integrate_zoh.json"):
        state = array(c["state"])
        integrate_zoh(state, array(c["state_min"]), array(c["state_max"]), number(c["dt"]))
        assert bits_equal(state, array(c["expected_state"])), c["id"]
    for c in load_reference("jiminy", "pd_controller.json"):
        encoder = array(c["encoder_data"])
        state = array(c["command_state"])
        out = np.zeros(state.shape[1])
        pd_controller(np.ascontiguousarray(encoder[0]), np.ascontiguousarray(encoder[1]), state,
                      array(c["command_state_lower"]), array(c["command_state_upper"]),
                      array(c["kp"]), array(c["kd"]), array(c["motors_effort_limit"]),
                      number(c["control_dt"]), out)
        assert bits_equal(state, array(c["expected_command_state"])), c["id"]
        assert bits_equal(out, array(c["expected_out"])), c["id"]
