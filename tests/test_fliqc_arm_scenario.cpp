// tests/test_fliqc_arm_scenario.cpp: examples/03_fliqc_arm's scenario
// (examples/fliqc_arm_scenario.hpp): Panda forward kinematics against hand-computed values, the
// Jacobians and distance projectors against central finite differences, the guide, the unfiltered
// run (reaches the goal, but its forearm passes through the sphere), and the 2000 cycles through
// claw's FLIQC filter.
#include <catch2/catch.hpp>

#include <Eigen/Core>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <random>

#include "../examples/fliqc_arm_scenario.hpp"
#include "claw/filters/fliqc.hpp"
#include "support/solver_instances.hpp"

using namespace claw_examples;

namespace {

constexpr double kStep = 1e-6;  // finite-difference step [rad]
constexpr double kFdTolerance = 1e-6;
constexpr double kEps = 0.02;              // FLIQC's default safety margin [m]
constexpr double kActiveThreshold = 0.05;  // FLIQC's default activation distance [m]

/// A few configurations: zero, ready, and random ones within the Panda's joint ranges.
std::array<JointVector, 6> test_configurations() {
  std::array<JointVector, 6> qs;
  qs[0] = JointVector::Zero();
  qs[1] = panda_ready_pose();
  const JointVector lower = (JointVector() << -2.8, -1.7, -2.8, -3.0, -2.8, 0.0, -2.8).finished();
  const JointVector upper = (JointVector() << 2.8, 1.7, 2.8, -0.1, 2.8, 3.7, 2.8).finished();
  std::mt19937 rng(4);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (std::size_t c = 2; c < qs.size(); ++c)
    for (Eigen::Index j = 0; j < 7; ++j) qs[c](j) = lower(j) + unit(rng) * (upper(j) - lower(j));
  return qs;
}

/// The angular velocity w with R' = [w]x R, from R(q +- h e_j).
Vector3 angular_difference(const Matrix3& plus, const Matrix3& minus, const Matrix3& r) {
  const Matrix3 w = (plus - minus) / (2 * kStep) * r.transpose();
  return Vector3(0.5 * (w(2, 1) - w(1, 2)), 0.5 * (w(0, 2) - w(2, 0)), 0.5 * (w(1, 0) - w(0, 1)));
}

Vector3 control_point_position(const JointVector& q, const ControlPoint& cp) {
  const PandaPose pose = forward_kinematics(q);
  return pose.link[static_cast<std::size_t>(cp.link)].apply(cp.local);
}

}  // namespace

TEST_CASE("Panda forward kinematics of the zero configuration", "[fliqc_arm]") {
  // q = 0: every joint axis is vertical or horizontal, the arm stands straight up. By hand:
  // o1 = o2 = (0, 0, 0.333); o3 = (0, 0, 0.333 + 0.316); o4 = o3 + (0.0825, 0, 0);
  // o5 = o6 = (0.0825 - 0.0825, 0, 0.649 + 0.384); o7 = o6 + (0.088, 0, 0), its z pointing down
  // (frame 7 = RotX(pi) in the base); flange 0.107 below o7; fingertip centre 0.1034 below it.
  const PandaPose pose = forward_kinematics(JointVector::Zero());
  const std::array<Vector3, 8> origins = {Vector3(0, 0, 0),          Vector3(0, 0, 0.333),
                                          Vector3(0, 0, 0.333),      Vector3(0, 0, 0.649),
                                          Vector3(0.0825, 0, 0.649), Vector3(0, 0, 1.033),
                                          Vector3(0, 0, 1.033),      Vector3(0.088, 0, 1.033)};
  for (std::size_t k = 0; k < origins.size(); ++k) {
    INFO("frame " << k);
    CHECK((pose.link[k].origin - origins[k]).norm() < 1e-12);
  }
  // Joint axes z_k in the base: z1 up; z2 = RotX(-pi/2) e_z = +y; z3 up; z4 = RotX(pi/2) e_z = -y;
  // z5 up; z6 -y; z7 = RotX(pi) e_z down.
  const std::array<Vector3, 7> axes = {Vector3(0, 0, 1),  Vector3(0, 1, 0), Vector3(0, 0, 1),
                                       Vector3(0, -1, 0), Vector3(0, 0, 1), Vector3(0, -1, 0),
                                       Vector3(0, 0, -1)};
  for (std::size_t k = 0; k < axes.size(); ++k) {
    INFO("axis of joint " << k + 1);
    CHECK((pose.link[k + 1].rotation.col(2) - axes[k]).norm() < 1e-12);
  }
  CHECK((pose.flange.origin - Vector3(0.088, 0, 0.926)).norm() < 1e-12);
  CHECK((pose.end_effector.origin - Vector3(0.088, 0, 0.926 - 0.1034)).norm() < 1e-12);
  // Flange orientation RotX(pi); the hand is turned by -pi/4 about the (downward) flange z.
  CHECK((pose.flange.rotation - Vector3(1, -1, -1).asDiagonal().toDenseMatrix()).norm() < 1e-12);
  const double s = std::sqrt(0.5);
  Matrix3 hand;
  hand << s, s, 0, s, -s, 0, 0, 0, -1;
  CHECK((pose.end_effector.rotation - hand).norm() < 1e-12);
}

