// tests/support/lcqp_reference.hpp: the test-side wrappers of lcqp_json.hpp: they fail the current
// Catch2 test (with the reason) on a malformed reference block.
#pragma once

#include <nlohmann/json.hpp>

#include "support/lcqp_json.hpp"

namespace claw_test {

/// The problem of an instance's `lcqp` block (see read_lcqp); fails the test when malformed.
LcqpProblemXd lcqp_problem(const nlohmann::json& lcqp, bool add_regularisation = true);

/// FLIQC settings from an instance's `params` (see read_fliqc_params); fails the test when
/// malformed.
claw::FliqcSettings<double> fliqc_settings(const nlohmann::json& params);

/// The problem with every entry rounded to float (infinite bounds stay infinite).
claw::LcqpProblem<float> rounded_to_float(const LcqpProblemXd& problem);

/// 1/2 x'Qx + g'x with the problem's Q (callers pass an unregularised problem when it matters).
double lcqp_objective(const LcqpProblemXd& problem, const Eigen::VectorXd& x);

}  // namespace claw_test
