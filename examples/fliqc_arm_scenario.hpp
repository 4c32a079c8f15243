// examples/fliqc_arm_scenario.hpp: the robot side of examples/03_fliqc_arm.cpp, independent of any
// filter: Franka Emika Panda kinematics (public modified-DH parameters), distances from points on
// the links to a spherical obstacle with their joint-velocity projectors, a task-space guide, and a
// closed-loop kinematic simulation that hands every cycle's guide to a caller-supplied filter.
//
// Conventions (double throughout, all lengths in metres, angles in radians):
//  - Frames follow Craig's modified DH as published by Franka Emika: the transform from frame k-1
//    to frame k is RotX(alpha_k) TransX(a_k) RotZ(q_k) TransZ(d_k). Frame k is attached to link k
//    and joint k turns about its z axis. The flange is TransZ(0.107) from frame 7, the end effector
//    (the Franka Hand's fingertip centre, "TCP") RotZ(-pi/4) TransZ(0.1034) from the flange.
//  - The geometric Jacobian J (6x7) of the end effector has the translational velocity in rows
//    0-2 and the angular velocity in rows 3-5, both in base coordinates.
//  - A control point is a point rigidly attached to one link with a radius (the thickness of the
//    link's capsule there). Its distance to the sphere (centre c, radius r) is
//    psi_i = |p_i - c| - r - r_i and psi_i' = P_i qdot with P_i = n_i' Jp_i(q), n_i the unit normal
//    from c to p_i and Jp_i the 3x7 position Jacobian of the point.
//  - The guide is a proportional law on the end-effector position, v = kp (x_goal - x) clipped to
//    a maximum speed, through a damped pseudo-inverse of the position Jacobian:
//    qdot_guide = Jp' (Jp Jp' + mu^2 I)^-1 v. It knows nothing of the obstacle.
//
// The default scenario (default_scenario()): from the Panda's "ready" pose the hand moves left and
// down, 0.58 m, to a goal beyond a sphere (radius 0.1 m) that hangs at forearm height between the
// start and the goal. The hand passes below and in front of the sphere (its own capsules stay more
// than 0.1 m away); the elbow and forearm, which follow the guide's minimum-norm joint motion,
// sweep through it (min psi = -0.06 m without a filter). The end effector's path never enters the
// filter's activation distance: FLIQC's default nullspace projector leaves the end-effector
// position velocity to the guide and moves only the rest of the arm, and the arm can clear the
// sphere by elbow motion alone, so with the filter the hand still reaches the goal.
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

namespace claw_examples {

using Vector3 = Eigen::Vector3d;
using Matrix3 = Eigen::Matrix3d;
using JointVector = Eigen::Matrix<double, 7, 1>;
using Jacobian = Eigen::Matrix<double, 6, 7>;
using PositionJacobian = Eigen::Matrix<double, 3, 7>;

inline constexpr int kJoints = 7;
inline constexpr double kPi = 3.14159265358979323846;

// ---------------------------------------------------------------------------------------------
// Panda kinematics

/// Franka Emika Panda modified-DH parameters, joint k = 1..7 at index k-1.
inline constexpr std::array<double, 7> kPandaA = {0.0, 0.0, 0.0, 0.0825, -0.0825, 0.0, 0.088};
inline constexpr std::array<double, 7> kPandaD = {0.333, 0.0, 0.316, 0.0, 0.384, 0.0, 0.0};
inline constexpr std::array<double, 7> kPandaAlpha = {0.0,      -kPi / 2, kPi / 2, kPi / 2,
                                                      -kPi / 2, kPi / 2,  kPi / 2};
inline constexpr double kFlangeOffset = 0.107;  ///< frame 7 -> flange along z7
inline constexpr double kHandOffset = 0.1034;   ///< flange -> fingertip centre along z
inline constexpr double kHandYaw = -kPi / 4;    ///< the hand is mounted turned about the flange z

/// A rigid transform: orientation R (columns: the frame's axes in base coordinates) and origin p.
struct Frame {
  Matrix3 rotation = Matrix3::Identity();
  Vector3 origin = Vector3::Zero();

