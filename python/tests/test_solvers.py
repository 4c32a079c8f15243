"""FliqcFilter on the FLIQC instances (the C++ conformance test's checks: the certified global
optimum's qdot within 1e-6, or Infeasible with the stop fallback), QpSolver and LcqpSolver on
closed forms."""
import numpy as np
import pytest

import claw
from conftest import array, load_reference, number

S = claw.Status

COSTS = {"IDENTITY": claw.FliqcCostType.Identity, "MASS_MATRIX": claw.FliqcCostType.MassMatrix,
         "JOINT_VELOCITY_ERROR": claw.FliqcCostType.VelocityError,
         "MASS_MATRIX_VELOCITY_ERROR": claw.FliqcCostType.MassMatrixVelocityError}


def fliqc_settings(params):
    settings = dict(quad_cost_type=COSTS[params.get("quad_cost_type", "IDENTITY")],
                    enable_nullspace_projector_in_A=params.get("enable_nullspace_projector_in_A", True),
                    enable_lambda_constraint_in_x=params.get("enable_lambda_constraint_in_x", True),
                    enable_lambda_constraint_in_L=params.get("enable_lambda_constraint_in_L", False),
                    enable_esc_vel_constraint=params.get("enable_esc_vel_constraint", False),
                    active_threshold=float("inf"))
    for key in ("dt", "eps", "q_dot_max", "lambda_cost_penalty", "lambda_max", "esc_vel_max"):
        if params.get(key) is not None:
            settings[key] = number(params[key])
    return settings


def test_fliqc_instances_give_the_global_optimum_or_infeasible():
    instances = load_reference("lcqp", "fliqc_instances.json")["instances"]
    assert instances
    for instance in instances:
        raw = instance["raw"]
        guide, jacobian, psi = array(raw["qdot_guide"]), array(raw["J"]), array(raw["psi"])
        p, p_inv = array(raw["P"]), array(raw["Pinv"])
        fliqc = claw.FliqcFilter(guide.size, **fliqc_settings(instance["params"]))
        feasible = instance["global"]["feasible"]
        for variant in range(2):
            fliqc.reset()
            if variant == 0:
                qdot, lam, status, certified = fliqc.filter(guide, jacobian, psi, p,
                                                            mass=np.eye(guide.size), p_inv=p_inv)
            else:
                qdot, lam, status, certified = fliqc.filter(guide, jacobian, psi, p)
            label = (instance.get("id"), variant)
            assert fliqc.active_count == psi.size, label
            assert certified, label
            if feasible:
                assert status == S.Ok, label
                expected = array(instance["global"]["x"])[: guide.size]
                assert np.max(np.abs(qdot - expected)) <= 1e-6, label
                assert not fliqc.fallback_applied
                assert lam.shape == (psi.size,)
            else:
                assert status == S.Infeasible, label
                assert fliqc.fallback_applied and np.all(qdot == 0.0), label


def test_fliqc_scales_an_inactive_guide_into_the_bounds_and_reports_blocked_rows():
    guide = np.array([0.3, -0.2, 0.1, 0.4])
    jacobian = np.zeros((6, 4))
    jacobian[:3, :3] = np.eye(3)  # the hand is q[0:3]
    on_hand = np.array([[0.0, 0.0, 1.0, 0.0]])  # a distance measured on the hand itself
    fliqc = claw.FliqcFilter(4, q_dot_max=0.2)
    qdot, _, status, _ = fliqc.filter(guide, jacobian, np.array([1.0]), on_hand)
    assert status == S.Ok and fliqc.velocity_scaled
    np.testing.assert_array_equal(qdot, 0.5 * guide)  # min(1, 0.2 / 0.4) guide
    assert fliqc.projector_blocked_count == 0
    fliqc.filter(guide, jacobian, np.array([0.03]), on_hand)
    assert fliqc.projector_blocked_count == 1
    assert fliqc.configure(q_dot_max=0.2, exempt_blocked_rows_from_projector=True) == S.Ok
    qdot, _, status, _ = fliqc.filter(np.array([0.0, 0.0, -0.1, 0.0]), jacobian, np.array([0.0]),
                                      on_hand)
    # psi + dt qdot_z >= eps: qdot_z = (0.02 - 0) / 0.02 = 1, clipped to q_dot_max: infeasible
    # at 0.2, so the cycle stops; with the bound at 2 the hand is pushed away at exactly 1.
    assert status == S.Infeasible and not qdot.any()
    assert fliqc.configure(q_dot_max=2.0, exempt_blocked_rows_from_projector=True) == S.Ok
    qdot, _, status, _ = fliqc.filter(np.array([0.0, 0.0, -0.1, 0.0]), jacobian, np.array([0.0]),
                                      on_hand)
    assert status == S.Ok
    assert qdot[2] == pytest.approx(1.0, abs=1e-9)


def test_qp_solver_box_and_equality():
    qp = claw.QpSolver(2, 1)
    Q, g = np.eye(2), np.array([-1.0, -1.0])
    A = np.array([[1.0, 1.0]])
    # minimise 1/2 |x|^2 - x1 - x2 with x1 + x2 = 1: x = (0.5, 0.5).
    assert qp.solve(Q, g, A, lbA=np.array([1.0]), ubA=np.array([1.0])) == S.Ok
    assert np.allclose(qp.x, [0.5, 0.5], atol=1e-14)
    # Bounds only, x <= 0.25: the clipped unconstrained minimiser.
    box = claw.QpSolver(2)
    assert box.solve(Q, g, ub=np.array([0.25, 0.25])) == S.Ok
    assert np.allclose(box.x, [0.25, 0.25], atol=1e-15)
    assert box.solve(Q, g, lb=np.array([1.0, 0.0]), ub=np.array([0.0, 1.0])) == S.InvalidBounds
    with pytest.raises(ValueError, match=r"Q must have shape \(2, 2\)"):
        box.solve(np.eye(3), g)


def test_lcqp_solver_complementarity():
    # minimise 1/2 |x - (1, 1)|^2 with x >= 0 and x1 x2 = 0: two global optima, objective 1/2.
    solver = claw.LcqpSolver()
    status = solver.solve(np.eye(2), np.array([-1.0, -1.0]), L=np.array([[1.0, 0.0]]),
                          R=np.array([[0.0, 1.0]]))
    assert status == S.Ok
    x = solver.x
    assert min(abs(x[0]), abs(x[1])) <= 1e-12 and abs(max(x) - 1.0) <= 1e-9
    assert solver.certified_global
