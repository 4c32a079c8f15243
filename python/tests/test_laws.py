"""The classes on the anchors' own runs (MuJoCo's PID plugin and native <pid>, CoppeliaSim's joint
loop) with the tolerance of the C++ conformance tests (1e-12 relative), the statuses as return
values, keyword settings and closed forms of the PD blocks."""
import math

import numpy as np
import pytest

import claw
from conftest import array, bits_equal, load_reference, number

S = claw.Status


def close(actual, expected):
    return abs(actual - expected) <= 1e-12 * max(1.0, abs(expected))


def value_or(x, fallback):
    return fallback if x is None else number(x)


def range_or_inf(r):
    return (number(r[0]), number(r[1])) if isinstance(r, list) else (-math.inf, math.inf)


def one(x):
    return np.array([float(x)])


def test_mujoco_plugin_preset_reproduces_mujoco_pid():
    checked = 0
    for c in load_reference("mujoco", "pid_plugin.json"):
        cfg = c["config"]
        if c["compile_error"] is not None or cfg["dyntype"] != "none":
            continue
        ctrl_min, ctrl_max = range_or_inf(cfg["ctrlrange"])
        force_min, force_max = range_or_inf(cfg["forcerange"])
        options = dict(kp=number(cfg["kp"]), ki=number(cfg["ki"]), kd=number(cfg["kd"]),
                       imax=value_or(cfg["imax"], math.inf),
                       slewmax=value_or(cfg["slewmax"], math.inf), ctrl_min=ctrl_min,
                       ctrl_max=ctrl_max, force_min=force_min, force_max=force_max,
                       timestep=number(cfg["timestep"]))
        pid = claw.Pid.mujoco_plugin(1, **options)
        has_integral, has_slew = options["ki"] != 0.0, cfg["slewmax"] is not None
        force = np.zeros(1)
        for k, step in enumerate(c["steps"]):
            status = pid.update(one(step["ctrl"]), one(step["length"]), one(step["velocity"]), force)
            assert status == S.Ok, (c["id"], k)
            assert close(force[0], number(step["force"])), (c["id"], k)
            act = list(step["act_after"])
            if has_integral:
                assert close(pid.error_integral[0], number(act.pop(0))), (c["id"], k)
            if has_slew:
                assert close(pid.slew_state[0], number(act.pop(0))), (c["id"], k)
            assert not act
            checked += 1
    assert checked > 0


def test_mujoco_native_preset_reproduces_native_pid():
    checked = 0
    for c in load_reference("mujoco", "pid_native.json"):
        if c["compile_error"] is not None:
            continue
        cfg = c["config"]
        pos_min, pos_max = range_or_inf(cfg["ctrlrange"])
        vel_min, vel_max = range_or_inf(cfg.get("velrange"))
        ff_min, ff_max = range_or_inf(cfg.get("ffrange"))
        force_min, force_max = range_or_inf(cfg["forcerange"])
        options = dict(kp=number(cfg["kp"]), ki=number(cfg["ki"]), kv=number(cfg["kd"]),
                       imax=value_or(cfg["imax"], 0.0), slewmax=value_or(cfg["slewmax"], 0.0),
                       pos_min=pos_min, pos_max=pos_max, vel_min=vel_min, vel_max=vel_max,
                       ff_min=ff_min, ff_max=ff_max, force_min=force_min, force_max=force_max,
                       actearly=bool(cfg.get("actearly", False)), timestep=number(cfg["timestep"]))
        pid = claw.Pid.mujoco_native(1, **options)
        slot = {name: i for i, name in enumerate(cfg["input"])}
        force = np.zeros(1)
        for k, step in enumerate(c["steps"]):
            ctrl = step["ctrl"]
            value = lambda name: float(ctrl[slot[name]]) if name in slot else 0.0
            status = pid.update(one(value("pos")), one(step["length"]), one(step["velocity"]),
                                force, target_velocity=one(value("vel")),
                                feedforward=one(value("ff")))
            assert status == S.Ok, (c["id"], k)
            assert close(force[0], number(step["force"])), (c["id"], k)
            act = list(step["act_after"])
            if options["slewmax"] > 0.0:
                assert close(pid.slew_state[0], number(act.pop(0))), (c["id"], k)
            if options["ki"] > 0.0:
                assert close(pid.error_integral[0], number(act.pop(0))), (c["id"], k)
            assert not act
            checked += 1
    assert checked > 0


