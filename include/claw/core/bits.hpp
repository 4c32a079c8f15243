// claw/core/bits.hpp: detail::same_bits, equality of two floating-point values bit for bit (tells
// -0 from +0; a NaN equals only a NaN of the same bits), without a memcmp call on firmware.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace claw {
namespace detail {

/// True when a and b have the same bits. 4- and 8-byte scalars compare as one integer. Floating
/// point only (an object holding a pointer would compare its address).
template <typename Scalar, std::enable_if_t<std::is_floating_point<Scalar>::value, int> = 0>
inline bool same_bits(Scalar a, Scalar b) noexcept {
  if constexpr (sizeof(Scalar) == sizeof(std::uint32_t) ||
                sizeof(Scalar) == sizeof(std::uint64_t)) {
    using Bits =
        std::conditional_t<sizeof(Scalar) == sizeof(std::uint32_t), std::uint32_t, std::uint64_t>;
    Bits bits_a, bits_b;
    std::memcpy(&bits_a, &a, sizeof(Scalar));
    std::memcpy(&bits_b, &b, sizeof(Scalar));
    return bits_a == bits_b;
  } else {
    unsigned char bytes_a[sizeof(Scalar)], bytes_b[sizeof(Scalar)];
    std::memcpy(bytes_a, &a, sizeof(Scalar));
    std::memcpy(bytes_b, &b, sizeof(Scalar));
    return std::memcmp(bytes_a, bytes_b, sizeof(Scalar)) == 0;
  }
}

}  // namespace detail
}  // namespace claw
