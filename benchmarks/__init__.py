"""Side-by-side timings of bayesgen and scikit-learn (run ``python -m benchmarks``)."""
