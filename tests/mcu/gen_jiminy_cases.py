#!/usr/bin/env python3
"""tests/mcu/gen_jiminy_cases.py: turns the gym_jiminy reference files into C++ arrays for the board.

Reads every case of <dir>/jiminy/{integrate_zoh,pd_controller,pd_adapter,pd_controller_bounds}.json,
where <dir> is $CLAW_REFERENCE_DIR when set and non-empty, else --default-dir (the source tree's
tests/data/reference), and writes <out>/jiminy_data.hpp (counts, largest joint count, declarations)
and <out>/jiminy_data.cpp (one pool of doubles as hexadecimal literals, so the board reads the JSON's
exact bits, and the case tables of tests/mcu/jiminy_cases.hpp). Files are rewritten only when their
content changes, so running this on every build recompiles nothing when the data did not change.
Schema: tests/data/reference/jiminy/README.md. Numbers may be JSON numbers or the strings "inf",
"-inf", "Infinity", "-Infinity", "DBL_MAX", "-DBL_MAX"; null means "none" where the schema allows it.
Standard library only (json). Exit status 1 with a message naming the file and case on bad input.
"""
import argparse
import json
import math
import os
import sys

FILES = ("integrate_zoh", "pd_controller", "pd_adapter", "pd_controller_bounds")
DBL_MAX = sys.float_info.max


class SchemaError(Exception):
    pass


def number(value, where):
    if isinstance(value, bool) or value is None:
        raise SchemaError(f"{where}: expected a number, got {json.dumps(value)}")
    if isinstance(value, (int, float)):
        return float(value)
    named = {"inf": math.inf, "Infinity": math.inf, "-inf": -math.inf, "-Infinity": -math.inf,
             "DBL_MAX": DBL_MAX, "-DBL_MAX": -DBL_MAX}
    if isinstance(value, str) and value in named:
        return named[value]
    raise SchemaError(f"{where}: expected a number, got {json.dumps(value)}")


def vector(value, n, where):
    if not isinstance(value, list) or (n is not None and len(value) != n):
        raise SchemaError(f"{where}: expected a list of {n if n is not None else 'N'} numbers")
    return [number(x, f"{where}[{i}]") for i, x in enumerate(value)]


def matrix(value, rows, n, where):
    """A list of `rows` rows of n numbers (n None: taken from the first row); returns (n, flat)."""
    if not isinstance(value, list) or len(value) != rows or not all(isinstance(r, list) for r in value):
        raise SchemaError(f"{where}: expected {rows} rows")
    if n is None:
        n = len(value[0])
    flat = []
    for i, row in enumerate(value):
        flat += vector(row, n, f"{where}[{i}]")
    return n, flat


def per_motor(value, n, where):
    """numpy broadcasting as the reference applies it: a scalar or a list of n."""
    if isinstance(value, list):
        return vector(value, n, where)
    return [number(value, where)] * n


def c_double(x):
    if math.isinf(x):
        return "kInf" if x > 0 else "-kInf"
    if math.isnan(x):
        raise SchemaError("NaN in a reference value")
    return x.hex() if x != 0 else ("-0.0" if math.copysign(1.0, x) < 0 else "0.0")


class Pool:
    def __init__(self):
        self.values = []

    def add(self, values):
        offset = len(self.values)
        self.values += values
        return f"kPool + {offset}"


def load(directory, name):
    path = os.path.join(directory, "jiminy", name + ".json")
    try:
        with open(path, encoding="utf-8") as handle:
            cases = json.load(handle)
    except (OSError, ValueError) as error:
        raise SchemaError(f"{path}: {error}") from error
    if not isinstance(cases, list) or not cases:
        raise SchemaError(f"{path}: expected a non-empty list of cases")
    return path, cases


def with_state(cases, path, key):
    """Each case with its label, joint count and flattened 3 x n `key` matrix."""
    for index, c in enumerate(cases):
        where = f"{path} case #{index} (id {c.get('id')})"
        n, state = matrix(c[key], 3, None, f"{where} {key}")
        yield c, where, n, state