TEST_CASE("Panda ready pose puts the fingertips where Franka's demos have them", "[fliqc_arm]") {
  const PandaPose pose = forward_kinematics(panda_ready_pose());
  // franka_ros reports the hand's TCP (O_T_EE) at about (0.307, 0, 0.487) in this pose, pointing
  // straight down, with the flange 0.1034 above it.
  CHECK(pose.end_effector.origin.x() == Approx(0.3069).margin(1e-4));
  CHECK(std::abs(pose.end_effector.origin.y()) < 1e-12);
  CHECK(pose.end_effector.origin.z() == Approx(0.4869).margin(1e-4));
  CHECK((pose.end_effector.origin - (pose.flange.origin - Vector3(0, 0, kHandOffset))).norm() <
        1e-12);
  CHECK((pose.end_effector.rotation.col(2) - Vector3(0, 0, -1)).norm() < 1e-12);
}

TEST_CASE("End-effector Jacobian matches central finite differences", "[fliqc_arm]") {
  for (const JointVector& q : test_configurations()) {
    const PandaPose pose = forward_kinematics(q);
    Jacobian jac;
    end_effector_jacobian(pose, jac);
    Jacobian fd;
    for (Eigen::Index j = 0; j < 7; ++j) {
      JointVector qp = q, qm = q;
      qp(j) += kStep;
      qm(j) -= kStep;
      const PandaPose plus = forward_kinematics(qp), minus = forward_kinematics(qm);
      fd.block<3, 1>(0, j) = (plus.end_effector.origin - minus.end_effector.origin) / (2 * kStep);
      fd.block<3, 1>(3, j) = angular_difference(
          plus.end_effector.rotation, minus.end_effector.rotation, pose.end_effector.rotation);
    }
    INFO("q = " << q.transpose());
    CHECK((jac - fd).cwiseAbs().maxCoeff() <= kFdTolerance);
  }
}

TEST_CASE("Point Jacobians of the control points match finite differences", "[fliqc_arm]") {
  const ControlPoints points = panda_control_points();
  for (const JointVector& q : test_configurations()) {
    const PandaPose pose = forward_kinematics(q);
    for (const ControlPoint& cp : points) {
      const Vector3 p = pose.link[static_cast<std::size_t>(cp.link)].apply(cp.local);
      PositionJacobian jp;
      point_jacobian(pose, cp.link, p, jp);
      PositionJacobian fd;
      for (Eigen::Index j = 0; j < 7; ++j) {
        JointVector qp = q, qm = q;
        qp(j) += kStep;
        qm(j) -= kStep;
        fd.col(j) = (control_point_position(qp, cp) - control_point_position(qm, cp)) / (2 * kStep);
      }
      INFO("q = " << q.transpose() << ", point on link " << cp.link << " at "
                  << cp.local.transpose());
      CHECK((jp - fd).cwiseAbs().maxCoeff() <= kFdTolerance);
      // Joints after the point's link do not move it: exactly zero columns.
      for (int j = cp.link; j < 7; ++j) CHECK(jp.col(j).isZero(0.0));
    }
  }
  // The end effector as a point on link 7 gives the Jacobian's translational rows.
  const PandaPose pose = forward_kinematics(panda_ready_pose());
  Jacobian jac;
  end_effector_jacobian(pose, jac);
  PositionJacobian jp;
  point_jacobian(pose, 7, pose.end_effector.origin, jp);
  CHECK((jp - jac.topRows<3>()).cwiseAbs().maxCoeff() <= 1e-15);
}

