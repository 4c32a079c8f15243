// tests/fuzz/fuzz_pd_adapter.cpp: libFuzzer target for the PD adapter (claw/blocks/pd_adapter.hpp),
// the block PdAdapter and the free function pd_adapter: refused settings and calls touch nothing,
// finite in -> finite out, and the block equals the function bit for bit.
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "claw/blocks/pd_adapter.hpp"
#include "fuzz/fuzz_input.hpp"

namespace {

using claw::PdActionOrder;
using claw::Status;
using claw_fuzz::FuzzInput;

constexpr int kMaxJoints = 8;

template <typename Scalar>
void run(FuzzInput& in) {
  using Adapter = claw::PdAdapter<Scalar, claw::Dynamic, kMaxJoints>;
  using Controller = typename Adapter::Controller;
  using Vec = typename Adapter::VectorType;
  using State = typename Controller::StateType;
  const int n = in.integer(1, kMaxJoints);

  // A controller with valid settings (its bounds are the adapter's velocity/acceleration limits).
  Controller pd(n);
  {
    auto s = pd.settings();
    for (Eigen::Index j = 0; j < n; ++j)
      for (int i = 0; i < 3; ++i) {
        const bool unbounded = in.byte() % 8 == 0;
        s.bounds.lower(i, j) =
            unbounded ? -claw::infinity<Scalar>() : -std::fabs(in.finite<Scalar>());
        s.bounds.upper(i, j) =
            unbounded ? claw::infinity<Scalar>() : std::fabs(in.finite<Scalar>());
      }
    for (Eigen::Index j = 0; j < n; ++j)
      s.bounds.upper(2, j) = std::fmax(s.bounds.upper(2, j), Scalar(1));
    s.mode = in.boolean() ? claw::ZohMode::Viable : claw::ZohMode::JiminyCompatible;
    if (s.mode == claw::ZohMode::Viable)
      for (Eigen::Index j = 0; j < n; ++j)
        s.bounds.lower(2, j) = std::fmin(s.bounds.lower(2, j), Scalar(-1));
    CLAW_FUZZ_CHECK(pd.configure(s) == Status::Ok, "valid controller settings refused");
  }
  {
    State start(3, n);
    claw_fuzz::fill_finite(in, start);
    CLAW_FUZZ_CHECK(pd.set_command_state(start) == Status::Ok, "finite command state refused");
  }

  Adapter adapter(n);
  const int steps = in.integer(1, 32);
  Vec action(n), out(n), reference_out(n);
  out.setZero();
  for (int k = 0; k < steps; ++k) {
    const int op = in.integer(0, 5);
    if (op == 0) {
      typename Adapter::Settings s = adapter.settings();
      s.order = in.boolean() ? PdActionOrder::Position : PdActionOrder::Velocity;
      s.instantaneous = in.boolean();
      s.step_dt = in.boolean() ? in.value<Scalar>() : Scalar(0.04);
      s.use_deadband = in.boolean();
      for (Eigen::Index j = 0; j < n; ++j) s.velocity_deadband(j) = in.value<Scalar>();
      bool valid = std::isfinite(s.step_dt) && s.step_dt >= Scalar(CLAW_MIN_TIME_STEP);
      for (Eigen::Index j = 0; j < n; ++j) valid = valid && s.velocity_deadband(j) >= 0;
      const typename Adapter::Settings old = adapter.settings();
      const Status status = adapter.configure(s);
      CLAW_FUZZ_CHECK((status == Status::Ok) == valid,
                      "PdAdapter::configure status differs from validity");
      if (status != Status::Ok)
        CLAW_FUZZ_CHECK(
            claw_fuzz::same_scalar_bits(adapter.settings().step_dt, old.step_dt) &&
                claw_fuzz::same_bits(adapter.settings().velocity_deadband, old.velocity_deadband),
            "PdAdapter::configure: refused settings installed");
      continue;
    }
    const bool raw = in.byte() % 4 == 0;
    for (Eigen::Index j = 0; j < n; ++j) action(j) = raw ? in.value<Scalar>() : in.finite<Scalar>();
    const bool finite_action = claw_fuzz::finite(action);
    const auto& s = adapter.settings();
    const auto& bounds = pd.settings().bounds;
    if (op == 1) {
      // The free function on its own, with any step_dt (negative included) and any deadband.
      State state = pd.command_state();
      if (in.boolean()) claw_fuzz::fill_values(in, state);
      const Scalar dt = in.value<Scalar>();
      Vec deadband(n);
      claw_fuzz::fill_values(in, deadband);
      const bool with_deadband = in.boolean();
      const State state_before = state;
      // A snapshot: out is written through Eigen's const MatrixBase& idiom.
      // NOLINTNEXTLINE(performance-unnecessary-copy-initialization)
      const Vec out_before = out;
      const Status status =
          with_deadband ? claw::pd_adapter(action, s.order, state, bounds.lower, bounds.upper,
                                           s.instantaneous, deadband, dt, out)
                        : claw::pd_adapter(action, s.order, state, bounds.lower, bounds.upper,
                                           s.instantaneous, deadband.head(0), dt, out);
      if (status != Status::Ok && status != Status::NumericalOverflow) {
        CLAW_FUZZ_CHECK(
            claw_fuzz::same_bits(out, out_before) && claw_fuzz::same_bits(state, state_before),
            "pd_adapter: a refused call touched its outputs");
        continue;
      }
      if (!std::isfinite(dt)) CLAW_FUZZ_CHECK(false, "pd_adapter accepted a non-finite step_dt");
      if (std::fabs(dt) < Scalar(CLAW_MIN_TIME_STEP)) {
        CLAW_FUZZ_CHECK(
            claw_fuzz::same_bits(out, out_before) && claw_fuzz::same_bits(state, state_before),
            "pd_adapter: |step_dt| < 1e-9 touched its outputs");
        continue;
      }
      CLAW_FUZZ_CHECK(finite_action && claw_fuzz::finite(state_before),
                      "pd_adapter accepted non-finite input");
      if (with_deadband)
        for (Eigen::Index j = 0; j < n; ++j)
          CLAW_FUZZ_CHECK(deadband(j) >= 0, "pd_adapter accepted a bad deadband");
      CLAW_FUZZ_CHECK(claw_fuzz::finite(out) && claw_fuzz::finite(state),
                      "pd_adapter: finite input gave a non-finite output");
      CLAW_FUZZ_CHECK(claw_fuzz::same_bits(state.row(2), state_before.row(2)),
                      "pd_adapter touched the acceleration row");
      continue;
    }
    // The block against the free function with the block's settings.
    State reference_state = pd.command_state();
    reference_out = out;
    const Vec empty(0);
    const Status reference_status =
        s.use_deadband
            ? claw::pd_adapter(action, s.order, reference_state, bounds.lower, bounds.upper,
                               s.instantaneous, s.velocity_deadband, s.step_dt, reference_out)
            : claw::pd_adapter(action, s.order, reference_state, bounds.lower, bounds.upper,
                               s.instantaneous, empty, s.step_dt, reference_out);
    const State state_before = pd.command_state();
    const Vec out_before = out;  // NOLINT(performance-unnecessary-copy-initialization): a snapshot;
                                 // out is written through Eigen's const MatrixBase& idiom
    const Status status = adapter.update(action, pd, out);
    CLAW_FUZZ_CHECK(status == reference_status, "PdAdapter and pd_adapter statuses differ");
    CLAW_FUZZ_CHECK(claw_fuzz::same_bits(out, reference_out) &&
                        claw_fuzz::same_bits(pd.command_state(), reference_state),
                    "PdAdapter and pd_adapter differ");
    if (status != Status::Ok && status != Status::NumericalOverflow) {
      CLAW_FUZZ_CHECK(claw_fuzz::same_bits(out, out_before) &&
                          claw_fuzz::same_bits(pd.command_state(), state_before),
                      "PdAdapter: a refused call touched its outputs");
      continue;
    }
    CLAW_FUZZ_CHECK(finite_action, "PdAdapter accepted a non-finite action");
    CLAW_FUZZ_CHECK(claw_fuzz::finite(out) && claw_fuzz::finite(pd.command_state()),
                    "PdAdapter: finite input gave a non-finite output");
    // Feed the controller so the command state moves as in use.
    Vec q(n), v(n), tau(n);
    claw_fuzz::fill_finite(in, q);
    claw_fuzz::fill_finite(in, v);
    tau.setZero();
    (void)pd.update(q, v, out, tau);
  }
}

}  // namespace

CLAW_FUZZ_ENTRY_FLOAT_AND_DOUBLE(run)