  /// This frame composed with a local transform RotX(alpha) TransX(a) RotZ(theta) TransZ(d).
  Frame then_dh(double a, double d, double alpha, double theta) const {
    const double ca = std::cos(alpha), sa = std::sin(alpha);
    const double ct = std::cos(theta), st = std::sin(theta);
    Matrix3 rx;
    rx << 1, 0, 0, 0, ca, -sa, 0, sa, ca;
    Matrix3 rz;
    rz << ct, -st, 0, st, ct, 0, 0, 0, 1;
    Frame next;
    const Matrix3 after_x = rotation * rx;
    next.rotation = after_x * rz;
    next.origin = origin + after_x.col(0) * a + next.rotation.col(2) * d;
    return next;
  }
  /// A point given in this frame's coordinates, in base coordinates.
  Vector3 apply(const Vector3& local) const { return origin + rotation * local; }
};

/// Every frame of the arm for one configuration.
struct PandaPose {
  std::array<Frame, 8> link;  ///< link[0] the base, link[k] frame k (joint k turns about its z)
  Frame flange;
  Frame end_effector;  ///< the fingertip centre of the Franka Hand (TCP)
};

/// Forward kinematics of every link frame, the flange and the end effector.
inline void forward_kinematics(const JointVector& q, PandaPose& pose) {
  pose.link[0] = Frame{};
  for (std::size_t k = 0; k < 7; ++k)
    pose.link[k + 1] = pose.link[k].then_dh(kPandaA[k], kPandaD[k], kPandaAlpha[k],
                                            q(static_cast<Eigen::Index>(k)));
  pose.flange = pose.link[7].then_dh(0.0, kFlangeOffset, 0.0, 0.0);
  pose.end_effector = pose.flange.then_dh(0.0, kHandOffset, 0.0, kHandYaw);
}

inline PandaPose forward_kinematics(const JointVector& q) {
  PandaPose pose;
  forward_kinematics(q, pose);
  return pose;
}

/// 3x7 position Jacobian of the point `point` (base coordinates) rigidly attached to link `link`
/// (1..7): column j (joint j+1 <= link) is z_j x (point - o_j), the columns of later joints are 0.
inline void point_jacobian(const PandaPose& pose, int link, const Vector3& point,
                           PositionJacobian& jp) {
  jp.setZero();
  for (int j = 1; j <= std::min(link, kJoints); ++j) {
    const Frame& f = pose.link[static_cast<std::size_t>(j)];
    jp.col(j - 1) = f.rotation.col(2).cross(point - f.origin);
  }
}

/// 6x7 geometric Jacobian of the end effector: rows 0-2 translational, rows 3-5 rotational.
inline void end_effector_jacobian(const PandaPose& pose, Jacobian& jac) {
  const Vector3& p = pose.end_effector.origin;
  for (int j = 1; j <= kJoints; ++j) {
    const Frame& f = pose.link[static_cast<std::size_t>(j)];
    const Vector3 z = f.rotation.col(2);
    jac.block<3, 1>(0, j - 1) = z.cross(p - f.origin);
    jac.block<3, 1>(3, j - 1) = z;
  }
}

/// The Panda's "ready" pose, the usual start of its demos.
inline JointVector panda_ready_pose() {
  JointVector q;
  q << 0.0, -kPi / 4, 0.0, -3 * kPi / 4, 0.0, kPi / 2, kPi / 4;
  return q;
}

// ---------------------------------------------------------------------------------------------
// Obstacle distances

struct Sphere {
  Vector3 centre = Vector3::Zero();
  double radius = 0.1;
};

/// A point rigidly attached to link `link` (1..7), at `local` in that link's frame, with the
/// radius of the link's capsule around it.
struct ControlPoint {
  int link = 7;
  Vector3 local = Vector3::Zero();
  double radius = 0.05;
};

inline constexpr int kControlPoints = 10;
using ControlPoints = std::array<ControlPoint, kControlPoints>;
using DistanceVector = Eigen::Matrix<double, kControlPoints, 1>;
using DistanceProjector = Eigen::Matrix<double, kControlPoints, kJoints>;

/// Points along the Panda's links 3..7 (capsule radii from its collision model, rounded up).
inline ControlPoints panda_control_points() {
  return {{
      {3, Vector3(0.0, 0.0, -0.16), 0.07},                 // upper arm, middle
      {3, Vector3(0.0, 0.0, 0.0), 0.07},                   // upper arm, elbow end
      {4, Vector3(0.0, 0.0, 0.0), 0.07},                   // elbow (joint 4)
      {5, Vector3(0.0, 0.0, -0.28), 0.065},                // forearm, elbow end
      {5, Vector3(0.0, 0.0, -0.17), 0.06},                 // forearm, middle
      {5, Vector3(0.0, 0.0, -0.06), 0.06},                 // forearm, wrist end
      {6, Vector3(0.0, 0.0, 0.0), 0.065},                  // wrist (joints 5 and 6)
      {6, Vector3(0.088, 0.0, 0.0), 0.06},                 // wrist, joint 7 housing
      {7, Vector3(0.0, 0.0, kFlangeOffset), 0.06},         // flange
      {7, Vector3(0.0, 0.0, kFlangeOffset + 0.06), 0.07},  // hand body
  }};
}

/// psi (distance of every control point's capsule to the sphere; negative inside) and P (row i:
/// d psi_i / dt = P.row(i) qdot).
inline void obstacle_distances(const PandaPose& pose, const Sphere& sphere,
                               const ControlPoints& points, DistanceVector& psi,
                               DistanceProjector& projector) {
  PositionJacobian jp;
  for (int i = 0; i < kControlPoints; ++i) {
    const ControlPoint& cp = points[static_cast<std::size_t>(i)];
    const Vector3 p = pose.link[static_cast<std::size_t>(cp.link)].apply(cp.local);
    const Vector3 offset = p - sphere.centre;
    const double norm = offset.norm();
    // At the centre itself any direction is a normal; take +z rather than divide by zero.
    const Vector3 normal = norm > 0.0 ? Vector3(offset / norm) : Vector3::UnitZ();
    psi(i) = norm - sphere.radius - cp.radius;
    point_jacobian(pose, cp.link, p, jp);
    projector.row(i) = normal.transpose() * jp;
  }
}

// ---------------------------------------------------------------------------------------------
// Guide

struct GuideGains {
  double kp = 2.5;          ///< [1/s] task-space proportional gain
  double max_speed = 0.25;  ///< [m/s] bound on the commanded end-effector speed
  double damping = 0.05;    ///< mu of the damped pseudo-inverse [m]
};

/// qdot_guide = Jp' (Jp Jp' + mu^2 I)^-1 v with v = kp (goal - x) clipped to max_speed; Jp is the
/// first three rows of `jac`.
inline JointVector guide_velocity(const PandaPose& pose, const Jacobian& jac, const Vector3& goal,
                                  const GuideGains& gains) {
  Vector3 v = gains.kp * (goal - pose.end_effector.origin);
  const double speed = v.norm();
  if (speed > gains.max_speed) v *= gains.max_speed / speed;
  const PositionJacobian jp = jac.topRows<3>();
  const Matrix3 damped = jp * jp.transpose() + gains.damping * gains.damping * Matrix3::Identity();
  return jp.transpose() * damped.ldlt().solve(v);
}

// ---------------------------------------------------------------------------------------------
// Scenario

/// Clearance the filtered run must keep [m] (the original FLIQC eps), and the margin added to the
/// filter's eps to cover what its first-order prediction leaves out over one step [m] (the links
/// move on arcs during a 2 ms step: with eps = clearance the held distance settles ~2 um below).
inline constexpr double kClearance = 0.02;
inline constexpr double kPredictionMargin = 2e-5;

struct ScenarioConfig {
  JointVector q0 = panda_ready_pose();
  Vector3 goal = Vector3::Zero();  ///< end-effector goal [m]
  Sphere obstacle;
  ControlPoints points = panda_control_points();
  GuideGains gains;
  double dt = 2e-3;    ///< simulation (and control) step [s]
  long cycles = 2000;  ///< control cycles (4 s)
};

/// The scenario of the file comment: without a filter the forearm passes through the sphere; the
/// end effector's own path stays clear of it.
inline ScenarioConfig default_scenario() {
  ScenarioConfig cfg;
  cfg.goal = Vector3(0.2, 0.55, 0.35);
  cfg.obstacle.centre = Vector3(0.0, 0.26, 0.66);
  cfg.obstacle.radius = 0.1;
  return cfg;
}

/// What a filter may return instead of a bare joint velocity, to have more logged.
struct FilterStep {
  JointVector qdot = JointVector::Zero();  ///< the command to apply
  bool ok = true;                          ///< false: the filter's status was not Ok
  double time_us = std::numeric_limits<double>::quiet_NaN();  ///< filter call time, if measured
  int active_count = -1;  ///< distances that entered the problem, if reported
};

/// Per-cycle log of a run; index k is the state at t = k dt, before cycle k's command. The final
/// state (after the last cycle) is in the final_* members.
struct ScenarioLog {
  std::vector<double> time;            ///< [s]
  std::vector<double> min_distance;    ///< min_i psi_i [m]
  std::vector<double> ee_error;        ///< |x_goal - x| [m]
  std::vector<double> filter_time_us;  ///< NaN when the filter did not report one
  std::vector<int> active_count;       ///< -1 when not reported
  std::vector<bool> ok;                ///< the filter's verdict (always true for a bare qdot)
  JointVector q_final = JointVector::Zero();
  double final_min_distance = 0.0;
  double final_ee_error = 0.0;

