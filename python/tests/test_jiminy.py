"""gym_jiminy drop-ins: the jiminy reference vectors bit for bit, the statuses of the inputs the
original raises on, the bad-input rules (each raises naming the argument and writes nothing) and
the in-place, no-copy contract."""
import numpy as np
import pytest

import claw
from conftest import array, bits_equal, load_reference, number

S = claw.Status


@pytest.mark.parametrize("function", [claw.integrate_zoh, claw._integrate_zoh_reference])
def test_integrate_zoh_reference_bit_for_bit(function):
    cases = load_reference("jiminy", "integrate_zoh.json")
    assert cases
    for c in cases:
        state = array(c["state"])
        status = function(state, array(c["state_min"]), array(c["state_max"]),
                                    number(c["dt"]))
        assert status == S.Ok, c["id"]
        assert bits_equal(state, array(c["expected_state"])), c["id"]


@pytest.mark.parametrize("function", [claw.pd_controller, claw._pd_controller_reference])
def test_pd_controller_reference_bit_for_bit(function):
    cases = load_reference("jiminy", "pd_controller.json")
    assert cases
    for c in cases:
        encoder = array(c["encoder_data"])
        state = array(c["command_state"])
        out = np.full(state.shape[1], -7.0)
        status = function(np.ascontiguousarray(encoder[0]), np.ascontiguousarray(encoder[1]),
                          state, array(c["command_state_lower"]), array(c["command_state_upper"]),
                          array(c["kp"]), array(c["kd"]), array(c["motors_effort_limit"]),
                          number(c["control_dt"]), out)
        assert status == S.Ok, c["id"]
        assert bits_equal(state, array(c["expected_command_state"])), c["id"]
        assert bits_equal(out, array(c["expected_out"])), c["id"]


def test_pd_adapter_reference_bit_for_bit():
    cases = load_reference("jiminy", "pd_adapter.json")
    assert cases
    for c in cases:
        state = array(c["command_state"])
        out = array(c["out_init"])
        deadband = c["motors_velocity_deadband"]
        status = claw.pd_adapter(array(c["action"]), int(c["order"]), state,
                                 array(c["command_state_lower"]), array(c["command_state_upper"]),
                                 number(c["step_dt"]), out,
                                 is_instantaneous=bool(c["is_instantaneous"]),
                                 motors_velocity_deadband=None if deadband is None else array(deadband))
        assert status == S.Ok, c["id"]
        assert bits_equal(state, array(c["expected_command_state"])), c["id"]
        assert bits_equal(out, array(c["expected_out"])), c["id"]


def test_pd_controller_bounds_and_encoder_map_reference():
    cases = load_reference("jiminy", "pd_controller_bounds.json")
    assert cases
    for c in cases:
        motors = c["motors"]
        field = lambda name: np.array([number(m[name]) for m in motors])
        acceleration = c["joint_acceleration_limit"]
        status, lower, upper, initial = claw.pd_controller_bounds(
            field("position_limit_lower"), field("position_limit_upper"), field("velocity_limit"),
            field("effort_limit"), field("mechanical_reduction"), array(c["kp"]), array(c["kd"]),
            number(c["step_dt"]), joint_position_margin=number(c["joint_position_margin"]),
            joint_velocity_limit=number(c["joint_velocity_limit"]),
            joint_acceleration_limit=None if acceleration is None else number(acceleration))
        assert status == S.Ok, c["id"]
        assert bits_equal(lower, array(c["expected_command_state_lower"])), c["id"]
        assert bits_equal(upper, array(c["expected_command_state_upper"])), c["id"]
        assert bits_equal(initial, array(c["expected_initial_command_state"])), c["id"]
        mapping = claw.get_encoder_to_motor_map(c["encoder_motor_index"])
        expected = c["expected_encoder_to_motor_map"]
        if expected == "identity":
            assert mapping == slice(None), c["id"]
        else:
            assert mapping == expected, c["id"]
    with pytest.raises(ValueError, match="encoder_motor_index"):
        claw.get_encoder_to_motor_map([0, 0, 2])


