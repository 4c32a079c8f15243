// claw/core/interval.hpp: Interval, a closed range [lower, upper], and detail::is_valid_interval,
// the one rule every bound pair is validated by, and detail::bound_pairs_status on it (solvers).
#pragma once

#include "claw/core/status.hpp"
#include "claw/core/types.hpp"

namespace claw {

/// A closed range [lower, upper] of a scalar (+-inf ends: unbounded on that side); empty when
/// lower > upper.
template <typename Scalar>
struct Interval {
  Scalar lower;  ///< lower end
  Scalar upper;  ///< upper end
};

namespace detail {

/// True when [lo, hi] is a non-empty set of reals: lo <= hi (false when either is NaN), lo < +inf
/// and hi > -inf. An infinite end on its own side is an absent bound; lo = +inf or hi = -inf bounds
/// nothing and is refused (clipping into it would make the value infinite).
template <typename Scalar>
constexpr bool is_valid_interval(Scalar lo, Scalar hi) noexcept {
  return lo <= hi && lo < infinity<Scalar>() && hi > -infinity<Scalar>();
}

/// True when every pair (lo_i, hi_i) of two vectors of one size passes is_valid_interval. A NaN
/// end fails it, so a caller that must tell NaN apart looks for one only when this is false.
template <typename DL, typename DU>
bool all_valid_intervals(const Eigen::MatrixBase<DL>& lo,
                         const Eigen::MatrixBase<DU>& hi) noexcept {
  const Eigen::Index n = lo.size();
  for (Eigen::Index i = 0; i < n; ++i)
    if (!is_valid_interval(lo.coeff(i), hi.coeff(i))) return false;
  return true;
}

inline bool all_pairs_valid() noexcept { return true; }

/// all_valid_intervals over every (lower, upper) pair of the arguments.
template <typename DL, typename DU, typename... Rest>
bool all_pairs_valid(const Eigen::MatrixBase<DL>& lo, const Eigen::MatrixBase<DU>& hi,
                     const Rest&... rest) noexcept {
  return all_valid_intervals(lo, hi) && all_pairs_valid(rest...);
}

/// The status of a solver's bound vectors, given as (lower, upper) pairs: Ok when every pair
/// passes all_valid_intervals; otherwise NonFiniteInput when any end is NaN (a NaN fails the
/// interval test too and is reported as what it is), else InvalidBounds.
template <typename... Ends>
Status bound_pairs_status(const Ends&... ends) noexcept {
  static_assert(sizeof...(Ends) % 2 == 0, "bound_pairs_status takes (lower, upper) pairs");
  if (all_pairs_valid(ends...)) return Status::Ok;
  return (... && none_nan(ends)) ? Status::InvalidBounds : Status::NonFiniteInput;
}

}  // namespace detail
}  // namespace claw
