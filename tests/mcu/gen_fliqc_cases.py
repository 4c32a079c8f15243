#!/usr/bin/env python3
"""tests/mcu/gen_fliqc_cases.py: turns the FLIQC reference instances into C++ float arrays for the board.

Reads <dir>/lcqp/fliqc_instances.json, where <dir> is $CLAW_REFERENCE_DIR when set and non-empty, else
--default-dir (the source tree's tests/data/reference), keeps the instances with m <= --max-m (8: the
board's FliqcFilter<float, 7, 7, 8>), and writes <out>/fliqc_data.hpp (counts, declarations) and
<out>/fliqc_data.cpp (one pool of floats as hexadecimal literals and the case table of
tests/mcu/fliqc_cases.hpp). Every value is rounded to float here, once (what the board uses), and
emitted exactly. Files are rewritten only when their content changes (see gen_jiminy_cases.py).
Mapping of `params` (as tests/support/lcqp_json.hpp reads them for the host's conformance test):
dt, eps, q_dot_max, lambda_cost_penalty, lambda_max, esc_vel_max (absent: the FliqcSettings default),
quad_cost_type, the four enable_* flags; every row is active (active_threshold = +inf). "DBL_MAX" is
taken as +inf (float has no such number; it means "no bound"). Inputs: raw.qdot_guide (7), raw.J
(6 x 7), raw.psi (m), raw.P and raw.Pinv (m x 7); expected: global.feasible and global.x[0:7].
Standard library only. Exit status 1 with a message naming the file and instance on bad input.
"""
import argparse
import json
import math
import os
import struct
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree (the build runs this script)
from gen_jiminy_cases import Pool, SchemaError, c_string, number, write_if_changed

JOINTS = 7
JACOBIAN_ROWS = 6
COST_TYPES = {"IDENTITY": 0, "MASS_MATRIX": 1, "JOINT_VELOCITY_ERROR": 2,
              "MASS_MATRIX_VELOCITY_ERROR": 3}
# (key, FliqcSettings default, bit in FliqcCase::flags)
FLAGS = (("enable_nullspace_projector_in_A", True, 0), ("enable_lambda_constraint_in_x", True, 1),
         ("enable_lambda_constraint_in_L", False, 2), ("enable_esc_vel_constraint", False, 3))
# (key, FliqcSettings default)
SETTINGS = (("dt", 0.02), ("eps", 0.02), ("q_dot_max", math.inf), ("lambda_cost_penalty", 1.0),
            ("lambda_max", math.inf), ("esc_vel_max", math.inf))
FLT_MAX = struct.unpack("<f", b"\xff\xff\x7f\x7f")[0]


def to_float(x, where):
    """x rounded to float (nearest); +-inf and +-DBL_MAX become +-inf ("no bound"); any other
    magnitude float cannot hold is an error."""
    if math.isinf(x) or abs(x) == sys.float_info.max:
        return math.copysign(math.inf, x)
    if math.isnan(x):
        raise SchemaError(f"{where}: NaN")
    if abs(x) > FLT_MAX:
        raise SchemaError(f"{where}: {x!r} overflows float")
    return struct.unpack("<f", struct.pack("<f", x))[0]


def c_float(x):
    if math.isinf(x):
        return "kInf" if x > 0 else "-kInf"
    if x == 0:
        return "-0.0f" if math.copysign(1.0, x) < 0 else "0.0f"
    mantissa, exponent = x.hex().split("p")  # float's 24 bits: drop the double's trailing zeros
    return f"{mantissa.rstrip('0').rstrip('.')}p{exponent}f"


def floats(value, count, where):
    """A list (or list of rows) of numbers flattened row-major, count entries, rounded to float."""
    if not isinstance(value, list):
        raise SchemaError(f"{where}: expected a list")
    flat = []
    for i, item in enumerate(value):
        if isinstance(item, list):
            flat += [number(x, f"{where}[{i}][{j}]") for j, x in enumerate(item)]
        else:
            flat.append(number(item, f"{where}[{i}]"))
    if len(flat) != count:
        raise SchemaError(f"{where}: expected {count} numbers, got {len(flat)}")
    return [to_float(x, where) for x in flat]


def rows_of(value, m, cols, where):
    if not isinstance(value, list) or len(value) != m or any(
            not isinstance(r, list) or len(r) != cols for r in value):
        raise SchemaError(f"{where}: expected {m} rows of {cols}")
    return floats(value, m * cols, where)


