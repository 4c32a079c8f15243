"""numba implementation of gym_jiminy's ``integrate_zoh`` and ``pd_controller``, the baseline of
python/bench/bench.py.

Written from the algorithm in claw's design notes (DESIGN.md 3.1 and 3.2): a loop over joints for
the integrator, as gym_jiminy does, and array expressions for the PD law. ``fastmath`` is off so
that every operation rounds as IEEE double in source order; the test
python/tests/test_numba_reference.py checks that the reference vectors come out bit for bit, which
shows this is the same algorithm as gym_jiminy's (which is compiled with fastmath on).

``make(fastmath)`` returns the pair (integrate_zoh, pd_controller) compiled with that flag.
"""
import numba as nb
import numpy as np


def make(fastmath=False):
    jit = nb.njit(cache=False, fastmath=fastmath)

    @jit
    def integrate_zoh(state, state_min, state_max, dt):
        assert dt >= 0.0, "The integration timestep 'dt' must be positive."
        if abs(dt) < 1e-9:
            return
        position = state[0]
        velocity = state[1]
        acceleration = state[2]
        for i in range(state.shape[1]):
            p_min = state_min[0, i]
            v_min = state_min[1, i]
            a_min = state_min[2, i]
            p_max = state_max[0, i]
            v_max = state_max[1, i]
            a_max = state_max[2, i]
            # 2. clip the acceleration, integrate it, clip to the velocity bounds
            acceleration[i] = min(max(acceleration[i], a_min), a_max)
            v0 = velocity[i]
            v = min(max(v0 + acceleration[i] * dt, v_min), v_max)
            # 3. braking horizon h = max(k dt, dt), k = trunc((|v0| / amax) / dt)
            h = max(int((abs(v0) / a_max) / dt) * dt, dt)
            d_min = p_min - position[i]
            d_max = p_max - position[i]
            if h > dt:
                drift = 0.5 * (h * (h - dt)) * a_max
                d_min -= drift
                d_max += drift
            # 4. reach the position bounds no sooner than the horizon
            v = min(max(v, d_min / h), d_max / h)
            # 5. a velocity that one step of amax cannot cancel is limited further
            if abs(v) > dt * a_max:
                lo = -max(d_min / v, dt) * a_max
                hi = max(d_max / v, dt) * a_max
                v = min(max(v, lo), hi)
            # 6. back out the applied acceleration, integrate the position
            acceleration[i] = (v - v0) / dt
            velocity[i] = v
            position[i] += dt * v

    @jit
    def pd_controller(q_measured, v_measured, command_state, command_state_lower,
                      command_state_upper, kp, kd, motors_effort_limit, control_dt, out):
        integrate_zoh(command_state, command_state_lower, command_state_upper, control_dt)
        q_error = command_state[0] - q_measured
        v_error = command_state[1] - v_measured
        out[:] = kp * (q_error + kd * v_error)
        out[:] = np.minimum(np.maximum(out, -motors_effort_limit), motors_effort_limit)

    return integrate_zoh, pd_controller