def test_where_gym_jiminy_raises_claw_returns_a_status_and_touches_nothing():
    cases = load_reference("jiminy", "exceptions.json")
    expected = {"negative": S.NegativeTimeStep, "acceleration_max == 0": S.InvalidBounds}
    # Each note says why the original raised: a negative dt, or a zero acceleration bound.
    checked = 0
    for c in cases:
        if c["function"] == "integrate_zoh":
            state = array(c["state"])
            before = state.copy()
            status = claw.integrate_zoh(state, array(c["state_min"]), array(c["state_max"]),
                                        number(c["dt"]))
        else:
            state = array(c["command_state"])
            before = state.copy()
            encoder = array(c["encoder_data"])
            n = state.shape[1]
            out = np.full(n, 3.0)
            status = claw.pd_controller(np.ascontiguousarray(encoder[0]),
                                        np.ascontiguousarray(encoder[1]), state,
                                        array(c["command_state_lower"]),
                                        array(c["command_state_upper"]), array(c["kp"]),
                                        array(c["kd"]), array(c["motors_effort_limit"]),
                                        number(c["control_dt"]), out)
            assert bits_equal(out, np.full(n, 3.0)), c["id"]
        want = [s for key, s in expected.items() if key in c["note"]]
        assert want, c["note"]
        assert status == want[0], c["id"]
        assert bits_equal(state, before), c["id"]
        checked += 1
    assert checked == len(cases)


def make_pd_args(n, seed=0):
    rng = np.random.default_rng(seed)
    state = np.zeros((3, n))
    state[0] = rng.uniform(-0.5, 0.5, n)
    state[1] = rng.uniform(-2, 2, n)
    state[2] = rng.uniform(-90, 90, n)
    lower = np.tile(np.array([[-1.0], [-5.0], [-100.0]]), (1, n))
    upper = -lower
    return [rng.uniform(-1, 1, n), rng.uniform(-3, 3, n), state, lower, upper,
            np.full(n, 100.0), np.full(n, 0.01), np.full(n, 50.0), 0.001, np.zeros(n)]


def copy_args(args):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