TEST_CASE("Distance projectors P_i match finite differences of psi_i", "[fliqc_arm]") {
  const ScenarioConfig cfg = default_scenario();
  for (const JointVector& q : test_configurations()) {
    DistanceVector psi;
    DistanceProjector projector;
    obstacle_distances(forward_kinematics(q), cfg.obstacle, cfg.points, psi, projector);
    DistanceProjector fd;
    for (Eigen::Index j = 0; j < 7; ++j) {
      JointVector qp = q, qm = q;
      qp(j) += kStep;
      qm(j) -= kStep;
      DistanceVector psi_p, psi_m;
      DistanceProjector unused;
      obstacle_distances(forward_kinematics(qp), cfg.obstacle, cfg.points, psi_p, unused);
      obstacle_distances(forward_kinematics(qm), cfg.obstacle, cfg.points, psi_m, unused);
      fd.col(j) = (psi_p - psi_m) / (2 * kStep);
    }
    INFO("q = " << q.transpose());
    CHECK((projector - fd).cwiseAbs().maxCoeff() <= kFdTolerance);
    // psi_i by its definition, point by point.
    const PandaPose pose = forward_kinematics(q);
    for (std::size_t i = 0; i < cfg.points.size(); ++i) {
      const ControlPoint& cp = cfg.points[i];
      const Vector3 p = pose.link[static_cast<std::size_t>(cp.link)].apply(cp.local);
      CHECK(
          psi(static_cast<Eigen::Index>(i)) ==
          Approx((p - cfg.obstacle.centre).norm() - cfg.obstacle.radius - cp.radius).margin(1e-14));
    }
  }
}

TEST_CASE("Guide: damped pseudo-inverse of the clipped task-space velocity", "[fliqc_arm]") {
  const ScenarioConfig cfg = default_scenario();
  const PandaPose pose = forward_kinematics(cfg.q0);
  Jacobian jac;
  end_effector_jacobian(pose, jac);
  const JointVector qdot = guide_velocity(pose, jac, cfg.goal, cfg.gains);
  const PositionJacobian jp = jac.topRows<3>();
  // The goal is far: the task velocity is clipped to max_speed along the goal direction.
  const Vector3 v = cfg.gains.max_speed * (cfg.goal - pose.end_effector.origin).normalized();
  // Jp Jp' (Jp Jp' + mu^2 I)^-1 v: v up to the damping's share (mu^2 / sigma^2 ~ 1e-2 here).
  const Vector3 achieved = jp * qdot;
  CHECK((achieved - v).norm() <= 0.02 * v.norm());
  CHECK(achieved.dot(v) > 0.98 * v.squaredNorm());
  // And exactly the formula, against a general solver.
  const Matrix3 damped =
      jp * jp.transpose() + cfg.gains.damping * cfg.gains.damping * Matrix3::Identity();
  const JointVector expected = jp.transpose() * damped.inverse() * v;
  CHECK((qdot - expected).cwiseAbs().maxCoeff() <= 1e-12);
  // The guide lives in the row space of Jp: no nullspace motion of its own.
  const Eigen::Matrix<double, 7, 7> nullspace =
      Eigen::Matrix<double, 7, 7>::Identity() -
      jp.transpose() * (jp * jp.transpose()).inverse() * jp;
  CHECK((nullspace * qdot).norm() <= 1e-12);
}

TEST_CASE("Unfiltered scenario reaches the goal through the sphere", "[fliqc_arm]") {
  const ScenarioConfig cfg = default_scenario();
  const ScenarioLog log = run_scenario(cfg, IdentityFilter{});
  REQUIRE(log.time.size() == static_cast<std::size_t>(cfg.cycles));
  REQUIRE(log.min_distance.size() == log.time.size());
  REQUIRE(log.ee_error.size() == log.time.size());

  // It starts clear of the filter's activation distance, reaches the goal...
  CHECK(log.min_distance.front() > kActiveThreshold);
  CHECK(log.final_ee_error < 2e-3);
  CHECK(log.ee_error.front() > 0.5);
  // ...but the arm goes into the sphere: below eps, and below zero (penetration).
  CHECK(log.overall_min_distance() < kEps);
  CHECK(log.overall_min_distance() < -0.04);
  // A bare qdot is logged as Ok with no time and no active count.
  CHECK(log.not_ok_fraction() == 0.0);
  CHECK(std::isnan(log.filter_time_us.front()));
  CHECK(log.active_count.front() == -1);
  CHECK(log.time[1] == Approx(cfg.dt));
}

