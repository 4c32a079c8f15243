// tests/test_fliqc_conformance.cpp: the FLIQC filter fed the FLIQC-level inputs of every instance of
// $CLAW_REFERENCE_DIR/lcqp/fliqc_instances.json (raw: qdot_guide, J, psi, P, Pinv; params) against
// the enumerated global optimum.
#include <catch2/catch.hpp>
#include <limits>
#include <string>

#include "claw/filters/fliqc.hpp"
#include "support/reference.hpp"

namespace {

using claw::Status;

claw::FliqcCostType cost_type(const std::string& name) {
  if (name == "IDENTITY") return claw::FliqcCostType::Identity;
  if (name == "MASS_MATRIX") return claw::FliqcCostType::MassMatrix;
  if (name == "JOINT_VELOCITY_ERROR") return claw::FliqcCostType::VelocityError;
  if (name == "MASS_MATRIX_VELOCITY_ERROR") return claw::FliqcCostType::MassMatrixVelocityError;
  FAIL("unknown quad_cost_type " << name);
  return claw::FliqcCostType::Identity;
}

/// The instance's params as FliqcSettings, every row active. "DBL_MAX" stays a (huge) number.
claw::FliqcSettings<double> settings_of(const nlohmann::json& params) {
  claw::FliqcSettings<double> s;
  s.dt = claw_test::to_double(params.at("dt"));
  s.eps = claw_test::to_double(params.at("eps"));
  s.q_dot_max = claw_test::to_double(params.at("q_dot_max"));
  s.lambda_cost_penalty = claw_test::to_double(params.at("lambda_cost_penalty"));
  s.lambda_max = claw_test::to_double(params.at("lambda_max"));
  s.quad_cost_type = cost_type(params.at("quad_cost_type").get<std::string>());
  s.enable_nullspace_projector_in_A = params.at("enable_nullspace_projector_in_A").get<bool>();
  s.enable_lambda_constraint_in_x = params.at("enable_lambda_constraint_in_x").get<bool>();
  s.enable_lambda_constraint_in_L = params.at("enable_lambda_constraint_in_L").get<bool>();
  s.enable_esc_vel_constraint = params.at("enable_esc_vel_constraint").get<bool>();
  if (params.contains("esc_vel_max")) s.esc_vel_max = claw_test::to_double(params.at("esc_vel_max"));
  s.active_threshold = std::numeric_limits<double>::infinity();
  return s;
}

}  // namespace

TEST_CASE("FLIQC conformance: raw inputs give the global optimum's qdot or Infeasible",
          "[conformance][fliqc]") {
  const auto data = claw_test::load_reference("lcqp", "fliqc_instances.json");
  const auto& instances = data["instances"];
  REQUIRE(instances.size() > 0);
  claw::FliqcFilter<double, 7, 16> filter;
  const Eigen::Matrix<double, 7, 7> identity = Eigen::Matrix<double, 7, 7>::Identity();
  for (const auto& instance : instances) {
    INFO(claw_test::case_label("fliqc_instances.json", instance));
    REQUIRE(filter.configure(settings_of(instance["params"])) == Status::Ok);
    const auto& raw = instance["raw"];
    const Eigen::VectorXd guide = claw_test::to_vector(raw["qdot_guide"]);
    const Eigen::MatrixXd jacobian = claw_test::to_matrix(raw["J"]);
    const Eigen::VectorXd psi = claw_test::to_vector(raw["psi"]);
    const Eigen::MatrixXd p = claw_test::to_matrix(raw["P"]);
    const Eigen::MatrixXd p_inv = claw_test::to_matrix(raw["Pinv"]);
    const bool feasible = instance["global"]["feasible"].get<bool>();
    Eigen::VectorXd expected;
    if (feasible) expected = claw_test::to_vector(instance["global"]["x"]).head(7);
    for (int variant = 0; variant < 2; ++variant) {
      INFO((variant == 0 ? "explicit Pinv" : "default Pinv = P'/|P|^2"));
      filter.reset();
      const auto& r = variant == 0 ? filter.filter(guide, identity, jacobian, psi, p, p_inv)
                                   : filter.filter(guide, jacobian, psi, p);
      REQUIRE(r.active_count == static_cast<int>(psi.size()));
      if (feasible) {
        REQUIRE(r.status == Status::Ok);
        const double error = (r.qdot - expected).lpNorm<Eigen::Infinity>();
        INFO("||qdot - qdot*||_inf = " << error);
        CHECK(error <= 1e-6);
        CHECK(r.certified_global);
        CHECK_FALSE(r.fallback_applied);
      } else {
        CHECK(r.status == Status::Infeasible);
        CHECK(r.certified_global);
        CHECK(r.fallback_applied);
        CHECK(r.qdot.isZero(0.0));  // the default fallback: stop
      }
    }
  }
}
