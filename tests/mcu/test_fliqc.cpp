// tests/mcu/test_fliqc.cpp: the FLIQC filter on the board: claw::FliqcFilter<float, 7, 7, 8> fed
// the raw inputs of every shared instance with m <= 8
// ($CLAW_REFERENCE_DIR/lcqp/fliqc_instances.json, rounded to float by gen_fliqc_cases.py), through
// both overloads (default P_i^inv = P_i'/|P_i|^2, and the instance's explicit Pinv with M = I),
// each from a cold start (reset()):
//  - feasible instance: status Ok and ||qdot - x*||_inf <= 1e-3, x* the certified global optimum's
//    qdot (double, rounded to float once);
//  - infeasible instance: status Infeasible (certified) and the default fallback's qdot = 0.
// Every configure/reset/filter call runs under the counting malloc: none may reach the heap. A NaN
// in any input gives NonFiniteInput and qdot = 0. Ends with one summary line (instances, feasible /
// infeasible, worst error per m).
//
// Tolerance. 1e-3 rad/s is the bound. In float the filter's own tolerances are the
// solver's float defaults (LcqpSettings::feasibility_tolerance 1e-4 relative, Lemke pivot
// tolerance 1e-5, P_null rank tolerance 1e-5): the worst instance of the shipped set is ~1e-5 off.
#include <cmath>
#include <cstdio>
#include <limits>

#include "alloc_counter.hpp"
#include "claw/filters/fliqc.hpp"
#include "fliqc_data.hpp"
#include "harness.hpp"

namespace claw_mcu {
namespace {

constexpr int kJoints = 7;
constexpr double kQdotTolerance = 1e-3;
using Filter = claw::FliqcFilter<float, kJoints, kJoints, kFliqcMaxM>;
using claw::Status;
using Vector7f = Eigen::Matrix<float, kJoints, 1>;
using Matrix7f = Eigen::Matrix<float, kJoints, kJoints>;
using Jacobian = Eigen::Matrix<float, 6, kJoints, Eigen::RowMajor>;
using Rows = Eigen::Matrix<float, Eigen::Dynamic, kJoints, Eigen::RowMajor, kFliqcMaxM, kJoints>;
using Distances = Eigen::Matrix<float, Eigen::Dynamic, 1, Eigen::ColMajor, kFliqcMaxM, 1>;

// The filter is its whole working memory (~15.6 KiB): static storage, not the stack.
Filter g_filter;

claw::FliqcSettings<float> settings_of(const FliqcCase& c) {
  claw::FliqcSettings<float> s;
  s.dt = c.dt;
  s.eps = c.eps;
  s.q_dot_max = c.q_dot_max;
  s.lambda_cost_penalty = c.lambda_cost_penalty;
  s.lambda_max = c.lambda_max;
  s.esc_vel_max = c.esc_vel_max;
  s.quad_cost_type = static_cast<claw::FliqcCostType>(c.cost_type);
  s.enable_nullspace_projector_in_A = (c.flags & kNullspaceProjectorInA) != 0;
  s.enable_lambda_constraint_in_x = (c.flags & kLambdaConstraintInX) != 0;
  s.enable_lambda_constraint_in_L = (c.flags & kLambdaConstraintInL) != 0;
  s.enable_esc_vel_constraint = (c.flags & kEscVelConstraint) != 0;
  s.active_threshold = std::numeric_limits<float>::infinity();  // every row active
  return s;
}

/// One instance's inputs as Eigen objects (copied out of flash: the caller may poke NaNs in).
struct Inputs {
  Vector7f guide;
  Jacobian jacobian;
  Distances psi;
  Rows p, p_inv;