def test_fast_pd_controller_equals_claw_pd_controller_on_batches():
    """The drop-in runs the vectorised kernel; claw::pd_controller is the reference: same bits,
    same status, including joints the kernel hands to the exact path (bounds hit, huge values,
    an infinite acceleration bound, long horizons) and refused batches."""
    for n in (1, 7, 63, 64, 65, 1000, 5000):
        for seed in range(3):
            args = make_pd_args(n, seed)
            rng = np.random.default_rng(100 + seed)
            # Adversarial joints: pinned position bounds, a bound at the state, huge values,
            # amax = inf, tiny amax (horizon in the millions), velocity beyond its bound.
            k = max(1, n // 5)
            idx = rng.choice(n, size=k, replace=n < k)
            args[3][0, idx] = args[2][0, idx] - 1e-4
            args[4][0, idx[: k // 2]] = args[2][0, idx[: k // 2]]
            args[4][2, idx[::3]] = np.inf
            args[4][2, idx[1::3]] = 1e-6
            args[2][1, idx[2::4]] = 1e150
            for steps in range(4):
                a, b = copy_args(args), copy_args(args)
                sa = claw.pd_controller(*a)
                sb = claw._pd_controller_reference(*b)
                assert sa == sb, (n, seed, steps)
                assert bits_equal(a[2], b[2]) and bits_equal(a[9], b[9]), (n, seed, steps)
                za, zb = args[2].copy(), args[2].copy()
                assert (claw.integrate_zoh(za, args[3], args[4], args[8])
                        == claw._integrate_zoh_reference(zb, args[3], args[4], args[8]))
                assert bits_equal(za, zb), (n, seed, steps)
                args = a
            # The same bounds again with another period: the cached inverse must not be reused.
            a, b = copy_args(args), copy_args(args)
            a[8] = b[8] = 0.0007
            assert claw.pd_controller(*a) == claw._pd_controller_reference(*b)
            assert bits_equal(a[2], b[2]) and bits_equal(a[9], b[9])
            # Bounds changed in place between calls (same array object): recomputed.
            args[4][2, 0] *= 0.5
            a, b = copy_args(args), copy_args(args)
            a[4], b[4] = args[4], args[4]
            assert claw.pd_controller(*a) == claw._pd_controller_reference(*b)
            assert bits_equal(a[2], b[2]) and bits_equal(a[9], b[9])
    # A refused batch: amax = 0 at one joint with v != 0 (InvalidBounds), nothing written.
    args = make_pd_args(100)
    args[4][2, 57] = 0.0
    a, b = copy_args(args), copy_args(args)
    assert claw.pd_controller(*a) == claw._pd_controller_reference(*b) == S.InvalidBounds
    assert bits_equal(a[2], args[2]) and bits_equal(a[9], args[9])


def test_aliased_arguments_give_the_reference_answer():
    args = make_pd_args(16)
    a, b = copy_args(args), copy_args(args)
    a[0] = a[2][0]  # q_measured is a view of the command position
    b[0] = b[2][0]
    assert claw.pd_controller(*a) == claw._pd_controller_reference(*b)
    assert bits_equal(a[2], b[2]) and bits_equal(a[9], b[9])


def test_outputs_are_written_in_place_without_copy():
    n = 7
    args = make_pd_args(n)
    buffer = np.full(n + 4, 123.0)
    out = buffer[2:2 + n]  # a contiguous view: the module must write through it
    state_buffer = np.zeros((3, n))
    np.copyto(state_buffer, args[2])
    args[2], args[9] = state_buffer, out
    expected = copy_args(args)
    expected[9] = np.zeros(n)
    assert claw._pd_controller_reference(*expected) == S.Ok
    assert claw.pd_controller(*args) == S.Ok
    assert bits_equal(buffer[2:2 + n], expected[9])
    assert buffer[0] == buffer[1] == buffer[-1] == buffer[-2] == 123.0
    assert bits_equal(state_buffer, expected[2])


BAD_CASES = [
    # (argument index, replacement factory, exception type, text expected in the message)
    (0, lambda a: a.astype(np.float32), TypeError, "q_measured"),
    (1, lambda a: list(a), TypeError, "v_measured"),
    (2, lambda a: np.asfortranarray(a), ValueError, "command_state"),
    (3, lambda a: a[:, :-1], ValueError, "command_state_lower"),
    (5, lambda a: np.stack([a, a])[:, 0], ValueError, "kp"),
    (6, lambda a: a.astype(">f8"), TypeError, "kd"),
    (7, lambda a: np.zeros(a.shape[0] + 1), ValueError, "motors_effort_limit"),
    (8, lambda a: "0.001", TypeError, "control_dt"),
    (9, lambda a: np.zeros(2 * a.shape[0])[::2], ValueError, "out"),
]


@pytest.mark.parametrize("index, make, error, name", BAD_CASES)
def test_bad_input_raises_naming_the_argument_and_writes_nothing(index, make, error, name):
    args = make_pd_args(6)
    args[index] = make(args[index])
    state, out = args[2].copy(), args[9].copy()
    with pytest.raises(error, match=name):
        claw.pd_controller(*args)
    if isinstance(args[2], np.ndarray) and args[2].flags.c_contiguous:
        assert bits_equal(args[2], state)
    if isinstance(args[9], np.ndarray):
        assert bits_equal(np.asarray(args[9]), out)


def test_read_only_output_is_refused():
    args = make_pd_args(5)
    args[9].flags.writeable = False
    with pytest.raises(ValueError, match="out is read-only"):
        claw.pd_controller(*args)


@pytest.mark.parametrize("index, name", [(0, "q_measured"), (1, "v_measured"), (2, "command_state"),
                                         (3, "command_state_lower"), (5, "kp"),
                                         (7, "motors_effort_limit")])
def test_nan_raises_naming_the_argument_and_writes_nothing(index, name):
    args = make_pd_args(9)
    args[index] = args[index].copy()
    args[index].flat[4] = np.nan
    state, out = args[2].copy(), args[9].copy()
    with pytest.raises(ValueError, match=f"{name} holds NaN"):
        claw.pd_controller(*args)
    assert bits_equal(np.nan_to_num(args[2]), np.nan_to_num(state))
    assert bits_equal(args[9], out)


def test_nan_in_zoh_and_adapter_inputs_raises():
    state = np.zeros((3, 2))
    lower, upper = -np.ones((3, 2)), np.ones((3, 2))
    state[1, 1] = np.inf
    with pytest.raises(ValueError, match="integrate_zoh: state holds NaN or Inf"):
        claw.integrate_zoh(state, lower, upper, 0.01)
    with pytest.raises(ValueError, match="dt holds NaN"):
        claw.integrate_zoh(np.zeros((3, 2)), lower, upper, float("nan"))
    with pytest.raises(ValueError, match="pd_adapter: action holds NaN"):
        claw.pd_adapter(np.array([0.0, np.nan]), 0, np.zeros((3, 2)), lower, upper, 0.04,
                        np.zeros(2))


def test_keywords_and_signature_errors():
    args = make_pd_args(3)
    names = ["q_measured", "v_measured", "command_state", "command_state_lower",
             "command_state_upper", "kp", "kd", "motors_effort_limit", "control_dt", "out"]
    expected = copy_args(args)
    assert claw.pd_controller(*expected) == S.Ok
    assert claw.pd_controller(**dict(zip(names, args))) == S.Ok
    assert bits_equal(args[9], expected[9])
    with pytest.raises(TypeError, match="missing required argument 'out'"):
        claw.pd_controller(*args[:9])
    with pytest.raises(TypeError, match="unexpected keyword argument 'outt'"):
        claw.pd_controller(*args[:9], outt=args[9])
    with pytest.raises(TypeError, match="multiple values"):
        claw.pd_controller(*args, out=args[9])
    with pytest.raises(ValueError, match="order"):
        claw.pd_adapter(np.zeros(3), 2, args[2], args[3], args[4], 0.04, np.zeros(3))


def test_status_is_a_return_value_not_an_exception():
    args = make_pd_args(4)
    args[8] = -0.001
    state = args[2].copy()
    assert claw.pd_controller(*args) == S.NegativeTimeStep
    assert bits_equal(args[2], state)
    args = make_pd_args(4)
    args[5][1] = -1.0
    assert claw.pd_controller(*args) == S.InvalidParameter
    assert not S.InvalidParameter and S.Ok


def test_batched_call_is_the_same_call():
    n7 = make_pd_args(7, seed=3)
    robots = 100
    batched = [np.tile(a, (1, robots)) if isinstance(a, np.ndarray) and a.ndim == 2
               else np.tile(a, robots) if isinstance(a, np.ndarray) else a for a in n7]
    batched = [np.ascontiguousarray(a) if isinstance(a, np.ndarray) else a for a in batched]
    assert claw.pd_controller(*batched) == S.Ok
    assert claw.pd_controller(*n7) == S.Ok
    assert bits_equal(batched[9][-7:], n7[9]) and bits_equal(batched[2][:, :7], n7[2])


def test_batched_calls_release_the_gil():
    """With a 5 s switch interval, a thread holding the GIL keeps it between its calls; the main
    thread gets to run while the worker is still busy only if the calls release it."""
    import sys
    import threading
    import time

    n = 49152
    args = make_pd_args(n)
    block = claw.PdController(n, command_state_lower=args[3], command_state_upper=args[4],
                              kp=args[5], kd=args[6], effort_limit=args[7], control_dt=args[8])
    calls = {"drop-in": lambda: claw.pd_controller(*args),
             "class": lambda: block.update(args[0], args[1], args[2][2].copy(), args[9])}
    old = sys.getswitchinterval()
    try:
        sys.setswitchinterval(5.0)
        for name, call in calls.items():
            done = []

            def worker():
                for i in range(60):
                    call()
                    done.append(i)

            thread = threading.Thread(target=worker)
            thread.start()
            while not done:
                time.sleep(0)
            seen = len(done)
            thread.join()
            assert seen < 60, name
    finally:
        sys.setswitchinterval(old)