def zoh_rows(cases, pool, path):
    rows = []
    for c, where, n, state in with_state(cases, path, "state"):
        rows.append((n, "{%d, %d, %s, %s, %s, %s, %s}" % (
            int(c["id"]), n, c_double(number(c["dt"], where + " dt")), pool.add(state),
            pool.add(matrix(c["state_min"], 3, n, where + " state_min")[1]),
            pool.add(matrix(c["state_max"], 3, n, where + " state_max")[1]),
            pool.add(matrix(c["expected_state"], 3, n, where + " expected_state")[1]))))
    return rows


def controller_rows(cases, pool, path):
    rows = []
    for c, where, n, state in with_state(cases, path, "command_state"):
        rows.append((n, "{%d, %d, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s}" % (
            int(c["id"]), n, c_double(number(c["control_dt"], where + " control_dt")),
            pool.add(matrix(c["encoder_data"], 2, n, where + " encoder_data")[1]), pool.add(state),
            pool.add(matrix(c["command_state_lower"], 3, n, where + " lower")[1]),
            pool.add(matrix(c["command_state_upper"], 3, n, where + " upper")[1]),
            pool.add(per_motor(c["kp"], n, where + " kp")),
            pool.add(per_motor(c["kd"], n, where + " kd")),
            pool.add(per_motor(c["motors_effort_limit"], n, where + " motors_effort_limit")),
            pool.add(vector(c["expected_out"], n, where + " expected_out")),
            pool.add(matrix(c["expected_command_state"], 3, n, where + " expected_state")[1]))))
    return rows


def adapter_rows(cases, pool, path):
    rows = []
    for c, where, n, state in with_state(cases, path, "command_state"):
        order = int(c["order"])
        if order not in (0, 1):
            raise SchemaError(f"{where}: order must be 0 or 1")
        deadband = c.get("motors_velocity_deadband")
        rows.append((n, "{%d, %d, %d, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s}" % (
            int(c["id"]), n, order, "true" if c["is_instantaneous"] else "false",
            c_double(number(c["step_dt"], where + " step_dt")),
            pool.add(vector(c["action"], n, where + " action")), pool.add(state),
            pool.add(matrix(c["command_state_lower"], 3, n, where + " lower")[1]),
            pool.add(matrix(c["command_state_upper"], 3, n, where + " upper")[1]),
            "nullptr" if deadband is None else pool.add(vector(deadband, n, where + " deadband")),
            pool.add(vector(c["out_init"], n, where + " out_init")),
            pool.add(vector(c["expected_out"], n, where + " expected_out")),
            pool.add(matrix(c["expected_command_state"], 3, n, where + " expected_state")[1]))))
    return rows


def bounds_rows(cases, pool, index_pool, path):
    rows = []
    motor_keys = ("position_limit_lower", "position_limit_upper", "velocity_limit", "effort_limit",
                  "mechanical_reduction")
    for index, c in enumerate(cases):
        where = f"{path} case #{index} (id {c.get('id')})"
        motors = c["motors"]
        if not isinstance(motors, list) or not motors:
            raise SchemaError(f"{where}: motors must be a non-empty list")
        n = len(motors)
        motor_rows = []
        for key in motor_keys:
            motor_rows += [number(m[key], f"{where} motors[{j}].{key}") for j, m in enumerate(motors)]
        encoder_index = [int(x) for x in c["encoder_motor_index"]]
        if len(encoder_index) != n:
            raise SchemaError(f"{where}: encoder_motor_index must have {n} entries")
        expected_map = c["expected_encoder_to_motor_map"]
        if expected_map == "identity":
            map_ref = "nullptr"
        elif isinstance(expected_map, list) and len(expected_map) == n:
            map_ref = f"kIndexPool + {len(index_pool)}"
            index_pool += [int(x) for x in expected_map]
        else:
            raise SchemaError(f"{where}: expected_encoder_to_motor_map must be \"identity\" or {n} ints")
        encoder_ref = f"kIndexPool + {len(index_pool)}"
        index_pool += encoder_index
        acceleration = c["joint_acceleration_limit"]
        rows.append((n, "{%d, %d, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s}" % (
            int(c["id"]), n, c_double(number(c["step_dt"], where + " step_dt")),
            c_double(number(c["joint_position_margin"], where + " joint_position_margin")),
            c_double(number(c["joint_velocity_limit"], where + " joint_velocity_limit")),
            "true" if acceleration is None else "false",
            c_double(math.inf if acceleration is None
                     else number(acceleration, where + " joint_acceleration_limit")),
            pool.add(motor_rows), pool.add(per_motor(c["kp"], n, where + " kp")),
            pool.add(per_motor(c["kd"], n, where + " kd")), encoder_ref, map_ref,
            pool.add(matrix(c["expected_command_state_lower"], 3, n, where + " lower")[1]),
            pool.add(matrix(c["expected_command_state_upper"], 3, n, where + " upper")[1]),
            pool.add(matrix(c["expected_initial_command_state"], 3, n, where + " initial")[1]))))
    return rows


