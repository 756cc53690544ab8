"""Run the benchmarks: ``python -m benchmarks [--quick] [--only step,reset,...] [--scale 1,10,100] [--out DIR]``.

``--scale`` runs every benchmark that has a world (step, reset, record, episodes, vector, memory,
tools) once per size of the demo world (``benchmarks/worlds.py``: 10 means ``demo10x``, ten
times the records) and then prints the figures side by side with the largest over the smallest.
Step, reset, end and episodes also measure the ERP world of the same size (``erp10x``), in rows
named ``erp: ...``.
Results go to ``<out>/<name>.json`` at 1x, ``<out>/<name>-<N>x.json`` at other sizes and
``<out>/<name>-scales.json`` for the side-by-side table.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from .bench_core import bench_end, bench_episodes, bench_record, bench_reset, bench_step
from .bench_demo_variants import bench_demo_variants
from .bench_erp_tools import bench_erp_tools
from .bench_eval import bench_eval
from .bench_hubs import bench_hubs
from .bench_llm import bench_llm
from .bench_peers import bench_peers
from .bench_project_tools import bench_project_tools
from .bench_ray import bench_ray
from .bench_scale import bench_import, bench_memory, bench_vector
from .bench_shaping import bench_shaping
from .bench_tools import bench_tools
from .bench_variants import bench_variants
from .bench_view import bench_view
from .common import RESULTS_DIR, ScaleTable, Sizes, Table, load_average, machine
from .worlds import World, parse_scales, world

#: Benchmarks measured on a world, run once per ``--scale`` size.
SCALED: dict[str, Callable[[Sizes, World], Table]] = {
    "step": bench_step,
    "reset": bench_reset,
    "end": bench_end,
    "record": bench_record,
    "episodes": bench_episodes,
    "vector": bench_vector,
    "memory": bench_memory,
    "tools": bench_tools,
}
#: Benchmarks with no world to scale, run once.
SINGLE: dict[str, Callable[[Sizes], Table]] = {
    "import": bench_import,
    "ray": bench_ray,
    "variants": bench_variants,
    "demo_variants": bench_demo_variants,
    "view": bench_view,
    "project_tools": bench_project_tools,
    "erp_tools": bench_erp_tools,
    "llm": bench_llm,
    "peers": bench_peers,
    "eval": bench_eval,
    "shaping": bench_shaping,
    "hubs": bench_hubs,
}
BENCHES = [*SCALED, *SINGLE]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="tiny sizes (a smoke run)")
    parser.add_argument("--only", default="", help="comma-separated subset of: " + ", ".join(BENCHES))
    parser.add_argument("--scale", default="1",
                        help="comma-separated world sizes for the benchmarks that have a world, "
                             "for example 1,10,100 (default 1: the demo world)")
    parser.add_argument("--out", default=str(RESULTS_DIR), help="where the JSON results go")
    args = parser.parse_args(argv)
    sizes = Sizes.quick() if args.quick else Sizes()
    names = [n.strip() for n in args.only.split(",") if n.strip()] or list(BENCHES)
    unknown = [n for n in names if n not in BENCHES]
    if unknown:
        parser.error(f"unknown benchmark(s): {', '.join(unknown)}")
    try:
        scales = parse_scales(args.scale)
    except ValueError as exc:
        parser.error(f"--scale: {exc}")
    out = Path(args.out)
    m = machine()
    print(f"machine: {m['system']}, {m['machine']}, {m['cpus']} CPUs, Python {m['python']}")
    print(f"load average at start: {load_average()}")
    for name in names:
        if name in SINGLE:
            _show(SINGLE[name](sizes), name, out)
            continue
        tables: dict[str, Table] = {}
        for factor in scales:
            at = world(factor)
            table = SCALED[name](sizes, at)
            tables[at.label] = table
            _show(table, name if factor == 1 else f"{name}-{at.label}", out)
        if len(tables) > 1:
            _show(ScaleTable.of(f"{name} at {', '.join(tables)}", tables), name, out)
    print(f"load average at end: {load_average()}")
    return 0


def _show(table: Table | ScaleTable, name: str, out: Path) -> None:
    print(table.render())
    print(f"  -> {table.write(name, out)}\n")
    sys.stdout.flush()


if __name__ == "__main__":
    sys.exit(main())