def test_coppeliasim_preset_reproduces_the_joint_callback():
    cases = load_reference("coppelia", "velocity_pid.json")
    assert cases
    for c in cases:
        servo = claw.VelocityServo.coppeliasim(1, number(c["kp"]), number(c["ki"]),
                                               number(c["kd"]), number(c["vel_upper_limit"]),
                                               number(c["max_force"]), number(c["dt"]))
        velocity, force = np.zeros(1), np.zeros(1)
        for k, error in enumerate(c["error"]):
            assert servo.update(one(error), velocity, force) == S.Ok
            assert close(velocity[0], number(c["expected_velocity"][k])), (c["id"], k)
            assert close(force[0], number(c["expected_force"][k])), (c["id"], k)


def test_pid_keywords_closed_form_and_statuses():
    n = 3
    pid = claw.Pid(n, kp=np.array([1.0, 2.0, 3.0]), ki=0.5, kd=0.1, dt=0.01, effort_limit=2.5)
    target, q, v, out = np.array([1.0, 1.0, 1.0]), np.zeros(n), np.array([0.0, 1.0, -1.0]), np.zeros(n)
    assert pid.update(target, q, v, out) == S.Ok
    # Backward Euler: I+ = ki h e; u = kp e + I+ + kd (0 - v), clipped to +-2.5.
    expected = np.clip(np.array([1.0, 2.0, 3.0]) * 1.0 + 0.5 * 0.01 * 1.0 + 0.1 * (0.0 - v), -2.5, 2.5)
    assert np.allclose(out, expected, rtol=0, atol=1e-15)
    before = out.copy()
    assert pid.update(np.array([np.nan, 0.0, 0.0]), q, v, out) == S.NonFiniteInput
    assert bits_equal(out, before)
    assert pid.configure(kp=-1.0) == S.InvalidParameter  # old settings kept
    assert pid.update(target, q, v, out) == S.Ok
    with pytest.raises(ValueError, match="settings refused"):
        claw.Pid(2, dt=-1.0)
    with pytest.raises(TypeError, match="unknown setting 'kq'"):
        claw.Pid(2, kq=1.0)
    with pytest.raises(ValueError, match=r"Pid.update: out must have shape \(3,\)"):
        pid.update(target, q, v, np.zeros(4))


def test_pid_period_per_call_and_signed_gains():
    n = 2
    fixed = claw.Pid(n, kp=2.0, ki=40.0, kd=0.3, dt=0.002)
    per_call = claw.Pid(n, kp=2.0, ki=40.0, kd=0.3, dt=0.5)  # dt unused: h given per call
    target, q, v = np.array([0.3, -0.2]), np.zeros(n), np.array([0.1, 0.0])
    out_fixed, out_per_call = np.zeros(n), np.zeros(n)
    for _ in range(5):
        assert fixed.update(target, q, v, out_fixed) == S.Ok
        assert per_call.update(target, q, v, out_per_call, h=0.002) == S.Ok
        assert bits_equal(out_fixed, out_per_call)
    before = out_per_call.copy()
    assert per_call.update(target, q, v, out_per_call, h=float("nan")) == S.NonFiniteInput
    assert per_call.update(target, q, v, out_per_call, h=-1e-3) == S.NegativeTimeStep
    assert per_call.update(target, q, v, out_per_call, h=0.0) == S.Ok  # no time passes
    assert bits_equal(out_per_call, before)
    # Negative gains only with signed_gains (Drake's sign convention, Arduino's REVERSE).
    assert claw.Pid(n).configure(kp=-1.0) == S.InvalidParameter
    reverse = claw.Pid(n, kp=-2.0, ki=-40.0, kd=-0.3, dt=0.002, signed_gains=True)
    out_reverse = np.zeros(n)
    assert reverse.update(target, q, v, out_reverse) == S.Ok
    direct = claw.Pid(n, kp=2.0, ki=40.0, kd=0.3, dt=0.002)
    assert direct.update(target, q, v, out_fixed) == S.Ok
    assert np.array_equal(out_reverse, -out_fixed)


