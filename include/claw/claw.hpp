// claw/claw.hpp: umbrella header that includes every public claw header.
// Include the individual headers instead to keep compile times and firmware images small.
#pragma once

#include "claw/core/assert.hpp"
#include "claw/core/config.hpp"
#include "claw/core/status.hpp"
#include "claw/core/types.hpp"
#include "claw/integrators/zoh.hpp"
#include "claw/blocks/pd_controller.hpp"
#include "claw/blocks/pd_adapter.hpp"
