// claw/core/remainder.hpp: detail::remainder(x, p), the IEEE remainder x - n p (n the integer
// nearest x / p, ties to even) computed exactly with subtractions only, no libm.
#pragma once

#include <limits>

namespace claw {
namespace detail {

/// The IEEE 754 remainder of x by finite p > 0, bit for bit std::remainder(x, p): in [-p/2, p/2]
/// with the sign of x for a zero result, NaN for an infinite or NaN x. Binary long division of |x|
/// by p: y = p 2^k is doubled while y <= |x| - y, then subtracted wherever it fits while halved
/// back to p; each r - y with y <= r < 2y is exact (Sterbenz), so r ends as fmod(|x|, p) exactly
/// and the last step's choice is the parity of the quotient, which decides a tie r = p/2. At most
/// about log2(|x| / p) + 1 steps (at most the exponent range of Scalar). Used instead of
/// std::remainder so that firmware does not link libm's remainder and fmod (about 650 bytes on a
/// Cortex-M4). Pinned by tests/test_pid.cpp ("wrap's remainder is std::remainder bit for bit").
template <typename Scalar>
Scalar remainder(Scalar x, Scalar p) noexcept {
  const bool negative = x < Scalar(0);
  Scalar r = negative ? -x : x;
  // An infinite x (an error that overflowed) has no remainder: NaN, as std::remainder; a NaN x
  // stays NaN. (The loops below need a finite r: inf - inf would never halve back to p.)
  if (!(r <= std::numeric_limits<Scalar>::max())) return x - x;
  if (!(r > p - r)) return x;  // |x| <= p/2: n = 0 (a tie |x| = p/2 rounds to n = 0, even)
  Scalar y = p;
  while (y <= r - y) y += y;
  bool odd = false;
  for (;;) {
    const bool fits = r >= y;
    if (fits) r -= y;
    if (y == p) {
      odd = fits;
      break;
    }
    y /= Scalar(2);
  }
  // r = fmod(|x|, p) in [0, p): round the quotient to nearest, ties to even.
  const Scalar rest = p - r;
  if (r > rest || (r == rest && odd)) r -= p;
  return negative ? -r : r;
}

}  // namespace detail
}  // namespace claw
