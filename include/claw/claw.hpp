// claw/claw.hpp: umbrella header that includes every public claw header (the detail:: helpers,
// core/bits.hpp, core/product.hpp, core/remainder.hpp and solvers/detail/, come in through the
// headers that use them). Include the individual headers instead to keep compile times and
// firmware images small.
#pragma once

#include "claw/blocks/actuator.hpp"
#include "claw/blocks/pd_adapter.hpp"
#include "claw/blocks/pd_controller.hpp"
#include "claw/core/assert.hpp"
#include "claw/core/config.hpp"
#include "claw/core/fields.hpp"
#include "claw/core/status.hpp"
#include "claw/core/time_step.hpp"
#include "claw/core/types.hpp"
#include "claw/filters/fliqc.hpp"
#include "claw/integrators/zoh.hpp"
#include "claw/laws/activation.hpp"
#include "claw/laws/anti_windup.hpp"
#include "claw/laws/delay_line.hpp"
#include "claw/laws/effort_clamp.hpp"
#include "claw/laws/pd.hpp"
#include "claw/laws/pid.hpp"
#include "claw/laws/pid_derived.hpp"
#include "claw/laws/pid_presets.hpp"
#include "claw/laws/pid_settings.hpp"
#include "claw/laws/pid_state.hpp"
#include "claw/laws/position_effort_limit.hpp"
#include "claw/laws/slew_limiter.hpp"
#include "claw/laws/stable_pd.hpp"
#include "claw/laws/velocity_servo.hpp"
#include "claw/solvers/lcp.hpp"
#include "claw/solvers/lcqp.hpp"
#include "claw/solvers/qp.hpp"
