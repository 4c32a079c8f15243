"""claw: robot joint control laws on numpy float64 arrays, computed in place by the C++ library.

gym_jiminy drop-ins: integrate_zoh, pd_controller, pd_adapter, get_encoder_to_motor_map.
Every call that can be refused returns a claw.Status; exceptions are raised for misuse only
(wrong dtype, layout, shape, NaN given to a drop-in). See help(claw.<name>).
"""
from ._claw import *  # noqa: F401,F403
from ._claw import __version__, _integrate_zoh_reference, _pd_controller_reference  # noqa: F401
