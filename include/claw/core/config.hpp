// claw/core/config.hpp: version numbers and every compile-time setting of claw.
// Each setting is a macro guarded by #ifndef, so a project overrides it with -D... or before the
// first include.
#pragma once

#define CLAW_VERSION_MAJOR 0
#define CLAW_VERSION_MINOR 1
#define CLAW_VERSION_PATCH 0
#define CLAW_VERSION_STRING "0.1.0"

/// 1 when the translation unit is compiled with C++ exceptions enabled. claw itself never throws:
/// this only tells tests and examples whether they may. Follows __cpp_exceptions unless set.
#ifndef CLAW_HAS_EXCEPTIONS
#if defined(__cpp_exceptions) && __cpp_exceptions
#define CLAW_HAS_EXCEPTIONS 1
#else
#define CLAW_HAS_EXCEPTIONS 0
#endif
#endif

/// 1 to check programmer errors with CLAW_ASSERT (sizes given to constructors and reserve(); hot
/// calls return SizeMismatch in every build). Defaults to on unless NDEBUG.
#ifndef CLAW_ENABLE_ASSERTS
#ifdef NDEBUG
#define CLAW_ENABLE_ASSERTS 0
#else
#define CLAW_ENABLE_ASSERTS 1
#endif
#endif

/// [s] A step 0 <= dt below this passed to a call means "no time has passed" (check_time_step:
/// no state advances); a step in settings below it is refused (valid_time_step_setting).
/// gym_jiminy uses 1e-9.
#ifndef CLAW_MIN_TIME_STEP
#define CLAW_MIN_TIME_STEP 1e-9
#endif
