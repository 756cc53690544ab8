"""Run the benchmarks: ``python -m benchmarks [--quick] [--only step,reset,...] [--out DIR]``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .bench_core import bench_episodes, bench_record, bench_reset, bench_step
from .bench_ray import bench_ray
from .bench_scale import bench_import, bench_memory, bench_vector
from .bench_variants import bench_variants
from .bench_view import bench_view
from .common import RESULTS_DIR, Sizes, machine

BENCHES = {
    "step": bench_step,
    "reset": bench_reset,
    "record": bench_record,
    "episodes": bench_episodes,
    "variants": bench_variants,
    "vector": bench_vector,
    "memory": bench_memory,
    "import": bench_import,
    "ray": bench_ray,
    "view": bench_view,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="tiny sizes (a smoke run)")
    parser.add_argument("--only", default="", help="comma-separated subset of: " + ", ".join(BENCHES))
    parser.add_argument("--out", default=str(RESULTS_DIR), help="where the JSON results go")
    args = parser.parse_args(argv)
    sizes = Sizes.quick() if args.quick else Sizes()
    names = [n.strip() for n in args.only.split(",") if n.strip()] or list(BENCHES)
    unknown = [n for n in names if n not in BENCHES]
    if unknown:
        parser.error(f"unknown benchmark(s): {', '.join(unknown)}")
    m = machine()
    print(f"machine: {m['system']}, {m['machine']}, {m['cpus']} CPUs, Python {m['python']}")
    for name in names:
        table = BENCHES[name](sizes)
        print(table.render())
        path = table.write(name, Path(args.out))
        print(f"  -> {path}\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