TEST_CASE("Unfiltered scenario: only the arm meets the sphere, never the hand", "[fliqc_arm]") {
  // The filter (with FLIQC's default nullspace projector) leaves the end-effector position
  // velocity to the guide. The scenario is solvable by it only if the hand's own capsules (the
  // points on links 6 (joint 7 housing) and 7) stay outside the activation distance along the
  // guide's path, while the elbow and forearm points go into the sphere.
  const ScenarioConfig cfg = default_scenario();
  JointVector q = cfg.q0;
  ScenarioState s;
  DistanceVector lowest = DistanceVector::Constant(1e9);
  for (long k = 0; k <= cfg.cycles; ++k) {
    evaluate(cfg, q, s);
    lowest = lowest.cwiseMin(s.psi);
    q += cfg.dt * s.qdot_guide;
  }
  double hand = 1e9, arm = 1e9;
  for (int i = 0; i < kControlPoints; ++i) {
    const ControlPoint& cp = cfg.points[static_cast<std::size_t>(i)];
    const bool on_hand = cp.link == 7 || (cp.link == 6 && cp.local.x() > 0.0);
    (on_hand ? hand : arm) = std::min(on_hand ? hand : arm, lowest(i));
  }
  CHECK(hand > 2 * kActiveThreshold);
  CHECK(arm < 0.0);
  // End-effector path: the goal lies outside the sphere, with room for the hand.
  CHECK((cfg.goal - cfg.obstacle.centre).norm() > cfg.obstacle.radius + 0.2);
}

TEST_CASE("run_scenario logs what a FilterStep reports and applies its qdot", "[fliqc_arm]") {
  ScenarioConfig cfg = default_scenario();
  cfg.cycles = 10;
  int calls = 0;
  const ScenarioLog log =
      run_scenario(cfg, [&calls](const JointVector& qdot_guide, const Jacobian& jac,
                                 const DistanceVector& psi, const DistanceProjector& projector) {
        CHECK(jac.rows() == 6);
        CHECK(psi.size() == kControlPoints);
        CHECK(projector.cols() == 7);
        FilterStep step;
        step.qdot = 0.5 * qdot_guide;
        step.ok = (calls % 2) == 0;
        step.time_us = static_cast<double>(calls);
        step.active_count = calls;
        ++calls;
        return step;
      });
  CHECK(calls == 10);
  CHECK(log.not_ok_fraction() == Approx(0.5));
  CHECK(log.filter_time_us[3] == 3.0);
  CHECK(log.active_count[7] == 7);
  // A stop filter leaves the arm where it was.
  const ScenarioLog stopped =
      run_scenario(cfg, [](const JointVector&, const Jacobian&, const DistanceVector&,
                           const DistanceProjector&) { return JointVector::Zero().eval(); });
  CHECK((stopped.q_final - cfg.q0).norm() == 0.0);
  CHECK(stopped.final_ee_error == Approx(stopped.ee_error.front()));
}

TEST_CASE("FLIQC arm scenario: 2000 filtered cycles keep the clearance and reach the goal",
          "[fliqc_arm][fliqc]") {
  const ScenarioConfig cfg = default_scenario();
  REQUIRE(cfg.cycles == 2000);
  claw::FliqcSettings<double> settings;
  settings.q_dot_max = 2.0;
  settings.eps = kClearance + kPredictionMargin;
  claw::FliqcFilter<double, kJoints, kJoints, 16> filter;
  REQUIRE(filter.configure(settings) == claw::Status::Ok);
  long cycles = 0, solved = 0, worst_cycle = -1;
  double worst_prediction = -1.0;
  const ScenarioLog log =
      run_scenario(cfg, [&](const JointVector& qdot_guide, const Jacobian& jacobian,
                            const DistanceVector& psi, const DistanceProjector& projector) {
        const auto& r = filter.filter(qdot_guide, jacobian, psi, projector);
        FilterStep step;
        step.qdot = r.qdot;
        step.ok = r.status == claw::Status::Ok;
        step.active_count = r.active_count;
        if (r.solved) {
          ++solved;
          // The filter's own promise: psi_i + dt P_i qdot >= eps on every active distance.
          if (r.predicted_violation > worst_prediction) {
            worst_prediction = r.predicted_violation;
            worst_cycle = cycles;
          }
        }
        ++cycles;
        return step;
      });
  CHECK(cycles == 2000);
  CHECK(solved > 100);  // the constraints really were active
  CHECK(log.not_ok_fraction() == 0.0);
  INFO("worst predicted violation " << worst_prediction << " at cycle " << worst_cycle);
  CHECK(worst_prediction <= 1e-9);
  for (std::size_t k = 0; k < log.min_distance.size(); ++k) {
    INFO("cycle " << k);
    REQUIRE(log.min_distance[k] >= kClearance - 1e-9);
  }
  CHECK(log.final_min_distance >= kClearance - 1e-9);
  CHECK(log.final_ee_error < 5e-3);
  // The unfiltered run of the same scenario goes into the sphere.
  CHECK(run_scenario(cfg, IdentityFilter{}).overall_min_distance() < 0.0);
}
