"""``python -m benchmarks [--n-samples N] [--n-features D] [--n-classes K] [--repeats R]``."""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("XLA_FLAGS", "--xla_cpu_enable_concurrency_optimized_scheduler=false")

from benchmarks.gaussian import run, to_markdown  # noqa: E402


def main(argv: list[str] | None = None) -> str:
    """Run the Gaussian benchmark and print (and return) its Markdown table."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--n-samples", type=int, default=100_000)
    parser.add_argument("--n-features", type=int, default=20)
    parser.add_argument("--n-classes", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    timings = run(args.n_samples, args.n_features, args.n_classes, args.repeats)
    table = to_markdown(timings, args.n_samples, args.n_features, args.n_classes)
    print(table)
    return table


if __name__ == "__main__":
    main()
