// claw/core/assert.hpp: CLAW_ASSERT for programmer errors (such as mismatched sizes) and its handler hook.
// Asserts compile out when CLAW_ENABLE_ASSERTS is 0 (by default under NDEBUG); they never throw.
#pragma once

#include <cstdlib>

#include "claw/core/config.hpp"

namespace claw {

/// Signature of the function called when a CLAW_ASSERT fails: the failed expression, a message,
/// the file and the line. It must not return (abort, reset the MCU, longjmp to a safe state...).
using AssertHandler = void (*)(const char* expression, const char* message, const char* file,
                               int line);

namespace detail {
inline AssertHandler& assert_handler_slot() noexcept {
  static AssertHandler handler = nullptr;
  return handler;
}
}  // namespace detail

/// Installs the handler called on a failed CLAW_ASSERT; nullptr restores the default (std::abort).
/// Returns the previous handler.
inline AssertHandler set_assert_handler(AssertHandler handler) noexcept {
  AssertHandler previous = detail::assert_handler_slot();
  detail::assert_handler_slot() = handler;
  return previous;
}

namespace detail {
[[noreturn]] inline void assertion_failed(const char* expression, const char* message,
                                          const char* file, int line) noexcept {
  if (AssertHandler handler = assert_handler_slot()) handler(expression, message, file, line);
  std::abort();
}
}  // namespace detail

}  // namespace claw

#if CLAW_ENABLE_ASSERTS
#define CLAW_ASSERT(condition, message)                                                    \
  ((condition) ? static_cast<void>(0)                                                      \
               : ::claw::detail::assertion_failed(#condition, message, __FILE__, __LINE__))
#else
#define CLAW_ASSERT(condition, message) static_cast<void>(0)
#endif
