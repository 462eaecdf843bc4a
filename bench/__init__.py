"""Benchmarks (run with ./dev.sh bench); not part of the test suite."""