def test_control_toolbox_presets_on_its_own_tests():
    """Every case of the control_toolbox family made only of steps and resets, each version through
    its preset (<= 5.5: control_toolbox_legacy), at the file's tolerances."""
    strategies = {"NONE": claw.ControlToolboxStrategy.None_,
                  "BACK_CALCULATION": claw.ControlToolboxStrategy.BackCalculation,
                  "CONDITIONAL_INTEGRATION": claw.ControlToolboxStrategy.ConditionalIntegration,
                  "LEGACY": claw.ControlToolboxStrategy.Legacy}
    checked = 0
    for case in load_reference("control_toolbox", "pid_tests.json")["cases"]:
        if any(op["op"] not in ("compute", "reset") for op in case["ops"]):
            continue
        source = case["source"]
        major, minor = (int(x) for x in (source.get("tag") or source["tag_nearest"]).split(".")[:2])
        preset = claw.Pid.control_toolbox_legacy if (major, minor) <= (5, 5) else claw.Pid.control_toolbox
        p = case["pid"]
        pid = preset(1, p=number(p["p"]), i=number(p["i"]), d=number(p["d"]),
                     i_min=number(p["i_min"]), i_max=number(p["i_max"]),
                     u_min=number(p["u_min"]), u_max=number(p["u_max"]),
                     strategy=strategies[p["strategy"]],
                     legacy_antiwindup=bool(p["legacy_antiwindup"]),
                     tracking_time=number(p["tracking_time_constant"]))
        out = np.zeros(1)
        for op in case["ops"]:
            if op["op"] == "reset":
                if op["save_i_term"]:  # a bumpless restart to I (c = 0): the I-term kept
                    assert pid.reset_bumpless(np.zeros(1), pid.integral_term.copy()) == S.Ok
                else:
                    pid.reset()
                continue
            assert pid.update(one(op["error"]), np.zeros(1), np.zeros(1), out, h=op["dt"]) == S.Ok
            if "expect_cmd" in op:
                assert abs(out[0] - number(op["expect_cmd"])) <= op["tol"], case["id"]
                checked += 1
    assert checked > 100


def test_pid_reset_joints_restarts_only_the_selected_joints():
    n = 6
    partial, untouched = claw.Pid(n, kp=20.0, ki=5.0, dt=0.01), claw.Pid(n, kp=20.0, ki=5.0, dt=0.01)
    target, q, v = np.linspace(-0.5, 0.5, n), np.zeros(n), np.zeros(n)
    out_p, out_u = np.zeros(n), np.zeros(n)
    for _ in range(3):
        assert partial.update(target, q, v, out_p) == S.Ok
        assert untouched.update(target, q, v, out_u) == S.Ok
    selected = np.array([True, False, False, True, False, False])
    assert partial.reset_joints(selected) == S.Ok
    assert np.all(partial.integral_term[selected] == 0.0)
    assert bits_equal(partial.integral_term[~selected], untouched.integral_term[~selected])
    with pytest.raises(ValueError):
        partial.reset_joints(np.ones(n + 1, dtype=bool))


def test_stable_pd_divides_the_explicit_law_for_one_joint():
    h, kp, kd, m = 0.01, 100.0, 5.0, 2.0
    spd = claw.StablePd(1, kp=kp, kd=kd, dt=h)
    out = np.zeros(1)
    q, v, target = 0.1, -0.3, 0.5
    assert spd.update(one(target), one(0.0), one(0.0), one(q), one(v), one(1.0 / m), out) == S.Ok
    explicit = kp * (target - q - h * v) + kd * (0.0 - v)
    assert abs(out[0] - explicit / (1.0 + h * (h * kp + kd) / m)) <= 1e-13 * abs(explicit)
    full = np.zeros(1)
    assert spd.update(one(target), one(0.0), one(0.0), one(q), one(v), np.array([[1.0 / m]]), full) == S.Ok
    assert abs(full[0] - out[0]) <= 1e-13 * abs(out[0])


def test_pd_controller_class_matches_the_drop_in_and_adapter():
    n = 4
    lower = np.tile(np.array([[-1.0], [-2.0], [-20.0]]), (1, n))
    upper = -lower
    kp, kd, limit = np.full(n, 50.0), np.full(n, 0.02), np.full(n, 10.0)
    block = claw.PdController(n, command_state_lower=lower, command_state_upper=upper, kp=kp,
                              kd=kd, effort_limit=limit, control_dt=0.001)
    adapter = claw.PdAdapter(n, order=claw.PdActionOrder.Position, step_dt=0.02)
    q, v = np.array([0.1, -0.2, 0.3, 0.0]), np.zeros(n)
    out = np.zeros(n)
    assert block.reset(q, v, out) == S.Ok
    acceleration = np.zeros(n)
    assert adapter.update(np.array([0.5, 0.5, -0.5, 0.0]), block, acceleration) == S.Ok
    state = block.command_state
    expected_acc = np.zeros(n)
    assert claw.pd_adapter(np.array([0.5, 0.5, -0.5, 0.0]), 0, state.copy(), lower, upper, 0.02,
                           expected_acc) == S.Ok
    assert bits_equal(acceleration, expected_acc)
    state[2] = acceleration
    drop_in_out = np.zeros(n)
    assert claw.pd_controller(q, v, state, lower, upper, kp, kd, limit, 0.001, drop_in_out) == S.Ok
    assert block.update(q, v, acceleration, out) == S.Ok
    assert bits_equal(out, drop_in_out) and bits_equal(block.command_state, state)
    with pytest.raises(ValueError, match="settings refused"):
        claw.PdController(n, control_dt=0.0)


