// tests/fuzz/fuzz_zoh.cpp: libFuzzer target for integrate_zoh (claw/integrators/zoh.hpp), both
// ZohModes, float and double: statuses as documented, nothing touched unless Ok, finite in ->
// finite out, viable bounds.
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "claw/integrators/zoh.hpp"
#include "fuzz/fuzz_input.hpp"

namespace {

using claw::Status;
using claw::ZohMode;
using claw_fuzz::FuzzInput;

constexpr int kMaxJoints = 8;

template <typename Scalar>
using State = claw::StateMatrix<Scalar, claw::Dynamic, kMaxJoints>;

/// Status integrate_zoh documents for these inputs (before any integration).
template <typename Scalar>
Status expected_status(const State<Scalar>& s, const State<Scalar>& lo, const State<Scalar>& hi,
                       Scalar dt, ZohMode mode) {
  if (!std::isfinite(dt)) return Status::NonFiniteInput;
  if (dt < Scalar(0)) return Status::NegativeTimeStep;
  if (!claw_fuzz::finite(s)) return Status::NonFiniteInput;  // also for a step too short to take
  if (std::fabs(dt) < Scalar(CLAW_MIN_TIME_STEP)) return Status::Ok;
  if (mode == ZohMode::Viable) return claw::validate_state_bounds(lo, hi, ZohMode::Viable);
  for (Eigen::Index j = 0; j < lo.cols(); ++j)
    for (int i = 0; i < 3; ++i)
      if (std::isnan(lo(i, j)) || std::isnan(hi(i, j)) || lo(i, j) > hi(i, j))
        return Status::InvalidBounds;
  for (Eigen::Index j = 0; j < s.cols(); ++j)
    if (!std::isfinite((std::fabs(s(1, j)) / hi(2, j)) / dt)) return Status::InvalidBounds;
  return Status::Ok;
}

template <typename DS, typename DL, typename DU>
bool within(const Eigen::MatrixBase<DS>& s, const Eigen::MatrixBase<DL>& lo,
            const Eigen::MatrixBase<DU>& hi) {
  for (Eigen::Index j = 0; j < s.cols(); ++j)
    for (Eigen::Index i = 0; i < s.rows(); ++i)
      if (!(s(i, j) >= lo(i, j) && s(i, j) <= hi(i, j))) return false;
  return true;
}

template <typename Scalar>
void run(FuzzInput& in) {
  const int n = in.integer(1, kMaxJoints);
  const ZohMode mode = in.boolean() ? ZohMode::Viable : ZohMode::JiminyCompatible;
  State<Scalar> lo(3, n), hi(3, n), s(3, n);
  // Bounds: raw values (anything, lower > upper included), or a sane symmetric box.
  const bool raw_bounds = in.boolean();
  for (Eigen::Index j = 0; j < n; ++j)
    for (int i = 0; i < 3; ++i) {
      if (raw_bounds) {
        lo(i, j) = in.value<Scalar>();
        hi(i, j) = in.value<Scalar>();
      } else {
        const Scalar a = std::fabs(in.finite<Scalar>());
        const Scalar b = std::fabs(in.finite<Scalar>());
        const bool unbounded = (in.byte() % 8) == 0;
        lo(i, j) = unbounded ? -claw::infinity<Scalar>() : -a;
        hi(i, j) = unbounded ? claw::infinity<Scalar>() : b;
      }
    }
  // Start state: raw, or inside the bounds at rest (viable: it can always stop where it is).
  const bool at_rest_inside = in.boolean();
  for (Eigen::Index j = 0; j < n; ++j) {
    if (at_rest_inside) {
      const Scalar t = in.uniform(Scalar(0), Scalar(1));
      const Scalar p_lo = std::isfinite(lo(0, j)) ? lo(0, j) : Scalar(-1e3);
      const Scalar p_hi = std::isfinite(hi(0, j)) ? hi(0, j) : Scalar(1e3);
      Scalar p = p_lo + (p_hi - p_lo) * t;
      if (!(p >= lo(0, j))) p = lo(0, j);
      if (!(p <= hi(0, j))) p = hi(0, j);
      s(0, j) = p;
      s(1, j) = Scalar(0);
    } else {
      s(0, j) = in.value<Scalar>();
      s(1, j) = in.value<Scalar>();
    }
    s(2, j) = in.value<Scalar>();
  }
  const Scalar dt = in.value<Scalar>();
  const bool bounds_valid = claw::validate_state_bounds(lo, hi, ZohMode::Viable) == Status::Ok;
  bool viable =
      at_rest_inside && bounds_valid && within(s.topRows(2), lo.topRows(2), hi.topRows(2));

  const int steps = in.integer(1, 24);
  for (int k = 0; k < steps; ++k) {
    // A new commanded acceleration each step (some joints keep the integrated one).
    for (Eigen::Index j = 0; j < n; ++j)
      if (in.boolean()) s(2, j) = in.value<Scalar>();
    // Mostly the same dt (viability is for a fixed step), sometimes another one.
    const Scalar step_dt = (in.byte() % 16 == 0) ? in.value<Scalar>() : dt;
    if (!(step_dt == dt)) viable = false;
    const State<Scalar> before = s;
    const Status expected = expected_status(s, lo, hi, step_dt, mode);
    const Status status = claw::integrate_zoh(s, lo, hi, step_dt, mode);
    if (status == Status::NumericalOverflow) {
      // Overflowing joints are held, the others integrated: the state stays finite.
      CLAW_FUZZ_CHECK(expected == Status::Ok, "overflow reported for refused input");
      CLAW_FUZZ_CHECK(claw_fuzz::finite(s), "NumericalOverflow left a non-finite state");
      viable = false;
      continue;
    }
    if (status != Status::Ok) {
      CLAW_FUZZ_CHECK(claw_fuzz::same_bits(s, before), "a refused call touched the state");
      CLAW_FUZZ_CHECK(status == expected, "status differs from the documented one");
      continue;
    }
    CLAW_FUZZ_CHECK(expected == Status::Ok, "integrate_zoh accepted refused input");
    if (std::fabs(step_dt) < Scalar(CLAW_MIN_TIME_STEP)) {
      CLAW_FUZZ_CHECK(claw_fuzz::same_bits(s, before), "|dt| < 1e-9 touched the state");
      continue;
    }
    CLAW_FUZZ_CHECK(claw_fuzz::finite(s), "finite state in, non-finite state out");
    if (mode == ZohMode::Viable) {
      // The applied acceleration is clipped, never back-computed outside [amin, amax].
      for (Eigen::Index j = 0; j < n; ++j)
        CLAW_FUZZ_CHECK(s(2, j) >= lo(2, j) && s(2, j) <= hi(2, j),
                        "viable mode: acceleration outside its bounds");
      if (viable) CLAW_FUZZ_CHECK(within(s, lo, hi), "viable mode: viable state left its bounds");
    }
  }
}

}  // namespace

CLAW_FUZZ_ENTRY_FLOAT_AND_DOUBLE(run)
