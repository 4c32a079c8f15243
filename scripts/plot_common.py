# scripts/plot_common.py: what the example plot scripts share: reading an example's CSV into columns
# and the command-line entry point (INPUT.csv OUTPUT.png); each script supplies its columns and plot.

import csv
import sys


def read_columns(path, columns):
    """Returns a dict column name -> list of floats from an example's CSV (first column: time t)."""
    with open(path, newline="") as handle:
        reader = csv.DictReader(handle)
        missing = [name for name in columns if name not in (reader.fieldnames or [])]
        if missing:
            raise ValueError(f"{path}: missing column(s) {', '.join(missing)}")
        data = {name: [] for name in columns}
        for row in reader:
            for name in columns:
                data[name].append(float(row[name]))
    if not data[columns[0]]:
        raise ValueError(f"{path}: no data rows")
    return data


def run(name, columns, plot, argv=None):
    """Reads argv[1] (CSV), calls plot(data, argv[2]); returns the process exit status."""
    argv = sys.argv if argv is None else argv
    if len(argv) != 3:
        print(f"usage: {argv[0]} INPUT.csv OUTPUT.png", file=sys.stderr)
        return 2
    try:
        data = read_columns(argv[1], columns)
    except (OSError, ValueError) as error:
        print(f"{name}: {error}", file=sys.stderr)
        return 1
    plot(data, argv[2])
    return 0