  /// Smallest distance over every logged cycle and the final state.
  double overall_min_distance() const {
    double m = final_min_distance;
    for (double d : min_distance) m = std::min(m, d);
    return m;
  }
  /// Fraction of cycles whose filter status was not Ok.
  double not_ok_fraction() const {
    if (ok.empty()) return 0.0;
    const auto bad = std::count(ok.begin(), ok.end(), false);
    return static_cast<double>(bad) / static_cast<double>(ok.size());
  }
};

/// The quantities handed to the filter at one configuration.
struct ScenarioState {
  PandaPose pose;
  Jacobian jacobian = Jacobian::Zero();
  DistanceVector psi = DistanceVector::Zero();
  DistanceProjector projector = DistanceProjector::Zero();
  JointVector qdot_guide = JointVector::Zero();
};

/// Evaluates pose, J, psi, P and the guide at q.
inline void evaluate(const ScenarioConfig& cfg, const JointVector& q, ScenarioState& s) {
  forward_kinematics(q, s.pose);
  end_effector_jacobian(s.pose, s.jacobian);
  obstacle_distances(s.pose, cfg.obstacle, cfg.points, s.psi, s.projector);
  s.qdot_guide = guide_velocity(s.pose, s.jacobian, cfg.goal, cfg.gains);
}

/// Runs cfg.cycles cycles: qdot = filter(qdot_guide, J, psi, P), q += dt qdot. The filter returns
/// either a joint velocity (anything convertible to JointVector) or a FilterStep.
template <class Filter>
ScenarioLog run_scenario(const ScenarioConfig& cfg, Filter&& filter) {
  const auto cycles = static_cast<std::size_t>(std::max(cfg.cycles, 0L));
  ScenarioLog log;
  log.time.reserve(cycles);
  log.min_distance.reserve(cycles);
  log.ee_error.reserve(cycles);
  log.filter_time_us.reserve(cycles);
  log.active_count.reserve(cycles);
  log.ok.reserve(cycles);

  JointVector q = cfg.q0;
  ScenarioState s;
  for (std::size_t k = 0; k < cycles; ++k) {
    evaluate(cfg, q, s);
    FilterStep step;
    using Returned = std::decay_t<decltype(filter(s.qdot_guide, s.jacobian, s.psi, s.projector))>;
    if constexpr (std::is_same_v<Returned, FilterStep>) {
      step = filter(s.qdot_guide, s.jacobian, s.psi, s.projector);
    } else {
      step.qdot = filter(s.qdot_guide, s.jacobian, s.psi, s.projector);
    }
    log.time.push_back(static_cast<double>(k) * cfg.dt);
    log.min_distance.push_back(s.psi.minCoeff());
    log.ee_error.push_back((cfg.goal - s.pose.end_effector.origin).norm());
    log.filter_time_us.push_back(step.time_us);
    log.active_count.push_back(step.active_count);
    log.ok.push_back(step.ok);
    q += cfg.dt * step.qdot;
  }
  evaluate(cfg, q, s);
  log.q_final = q;
  log.final_min_distance = s.psi.minCoeff();
  log.final_ee_error = (cfg.goal - s.pose.end_effector.origin).norm();
  return log;
}

/// The unfiltered run's filter: returns the guide unchanged.
struct IdentityFilter {
  template <class G, class J, class Psi, class P>
  JointVector operator()(const G& qdot_guide, const J&, const Psi&, const P&) const {
    return qdot_guide;
  }
};

}  // namespace claw_examples