def case_row(instance, where, pool):
    params, raw, best = instance["params"], instance["raw"], instance["global"]
    m = len(raw["psi"])
    if int(instance.get("m", m)) != m or int(instance.get("n", JOINTS)) != JOINTS:
        raise SchemaError(f"{where}: m/n disagree with raw (psi has {m} entries, n must be {JOINTS})")
    cost = params.get("quad_cost_type", "IDENTITY")
    if cost not in COST_TYPES:
        raise SchemaError(f"{where}: unknown quad_cost_type {cost}")
    settings = []
    for key, default in SETTINGS:
        value = params.get(key)
        settings.append(c_float(to_float(default if value is None else number(value, f"{where} {key}"),
                                         f"{where} {key}")))
    flags = 0
    for key, default, bit in FLAGS:
        value = params.get(key, default)
        if not isinstance(value, bool):
            raise SchemaError(f"{where}: {key} must be true or false")
        flags |= int(value) << bit
    feasible = best["feasible"]
    if not isinstance(feasible, bool):
        raise SchemaError(f"{where}: global.feasible must be true or false")
    if feasible:
        x = best["x"]
        if not isinstance(x, list) or len(x) < JOINTS:
            raise SchemaError(f"{where}: global.x must hold at least {JOINTS} numbers")
        expected = pool.add(floats(x[:JOINTS], JOINTS, f"{where} global.x"))
    else:
        expected = "nullptr"
    return "{%s, %d, %s, %s, %d, %d, %s, %s, %s, %s, %s, %s}" % (
        c_string(str(instance["id"])), m, "true" if feasible else "false", ", ".join(settings),
        COST_TYPES[cost], flags,
        pool.add(floats(raw["qdot_guide"], JOINTS, f"{where} raw.qdot_guide")),
        pool.add(rows_of(raw["J"], JACOBIAN_ROWS, JOINTS, f"{where} raw.J")),
        pool.add(floats(raw["psi"], m, f"{where} raw.psi")),
        pool.add(rows_of(raw["P"], m, JOINTS, f"{where} raw.P")),
        pool.add(rows_of(raw["Pinv"], m, JOINTS, f"{where} raw.Pinv")), expected)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--default-dir", required=True, help="used when $CLAW_REFERENCE_DIR is unset")
    parser.add_argument("--out-dir", required=True)
    parser.add_argument("--max-m", type=int, default=8, help="largest m kept (the filter's MaxM)")
    args = parser.parse_args()
    directory = os.path.abspath(os.environ.get("CLAW_REFERENCE_DIR") or args.default_dir)
    path = os.path.join(directory, "lcqp", "fliqc_instances.json")

    pool, rows, skipped = Pool(), [], 0
    try:
        try:
            with open(path, encoding="utf-8") as handle:
                instances = json.load(handle)["instances"]
        except (OSError, ValueError) as error:
            raise SchemaError(f"{path}: {error}") from error
        if not isinstance(instances, list) or not instances:
            raise SchemaError(f"{path}: expected a non-empty list of instances")
        for index, instance in enumerate(instances):
            where = f"{path} instance #{index} (id {instance.get('id')})"
            if len(instance["raw"]["psi"]) > args.max_m:
                skipped += 1
                continue
            rows.append(case_row(instance, where, pool))
    except (SchemaError, KeyError, TypeError, ValueError) as error:
        print(f"gen_fliqc_cases: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    if not rows:
        print(f"gen_fliqc_cases: {path}: no instance with m <= {args.max_m}", file=sys.stderr)
        return 1

    banner = f"// Generated by tests/mcu/gen_fliqc_cases.py from {path}: do not edit."
    header = [banner, "#pragma once", "", '#include "fliqc_cases.hpp"', "", "namespace claw_mcu {", "",
              "/// The file the instances were read from.",
              "extern const char* const kFliqcReferenceFile;",
              f"/// Instances with m <= {args.max_m} (kFliqcCases), and those left out (larger m).",
              f"constexpr int kFliqcMaxM = {args.max_m};",
              f"constexpr int kFliqcCaseCount = {len(rows)};",
              f"constexpr int kFliqcSkippedCount = {skipped};",
              "extern const FliqcCase kFliqcCases[];", "", "}  // namespace claw_mcu", ""]
    source = [banner, '#include "fliqc_data.hpp"', "", "#include <limits>", "", "namespace claw_mcu {",
              "namespace {", "constexpr float kInf = std::numeric_limits<float>::infinity();",
              "constexpr float kPool[] = {"]
    for start in range(0, len(pool.values), 6):
        source.append("    " + ", ".join(c_float(x) for x in pool.values[start:start + 6]) + ",")
    source += ["};", "}  // namespace", "", f"const char* const kFliqcReferenceFile = {c_string(path)};",
               "const FliqcCase kFliqcCases[] = {"]
    source += ["    " + row + "," for row in rows]
    source += ["};", "", "}  // namespace claw_mcu", ""]

    os.makedirs(args.out_dir, exist_ok=True)
    write_if_changed(os.path.join(args.out_dir, "fliqc_data.hpp"), "\n".join(header))
    write_if_changed(os.path.join(args.out_dir, "fliqc_data.cpp"), "\n".join(source))
    return 0


if __name__ == "__main__":
    sys.exit(main())
