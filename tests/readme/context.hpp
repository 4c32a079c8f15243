// tests/readme/context.hpp: what README.md's C++ snippets take as given (the measured state q, v,
// the targets, Q and A, ...), for the test that compiles and runs every snippet (readme_snippets).
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "claw/claw.hpp"

namespace readme {

using Vector7 = Eigen::Matrix<double, 7, 1>;

// Measured state, targets and outputs of the laws (7 joints).
inline Vector7 q = Vector7::Zero(), v = Vector7::Zero(), tau = Vector7::Zero();
inline Vector7 q_target = Vector7::Constant(0.1), v_target = Vector7::Zero();
inline Vector7 feedforward = Vector7::Zero(), ff = Vector7::Zero();
inline Vector7 kp = Vector7::Constant(100.0), kd = Vector7::Constant(10.0);
inline Vector7 q_target_limited = Vector7::Zero(), target_velocity = Vector7::Zero();
inline Vector7 max_force = Vector7::Zero(), action = Vector7::Zero();
inline Vector7 target_acceleration = Vector7::Zero();
inline Eigen::Matrix<double, 7, 7> inverse_mass_7x7 = Eigen::Matrix<double, 7, 7>::Identity();

// Command-state bounds of the PD block: rows position, velocity, acceleration.
inline claw::StateMatrix<double, 7> lower =
    (claw::StateMatrix<double, 7>() << Vector7::Constant(-2.0).transpose(),
     Vector7::Constant(-5.0).transpose(), Vector7::Constant(-100.0).transpose())
        .finished();
inline claw::StateMatrix<double, 7> upper = -lower;

// Blocks the snippets share (the adapter drives the PD block; the presets configure a PID).
inline claw::PdController<double, 7> pd;
inline claw::Pid<double, 7> pid;

// A QP: Q = I, minimise towards g = -1 under ||x||_inf <= 1 and four rows of sums in [-1, 1].
inline Eigen::Matrix<double, 7, 7> Q = Eigen::Matrix<double, 7, 7>::Identity();
inline Eigen::Matrix<double, 4, 7> A = Eigen::Matrix<double, 4, 7>::Ones();
inline Vector7 g = Vector7::Constant(-1.0), g2 = Vector7::Constant(-0.5);
inline Vector7 lb = Vector7::Constant(-1.0), ub = Vector7::Constant(1.0);
inline Eigen::Vector4d lbA = Eigen::Vector4d::Constant(-1.0), ubA = Eigen::Vector4d::Constant(1.0);

// A FLIQC cycle: guide velocity, end-effector Jacobian and two distances with their Jacobian rows.
inline Vector7 qdot_guide = Vector7::Constant(0.5);
inline Eigen::Matrix<double, 6, 7> J = Eigen::Matrix<double, 6, 7>::Identity();
inline Eigen::Vector2d psi(0.05, 0.2);
inline Eigen::Matrix<double, 2, 7> P = Eigen::Matrix<double, 2, 7>::Ones();

/// The snippets' "send this to the actuators": here it checks the command is finite.
template <typename Derived>
void apply(const Eigen::MatrixBase<Derived>& command) {
  if (!command.allFinite()) std::abort();
}

/// The snippets that reached their last line (each appends its number there).
inline std::vector<int> completed;

/// 0 when all `count` snippets completed; otherwise names the ones that returned early.
inline int report(int count) {
  int missing = 0;
  for (int k = 1; k <= count; ++k) {
    if (std::find(completed.begin(), completed.end(), k) == completed.end()) {
      std::printf("README.md C++ block %d returned before its end\n", k);
      ++missing;
    }
  }
  std::printf("%d of %d README snippets ran to their end\n", count - missing, count);
  return missing == 0 ? 0 : 1;
}

}  // namespace readme
