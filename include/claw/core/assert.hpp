// claw/core/assert.hpp: CLAW_ASSERT for programmer errors (such as mismatched sizes) and its
// handler hook. Asserts compile out when CLAW_ENABLE_ASSERTS is 0 (by default under NDEBUG); they
// never throw.
#pragma once

#include <cstdlib>

#include "claw/core/config.hpp"

/// 1 when the default handler prints the failed assertion (expression, message, file, line) to
/// stderr before std::abort(): on operating systems; 0 on bare metal, where stdio may not exist
/// and set_assert_handler() is the hook. Define it to override.
#ifndef CLAW_ASSERT_PRINTS
#if defined(__linux__) || defined(__APPLE__) || defined(_WIN32) || defined(__unix__)
#define CLAW_ASSERT_PRINTS 1
#else
#define CLAW_ASSERT_PRINTS 0
#endif
#endif

#if CLAW_ASSERT_PRINTS
#include <cstdio>
#endif

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

/// Installs the handler called on a failed CLAW_ASSERT; nullptr restores the default (print where
/// CLAW_ASSERT_PRINTS, then std::abort). Returns the previous handler.
inline AssertHandler set_assert_handler(AssertHandler handler) noexcept {
  AssertHandler previous = detail::assert_handler_slot();
  detail::assert_handler_slot() = handler;
  return previous;
}

namespace detail {
[[noreturn]] inline void assertion_failed(const char* expression, const char* message,
                                          const char* file, int line) noexcept {
  if (AssertHandler handler = assert_handler_slot()) handler(expression, message, file, line);
#if CLAW_ASSERT_PRINTS
  std::fprintf(stderr, "%s:%d: claw assertion failed: %s (%s)\n", file, line, expression, message);
#endif
  std::abort();
}
}  // namespace detail

}  // namespace claw

#if CLAW_ENABLE_ASSERTS
#define CLAW_ASSERT(condition, message) \
  ((condition) ? static_cast<void>(0)   \
               : ::claw::detail::assertion_failed(#condition, message, __FILE__, __LINE__))
#else
#define CLAW_ASSERT(condition, message) static_cast<void>(0)
#endif