  explicit Inputs(const FliqcCase& c)
      : guide(Eigen::Map<const Vector7f>(c.qdot_guide)),
        jacobian(Eigen::Map<const Jacobian>(c.jacobian)),
        psi(Eigen::Map<const Distances>(c.psi, c.m)),
        p(Eigen::Map<const Rows>(c.p, c.m, kJoints)),
        p_inv(Eigen::Map<const Rows>(c.p_inv, c.m, kJoints)) {}
};

/// Runs one cycle (variant 0: default P_i^inv; 1: explicit Pinv, M = I), counting heap calls.
const Filter::Result& run_cycle(const Inputs& in, int variant, std::size_t& heap_calls) {
  const Filter::Result* result = nullptr;
  heap_calls += heap_calls_during([&] {
    if (variant == 0) {
      result = &g_filter.filter(in.guide, in.jacobian, in.psi, in.p);
    } else {
      result =
          &g_filter.filter(in.guide, Matrix7f::Identity(), in.jacobian, in.psi, in.p, in.p_inv);
    }
  });
  return *result;
}

const char* const kVariantNames[2] = {"default Pinv", "explicit Pinv, M = I"};

struct Tally {
  int feasible = 0, infeasible = 0;
  double worst[kFliqcMaxM + 1] = {};  // by m
  const char* worst_id[kFliqcMaxM + 1] = {};
  std::size_t heap_calls = 0;
};

void conformance_case(const FliqcCase& c, Tally& tally) {
  Test test("fliqc<float> %s (m %d, %s)", c.id, c.m, c.feasible ? "feasible" : "infeasible");
  const Inputs in(c);
  tally.heap_calls += heap_calls_during(
      [&] { test.check(g_filter.configure(settings_of(c)) == Status::Ok, "configure"); });
  (c.feasible ? tally.feasible : tally.infeasible) += 1;
  for (int variant = 0; variant < 2; ++variant) {
    tally.heap_calls += heap_calls_during([] { g_filter.reset(); });
    const Filter::Result& r = run_cycle(in, variant, tally.heap_calls);
    const char* name = kVariantNames[variant];
    test.check(r.active_count == c.m, "%s: %d active rows, expected %d", name, r.active_count, c.m);
    if (!c.feasible) {
      test.check(r.status == Status::Infeasible && r.certified_global,
                 "%s: status %s (certified %d, path %d, %d QPs), expected Infeasible", name,
                 claw::to_string(r.status), int(r.certified_global), int(r.path), r.qp_solves);
      test.check(r.qdot.isZero(0.0f), "%s: fallback qdot not 0 (|qdot|_inf %.3g)", name,
                 double(r.qdot.lpNorm<Eigen::Infinity>()));
      continue;
    }
    if (!test.check(r.status == Status::Ok,
                    "%s: status %s (path %d, %d QPs, %d pivots, residuals primal %.3g compl %.3g), "
                    "expected Ok",
                    name, claw::to_string(r.status), int(r.path), r.qp_solves, r.lemke_pivots,
                    double(r.residuals.primal), double(r.residuals.complementarity)))
      continue;
    double error = 0.0;
    for (int j = 0; j < kJoints; ++j)
      error = std::fmax(error, std::fabs(double(r.qdot(j)) - double(c.expected_qdot[j])));
    test.check(error <= kQdotTolerance,
               "%s: ||qdot - x*||_inf = %.3g > %.0e (path %d, certified %d, residuals primal %.3g "
               "compl %.3g)",
               name, error, kQdotTolerance, int(r.path), int(r.certified_global),
               double(r.residuals.primal), double(r.residuals.complementarity));
    if (error > tally.worst[c.m] || tally.worst_id[c.m] == nullptr) {
      tally.worst[c.m] = error;
      tally.worst_id[c.m] = c.id;
    }
  }
}

/// A NaN in each input in turn, right after a solved cycle (so qdot was not 0): NonFiniteInput,
/// qdot = 0 (Stop: the inputs are not trusted), no heap.
void nan_input_case(const FliqcCase& c, Tally& tally) {
  Test test("fliqc<float> NaN inputs -> NonFiniteInput, qdot = 0 (%s)", c.id);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const char* const where[] = {"qdot_guide", "J (row 2)", "psi", "P", "Pinv"};
  for (int k = 0; k < 5; ++k) {
    Inputs in(c);
    test.check(g_filter.configure(settings_of(c)) == Status::Ok, "configure");
    const Filter::Result& before = run_cycle(in, 0, tally.heap_calls);
    test.check(before.status == Status::Ok && !before.qdot.isZero(0.0f),
               "set-up cycle: status %s, |qdot|_inf %.3g", claw::to_string(before.status),
               double(before.qdot.lpNorm<Eigen::Infinity>()));
    switch (k) {
      case 0:
        in.guide(3) = nan;
        break;
      case 1:
        in.jacobian(2, 4) = nan;
        break;
      case 2:
        in.psi(c.m - 1) = nan;
        break;
      case 3:
        in.p(0, 1) = nan;
        break;
      default:
        in.p_inv(c.m - 1, 6) = nan;
        break;
    }
    const Filter::Result& r = run_cycle(in, k == 4 ? 1 : 0, tally.heap_calls);
    test.check(r.status == Status::NonFiniteInput, "NaN in %s: status %s", where[k],
               claw::to_string(r.status));
    test.check(r.qdot.size() == kJoints && r.qdot.isZero(0.0f) && r.fallback_applied,
               "NaN in %s: qdot not 0 (|qdot|_inf %.3g, fallback %d)", where[k],
               double(r.qdot.lpNorm<Eigen::Infinity>()), int(r.fallback_applied));
  }
}

}  // namespace

void run_fliqc() {
  std::printf("reference: %s (%d instances with m <= %d, %d with larger m left out)\n",
              kFliqcReferenceFile, kFliqcCaseCount, kFliqcMaxM, kFliqcSkippedCount);
  begin_suite(
      "FLIQC filter, FliqcFilter<float, 7, 7, 8> (FPv4-SP): qdot within 1e-3 of the global "
      "optimum, or Infeasible");
  Tally tally;
  const FliqcCase* nan_case = nullptr;
  for (int k = 0; k < kFliqcCaseCount; ++k) {
    conformance_case(kFliqcCases[k], tally);
    if (nan_case == nullptr && kFliqcCases[k].feasible && kFliqcCases[k].m >= 2)
      nan_case = &kFliqcCases[k];
  }
  if (nan_case != nullptr) nan_input_case(*nan_case, tally);
  {
    Test test("no heap: FliqcFilter<float, 7, 7, 8> configure, reset, filter (both overloads)");
    test.check(tally.heap_calls == 0, "%u heap call(s)", unsigned(tally.heap_calls));
  }
  double worst = 0.0;
  for (double e : tally.worst) worst = std::fmax(worst, e);
  std::printf(
      "fliqc float: %d instances x 2 overloads: %d feasible, %d infeasible; worst "
      "||qdot - x*||_inf %.2e (tolerance %.0e); by m:",
      kFliqcCaseCount, tally.feasible, tally.infeasible, worst, kQdotTolerance);
  for (int m = 1; m <= kFliqcMaxM; ++m)
    if (tally.worst_id[m] != nullptr)
      std::printf(" %d: %.2e (%s)", m, tally.worst[m], tally.worst_id[m]);
  std::printf("; %u heap calls; sizeof(filter) %u bytes\n", unsigned(tally.heap_calls),
              unsigned(sizeof(Filter)));
}

}  // namespace claw_mcu
