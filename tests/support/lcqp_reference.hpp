// tests/support/lcqp_reference.hpp: turns the `lcqp` block of the reference LCQP files (lcqp/ and
// lcqp_general/: LCQPow's dense form, dense or COO matrices, null = infinite or absent) into an
// LcqpProblem<double>.
#pragma once

#include <nlohmann/json.hpp>

#include "claw/solvers/lcqp.hpp"

namespace claw_test {

using LcqpProblemXd = claw::LcqpProblem<double>;

/// The problem of an instance's `lcqp` block. With `add_regularisation`, the block's Q_reg_diag
/// (when present) is added to Q, as the benchmark suite that recorded the optima did.
/// Conventions (the files' schema): in vectors null is -inf for lb/lbA/lbL/lbR and +inf for
/// ub/ubA/ubL/ubR; a whole field null means absent (no bound); "DBL_MAX" is taken as a number.
LcqpProblemXd lcqp_problem(const nlohmann::json& lcqp, bool add_regularisation = true);

/// 1/2 x'Qx + g'x with the problem's Q (callers pass an unregularised problem when it matters).
double lcqp_objective(const LcqpProblemXd& problem, const Eigen::VectorXd& x);

}  // namespace claw_test
