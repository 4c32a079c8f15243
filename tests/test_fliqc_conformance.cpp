// tests/test_fliqc_conformance.cpp: the FLIQC filter fed the FLIQC-level inputs of every instance
// of $CLAW_REFERENCE_DIR/lcqp/fliqc_instances.json (raw: qdot_guide, J, psi, P, Pinv; params)
// against the enumerated global optimum, and on the same LCQP path as LcqpSolver takes on the
// file's LCQP.
#include <catch2/catch.hpp>

#include "claw/filters/fliqc.hpp"
#include "support/lcqp_reference.hpp"
#include "support/reference.hpp"
#include "support/solver_instances.hpp"

namespace {

using claw::Status;

}  // namespace

TEST_CASE("FLIQC conformance: raw inputs give the global optimum's qdot or Infeasible",
          "[conformance][fliqc]") {
  const auto data = claw_test::load_reference("lcqp", "fliqc_instances.json");
  const auto& instances = data["instances"];
  REQUIRE(instances.size() > 0);
  claw::FliqcFilter<double, 7, 7, 16> filter;
  claw::LcqpSolver<double> solver;
  const Eigen::Matrix<double, 7, 7> identity = Eigen::Matrix<double, 7, 7>::Identity();
  for (const auto& instance : instances) {
    INFO(claw_test::case_label("fliqc_instances.json", instance));
    REQUIRE(filter.configure(claw_test::fliqc_settings(instance["params"])) == Status::Ok);
    const auto& raw = instance["raw"];
    const Eigen::VectorXd guide = claw_test::to_vector(raw["qdot_guide"]);
    const Eigen::MatrixXd jacobian = claw_test::to_matrix(raw["J"]);
    const Eigen::VectorXd psi = claw_test::to_vector(raw["psi"]);
    const Eigen::MatrixXd p = claw_test::to_matrix(raw["P"]);
    const Eigen::MatrixXd p_inv = claw_test::to_matrix(raw["Pinv"]);
    const bool feasible = instance["global"]["feasible"].get<bool>();
    Eigen::VectorXd expected;
    if (feasible) expected = claw_test::to_vector(instance["global"]["x"]).head(7);
    // The filter assembles this LCQP itself, with other roundings; the structure tests decide
    // with the data's error bounds, so both take the same path (and so the same time).
    const claw::LcqpPath file_path = solver.solve(claw_test::lcqp_problem(instance["lcqp"])).path;
    for (int variant = 0; variant < 2; ++variant) {
      INFO((variant == 0 ? "explicit Pinv" : "default Pinv = P'/|P|^2"));
      filter.reset();
      const auto& r = variant == 0 ? filter.filter(guide, identity, jacobian, psi, p, p_inv)
                                   : filter.filter(guide, jacobian, psi, p);
      REQUIRE(r.active_count == static_cast<int>(psi.size()));
      CHECK(static_cast<int>(r.path) == static_cast<int>(file_path));
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
