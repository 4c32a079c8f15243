// claw/core/interval.hpp: detail::is_valid_interval(lo, hi), the one rule every bound pair of claw
// is validated by (effort limits, ZOH state bounds, QP and LCQP bounds).
#pragma once

#include "claw/core/types.hpp"

namespace claw {
namespace detail {

/// True when [lo, hi] is a non-empty set of reals: lo <= hi (false when either is NaN), lo < +inf
/// and hi > -inf. An infinite end on its own side is an absent bound; lo = +inf or hi = -inf bounds
/// nothing and is refused (clipping into it would make the value infinite).
template <typename Scalar>
constexpr bool is_valid_interval(Scalar lo, Scalar hi) noexcept {
  return lo <= hi && lo < infinity<Scalar>() && hi > -infinity<Scalar>();
}

}  // namespace detail
}  // namespace claw
