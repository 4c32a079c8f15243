// python/src/jiminy_fast.hpp: claw::pd_controller (jiminy-compatible mode) over the plain arrays
// of the Python drop-in, through claw's vectorised kernel (detail::pd_jiminy_contiguous, the one
// PdController::update runs). Same checks in the same order, same status, same bits as
// claw::pd_controller: python/tests/test_jiminy.py compares the two on the reference vectors and
// on random and adversarial batches.
#pragma once

#include <claw/blocks/pd_controller.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

namespace claw_python {

/// Per-thread scratch: the target acceleration (a copy of the acceleration row, which the kernel
/// overwrites) and 1 / fl(amax dt) per joint. The caller sizes both to n joints.
struct PdScratch {
  std::vector<double> target, inverse;
};

/// Not a claw status: pd_controller_contiguous_status's "run claw::pd_controller instead".
constexpr auto kDelegate = static_cast<claw::Status>(0xff);

/// Count of j in [0, n) where pred(j) fails; no early exit, so the loop vectorises.
template <typename Pred>
inline std::int64_t count_failures(std::ptrdiff_t n, Pred pred) noexcept {
  std::int64_t failures = 0;
  for (std::ptrdiff_t j = 0; j < n; ++j) failures += pred(j) ? 0 : 1;
  return failures;
}

/// The work of pd_controller_contiguous; kDelegate where the caller must run claw's own path.
inline claw::Status pd_controller_contiguous_status(std::ptrdiff_t n, const double* q,
                                                    const double* v, double* state,
                                                    const double* lower, const double* upper,
                                                    const double* kp, const double* kd,
                                                    const double* limit, double dt, double* out,
                                                    PdScratch& scratch) noexcept {
  using claw::Status;
  const auto overlap = [](const double* a, std::ptrdiff_t na, const double* b, std::ptrdiff_t nb) {
    return claw::detail::spans_overlap(a, na, b, nb);
  };
  for (const auto& [input, size] : {std::pair<const double*, std::ptrdiff_t>{q, n}, {v, n},
                                    {lower, 3 * n}, {upper, 3 * n}, {kp, n}, {kd, n}, {limit, n}})
    if (overlap(state, 3 * n, input, size) || overlap(out, n, input, size)) return kDelegate;
  if (overlap(state, 3 * n, out, n)) return kDelegate;
  constexpr double kMax = std::numeric_limits<double>::max();
  const auto finite = [](double x) { return std::fabs(x) <= kMax; };
  // claw::pd_controller's order: measurements, parameters, then integrate_zoh's dt, state, bounds.
  if (count_failures(n, [&](std::ptrdiff_t j) { return finite(q[j]) & finite(v[j]); }) != 0)
    return Status::NonFiniteInput;
  if (count_failures(n, [&](std::ptrdiff_t j) {
        return finite(kp[j]) & (kp[j] >= 0.0) & finite(kd[j]) & (kd[j] >= 0.0) &
               (limit[j] >= 0.0);  // false for NaN
      }) != 0)
    return Status::InvalidParameter;
  bool skip = false;
  const Status dt_status = claw::detail::check_time_step(dt, skip);
  if (dt_status != Status::Ok || skip) return kDelegate;
  if (count_failures(3 * n, [&](std::ptrdiff_t j) { return finite(state[j]); }) != 0)
    return Status::NonFiniteInput;
  if (count_failures(3 * n, [&](std::ptrdiff_t j) {
        return (lower[j] == lower[j]) & (upper[j] == upper[j]);
      }) != 0)
    return Status::InvalidBounds;
  const double* a_max = upper + 2 * n;
  const double* w = state + n;
  double* inverse = scratch.inverse.data();
  for (std::ptrdiff_t j = 0; j < n; ++j) inverse[j] = claw::detail::jiminy_fast_inverse(a_max[j], dt);
  // integrate_zoh refuses a joint whose horizon count (|v| / amax) / dt is not finite. Where
  // |v| inverse <= 2^1000 (inverse = 1 / fl(amax dt) within an ulp, not NaN) the count is within
  // a few ulp of it, so finite; the others (rare) are decided by the exact expression.
  for (std::ptrdiff_t j = 0; j < n; ++j) {
    if (std::fabs(w[j]) * inverse[j] <= 0x1p1000) continue;
    if (!std::isfinite(claw::detail::jiminy_horizon_ratio(w[j], a_max[j], dt)))
      return Status::InvalidBounds;
  }
  std::memcpy(scratch.target.data(), state + 2 * n, sizeof(double) * std::size_t(n));
  const bool overflow = claw::detail::pd_jiminy_contiguous<Eigen::Dynamic>(
      n, dt, lower, lower + n, lower + 2 * n, upper, upper + n, upper + 2 * n, inverse, kp, kd,
      limit, q, v, scratch.target.data(), state, state + n, state + 2 * n, out);
  return overflow ? Status::NumericalOverflow : Status::Ok;
}


/// claw::pd_controller(q, v, state, lower, upper, kp, kd, limit, dt, out) for row-major 3 x n
/// state and bounds and unit-stride vectors. Returns false, touching nothing, where the caller
/// must run claw::pd_controller itself: dt not finite, negative or below CLAW_MIN_TIME_STEP, or
/// state or out sharing memory with another argument (the kernel's arrays are restrict).
inline bool pd_controller_contiguous(std::ptrdiff_t n, const double* q, const double* v,
                                     double* state, const double* lower, const double* upper,
                                     const double* kp, const double* kd, const double* limit,
                                     double dt, double* out, PdScratch& scratch,
                                     claw::Status& status) noexcept {
  status = pd_controller_contiguous_status(n, q, v, state, lower, upper, kp, kd, limit, dt, out,
                                           scratch);
  return status != kDelegate;
}

}  // namespace claw_python
