// tests/fuzz/fuzz_fliqc.cpp: libFuzzer target for FliqcFilter (claw/filters/fliqc.hpp), n <= 7
// joints, at most 4 distances, float and double, a sequence of cycles with random settings and
// inputs (NaN, Inf, huge, tiny, zero rows). The contract: invalid settings are refused and the old
// ones stay; the command is always finite; with Ok and a solved cycle the velocity bounds and the
// predicted distance constraints hold within the solver's tolerance; with no active distance the
// guide comes back unchanged; any other status applies the fallback (Stop: zero; least violation:
// within the bounds).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "claw/filters/fliqc.hpp"
#include "fuzz/fuzz_input.hpp"

namespace {

using claw::Status;
using claw_fuzz::FuzzInput;

constexpr int kMaxN = 7;
constexpr int kMaxM = 4;

template <typename Scalar>
claw::FliqcSettings<Scalar> random_settings(FuzzInput& in) {
  claw::FliqcSettings<Scalar> s;
  const bool wild = in.integer(0, 7) == 0;  // sometimes any value, mostly sensible ones
  auto pick = [&](Scalar lo, Scalar hi) { return wild ? in.value<Scalar>() : in.uniform(lo, hi); };
  s.quad_cost_type = in.choice<claw::FliqcCostType>(4);
  s.velocity_error_as_original = in.boolean();
  s.lambda_cost_penalty = pick(Scalar(0.1), Scalar(10));
  s.enable_lambda_constraint_in_L = in.boolean();
  s.enable_lambda_constraint_in_x = in.boolean();
  s.enable_esc_vel_constraint = in.boolean();
  s.enable_nullspace_projector_in_A = in.boolean();
  s.dt = pick(Scalar(0.001), Scalar(0.1));
  s.eps = pick(Scalar(0), Scalar(0.05));
  s.active_threshold = in.boolean() ? claw::infinity<Scalar>() : pick(Scalar(0), Scalar(0.2));
  s.lambda_max = in.boolean() ? claw::infinity<Scalar>() : pick(Scalar(0.01), Scalar(100));
  s.esc_vel_max = in.boolean() ? claw::infinity<Scalar>() : pick(Scalar(0.001), Scalar(1));
  s.q_dot_max = in.boolean() ? claw::infinity<Scalar>() : pick(Scalar(0.1), Scalar(5));
  s.fallback = in.choice<claw::FliqcFallback>(2);
  return s;
}

template <typename Scalar>
void run(FuzzInput& in) {
  using Filter = claw::FliqcFilter<Scalar, claw::Dynamic, kMaxN, kMaxM>;
  static Filter filter;  // reused across inputs
  const int n = in.integer(1, kMaxN);
  CLAW_FUZZ_CHECK(filter.set_num_joints(n) == Status::Ok, "set_num_joints refused a valid n");
  const int cycles = in.integer(1, 4);
  for (int cycle = 0; cycle < cycles && !in.empty(); ++cycle) {
    const auto settings = random_settings<Scalar>(in);
    const auto before = filter.settings();
    const Status configured = filter.configure(settings);
    if (configured != Status::Ok) {
      CLAW_FUZZ_CHECK(configured == Status::InvalidParameter, "configure: undocumented status");
      CLAW_FUZZ_CHECK(claw_fuzz::same_scalar_bits(filter.settings().dt, before.dt) &&
                          claw_fuzz::same_scalar_bits(filter.settings().eps, before.eps),
                      "refused settings changed the filter");
    }
    const bool wild = in.integer(0, 3) == 0;
    const int m = in.integer(0, kMaxM + 1);  // kMaxM + 1 rows: too many when all are active
    claw::Vector<Scalar, claw::Dynamic, kMaxN> guide(n);
    Eigen::Matrix<Scalar, 6, claw::Dynamic, 0, 6, kMaxN> jacobian(6, n);
    claw::Vector<Scalar, claw::Dynamic, kMaxM + 1> psi(m);
    Eigen::Matrix<Scalar, claw::Dynamic, claw::Dynamic, Eigen::RowMajor, kMaxM + 1, kMaxN> p(m, n);
    if (wild) {
      claw_fuzz::fill_values(in, guide);
      claw_fuzz::fill_values(in, jacobian);
      claw_fuzz::fill_values(in, psi);
      claw_fuzz::fill_values(in, p);
    } else {
      claw_fuzz::fill_moderate(in, guide);
      claw_fuzz::fill_moderate(in, jacobian);
      for (int i = 0; i < m; ++i) psi(i) = in.uniform(Scalar(-0.02), Scalar(0.1));
      claw_fuzz::fill_moderate(in, p);
    }
    const auto& r = filter.filter(guide, jacobian, psi, p);
    const auto& s = filter.settings();
    CLAW_FUZZ_CHECK(claw_fuzz::finite(r.qdot), "non-finite command");
    CLAW_FUZZ_CHECK(r.qdot.size() == n, "command of the wrong size");
    const Scalar eps = std::numeric_limits<Scalar>::epsilon();
    // The solver's tolerance t = feasibility_tolerance (1 + |x|_inf), x = [qdot; lambda].
    const Scalar lambda_norm = r.lambda.size() > 0 ? r.lambda.cwiseAbs().maxCoeff() : Scalar(0);
    const Scalar tol = s.solver.feasibility_tolerance *
                       (Scalar(1) + std::max(r.qdot.cwiseAbs().maxCoeff(), lambda_norm));
    if (r.status == Status::Ok && !r.solved) {
      CLAW_FUZZ_CHECK(r.active_count == 0, "unsolved Ok with active distances");
      // The guide scaled by s = min(1, min_j q_dot_max / |guide_j|), then clipped (s rounds).
      Scalar scale = Scalar(1);
      for (int j = 0; j < n; ++j) {
        const Scalar magnitude = std::fabs(guide(j));
        const Scalar ratio = s.q_dot_max / magnitude;
        if (magnitude > s.q_dot_max && ratio < scale) scale = ratio;
      }
      CLAW_FUZZ_CHECK(r.velocity_scaled == (scale < Scalar(1)), "velocity_scaled misreported");
      if (!r.velocity_scaled) {
        CLAW_FUZZ_CHECK(claw_fuzz::same_bits(r.qdot, guide),
                        "no active distance, but qdot != guide");
        continue;
      }
      for (int j = 0; j < n; ++j) {
        const Scalar expected = claw::clip(guide(j) * scale, -s.q_dot_max, s.q_dot_max);
        CLAW_FUZZ_CHECK(claw_fuzz::same_scalar_bits(r.qdot(j), expected),
                        "no active distance: qdot is not the scaled guide");
      }
      continue;
    }
    if (r.status == Status::Ok) {
      CLAW_FUZZ_CHECK(!r.fallback_applied, "Ok with the fallback");
      for (int j = 0; j < n; ++j)
        CLAW_FUZZ_CHECK(!(std::fabs(r.qdot(j)) > s.q_dot_max + tol), "Ok command above q_dot_max");
      // psi_i + dt P_i qdot >= eps on each active distance (row scaled as the solver's test).
      for (int k = 0; k < r.active_count; ++k) {
        const int i = r.active_rows(k);
        const Scalar row_norm = s.dt * p.row(i).norm();
        const Scalar lhs = psi(i) - s.eps + s.dt * p.row(i).dot(r.qdot);
        const Scalar rounding = Scalar(16) * eps *
                                (std::fabs(psi(i)) + std::fabs(s.eps) +
                                 s.dt * p.row(i).cwiseAbs().dot(r.qdot.cwiseAbs()));
        CLAW_FUZZ_CHECK(!(lhs < -(tol * std::max(Scalar(1), row_norm) + rounding)),
                        "Ok command violates a predicted distance constraint");
        CLAW_FUZZ_CHECK(r.lambda(k) >= -tol, "negative lambda");
      }
    } else {
      CLAW_FUZZ_CHECK(r.fallback_applied, "a failed cycle without the fallback");
      if (s.fallback == claw::FliqcFallback::Stop ||
          (r.status != Status::Infeasible && r.status != Status::MaxIterations)) {
        CLAW_FUZZ_CHECK(r.qdot.isZero(Scalar(0)), "Stop fallback not zero");
      } else {
        for (int j = 0; j < n; ++j)
          CLAW_FUZZ_CHECK(!(std::fabs(r.qdot(j)) > s.q_dot_max * (Scalar(1) + Scalar(1e-3)) + tol),
                          "least-violation command above q_dot_max");
      }
    }
  }
}

}  // namespace

CLAW_FUZZ_ENTRY_FLOAT_AND_DOUBLE(run)