def write_if_changed(path, text):
    try:
        with open(path, encoding="utf-8") as handle:
            if handle.read() == text:
                return
    except OSError:
        pass
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)


def c_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--default-dir", required=True, help="used when $CLAW_REFERENCE_DIR is unset")
    parser.add_argument("--out-dir", required=True)
    args = parser.parse_args()
    directory = os.environ.get("CLAW_REFERENCE_DIR") or args.default_dir
    directory = os.path.abspath(directory)

    pool, index_pool = Pool(), []
    tables = {}
    try:
        for name, build in (("integrate_zoh", zoh_rows), ("pd_controller", controller_rows),
                            ("pd_adapter", adapter_rows)):
            path, cases = load(directory, name)
            tables[name] = build(cases, pool, path)
        path, cases = load(directory, "pd_controller_bounds")
        tables["pd_controller_bounds"] = bounds_rows(cases, pool, index_pool, path)
    except (SchemaError, KeyError, TypeError, ValueError) as error:
        print(f"gen_jiminy_cases: {type(error).__name__}: {error}", file=sys.stderr)
        return 1

    max_joints = max(n for rows in tables.values() for n, _ in rows)
    names = {"integrate_zoh": ("ZohCase", "kZohCases"),
             "pd_controller": ("PdControllerCase", "kPdControllerCases"),
             "pd_adapter": ("PdAdapterCase", "kPdAdapterCases"),
             "pd_controller_bounds": ("PdBoundsCase", "kPdBoundsCases")}

    header = ["// Generated by tests/mcu/gen_jiminy_cases.py from " + directory + "/jiminy: do not edit.",
              "#pragma once", "", '#include "jiminy_cases.hpp"', "", "namespace claw_mcu {", "",
              "/// Most joints in any case (the bounded storage size of the board's tests).",
              f"constexpr int kJiminyMaxJoints = {max_joints};",
              "/// The directory the cases were read from.",
              "extern const char* const kJiminyReferenceDir;"]
    for name in FILES:
        struct, table = names[name]
        header += [f"constexpr int k{table[1:-5]}CaseCount = {len(tables[name])};",
                   f"extern const {struct} {table}[];"]
    header += ["", "}  // namespace claw_mcu", ""]

    source = ["// Generated by tests/mcu/gen_jiminy_cases.py from " + directory + "/jiminy: do not edit.",
              '#include "jiminy_data.hpp"', "", "#include <limits>", "", "namespace claw_mcu {",
              "namespace {", "constexpr double kInf = std::numeric_limits<double>::infinity();",
              "constexpr double kPool[] = {"]
    for start in range(0, len(pool.values), 6):
        source.append("    " + ", ".join(c_double(x) for x in pool.values[start:start + 6]) + ",")
    source += ["};", "constexpr int kIndexPool[] = {"]
    for start in range(0, len(index_pool), 16):
        source.append("    " + ", ".join(str(x) for x in index_pool[start:start + 16]) + ",")
    if not index_pool:
        source.append("    0,")
    source += ["};", "}  // namespace", "",
               f"const char* const kJiminyReferenceDir = {c_string(directory)};"]
    for name in FILES:
        struct, table = names[name]
        source.append(f"const {struct} {table}[] = {{")
        source += ["    " + row + "," for _, row in tables[name]]
        source.append("};")
    source += ["", "}  // namespace claw_mcu", ""]

    os.makedirs(args.out_dir, exist_ok=True)
    write_if_changed(os.path.join(args.out_dir, "jiminy_data.hpp"), "\n".join(header))
    write_if_changed(os.path.join(args.out_dir, "jiminy_data.cpp"), "\n".join(source))
    return 0


if __name__ == "__main__":
    sys.exit(main())
