// tests/support/lcqp_reference.cpp: see lcqp_reference.hpp.
#include "support/lcqp_reference.hpp"

#include <catch2/catch.hpp>
#include <string>

namespace claw_test {

LcqpProblemXd lcqp_problem(const nlohmann::json& lcqp, bool add_regularisation) {
  LcqpProblemXd problem;
  std::string error;
  const bool ok = read_lcqp(lcqp, add_regularisation, problem, error);
  INFO(error);
  REQUIRE(ok);
  return problem;
}

claw::FliqcSettings<double> fliqc_settings(const nlohmann::json& params) {
  claw::FliqcSettings<double> settings;
  std::string error;
  const bool ok = read_fliqc_params(params, settings, error);
  INFO(error);
  REQUIRE(ok);
  return settings;
}

double lcqp_objective(const LcqpProblemXd& problem, const Eigen::VectorXd& x) {
  return 0.5 * x.dot(problem.Q * x) + problem.g.dot(x);
}

}  // namespace claw_test