def test_statuses_come_from_one_table():
    names = [s.name for s in claw.Status.__members__.values()]
    assert names[0] == "Ok" and len(names) == len(set(names)) >= 11
    assert claw.Status.Ok.ok and not claw.Status.Infeasible.ok


def test_help_and_stubs_name_everything_public():
    import pathlib
    import re
    stub = (pathlib.Path(claw.__file__).parent / "__init__.pyi").read_text()
    public = [name for name in dir(claw) if not name.startswith("_")]
    for name in public:
        if callable(getattr(claw, name)):
            assert re.search(rf"^(class|def) {name}\b", stub, re.M), name
    for cls in (claw.Pid, claw.PdController, claw.FliqcFilter):
        assert "[" in cls.__doc__ and "Keywords" in cls.__doc__ or "keywords" in cls.__doc__.lower()
    import inspect
    assert list(inspect.signature(claw.pd_controller).parameters)[-1] == "out"


def test_snapshots_restore_bit_for_bit_and_name_every_scalar():
    n, h = 3, 0.01
    pid = claw.Pid(n, kp=20.0, ki=5.0, kd=0.3, dt=h)
    steps = [(np.sin(0.3 * k + np.arange(n)), np.cos(0.2 * k + np.arange(n)), np.zeros(n))
             for k in range(12)]
    out = np.zeros(n)
    for target, q, v in steps[:4]:
        assert pid.update(target, q, v, out) == S.Ok
    snapshot = pid.state()
    first = []
    for target, q, v in steps[4:]:
        assert pid.update(target, q, v, out) == S.Ok
        first.append(out.copy())
    assert pid.set_state(snapshot) == S.Ok
    for (target, q, v), expected in zip(steps[4:], first):
        assert pid.update(target, q, v, out) == S.Ok
        assert bits_equal(out, expected)
    assert pid.set_state(claw.Pid(n + 1).state()) == S.SizeMismatch

    joints = ["hip", "knee", "ankle"]
    names = pid.state_fieldnames(joints)
    assert len(names) == len(pid.state_values()) == 5 * n
    assert names[:4] == ["integralTermhip", "integralTermknee", "integralTermankle", "previousErrorhip"]
    assert bits_equal(pid.state_values()[:n], pid.integral_term)
    assert pid.command_fieldnames(joints) == ["commandEfforthip", "commandEffortknee", "commandEffortankle"]
    with pytest.raises(ValueError):
        pid.state_fieldnames(joints[:2])

    controller = claw.PdController(n)
    assert controller.state_fieldnames(joints)[0] == "currentTargetPositionhip"
    saved = controller.state()
    assert saved.shape == (3, n)
    assert controller.set_state(saved + 1.0) == S.Ok
    assert bits_equal(controller.command_state, saved + 1.0)
    assert claw.StablePd(n).set_state(claw.StablePd(n).state()) == S.Ok


def test_actuator_delays_then_drives_then_clamps():
    n, delay, limit = 4, 2, 0.7
    gains = dict(kp=30.0, ki=4.0, kd=0.5, dt=0.01)
    actuator = claw.Actuator(claw.Pid(n, **gains), delay=delay, effort_limit=limit)
    reference = claw.Pid(n, **gains)  # the same steps by hand: a list as the delay line, np.clip
    pending = [np.zeros(n)] * delay
    out, expected = np.zeros(n), np.zeros(n)
    for k in range(12):
        target = np.sin(0.4 * k + np.arange(n))
        q, v = 0.1 * np.cos(0.3 * k + np.arange(n)), 0.05 * np.ones(n)
        assert actuator.update(target, q, v, out) == S.Ok
        pending.append(target)
        assert reference.update(pending.pop(0), q, v, expected) == S.Ok
        assert bits_equal(out, np.clip(expected, -limit, limit))
    names = actuator.state_fieldnames(["a", "b", "c", "d"])
    assert len(names) == len(actuator.state_values()) == (5 + 3 * delay) * n
    assert names[5 * n] == "pendingTarget0_a"
    snapshot = actuator.state()
    first = [actuator.update(np.ones(n), np.zeros(n), np.zeros(n), out) == S.Ok and out.copy()
             for _ in range(3)]
    assert actuator.set_state(snapshot) == S.Ok
    for expected_out in first:
        assert actuator.update(np.ones(n), np.zeros(n), np.zeros(n), out) == S.Ok
        assert bits_equal(out, expected_out)
    bad = np.ones(n)
    bad[1] = np.nan
    assert actuator.update(bad, np.zeros(n), np.zeros(n), out) == S.NonFiniteInput
    with pytest.raises(ValueError):
        claw.Actuator(claw.Pid(n), delay=9)
