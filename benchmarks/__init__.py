"""silo_gym benchmarks: every figure a median over repeats, every comparison a ratio to a
baseline measured side by side in the same process. Run ``python -m benchmarks`` (or
``make bench``); ``--quick`` uses tiny sizes (the test suite smoke-runs it)."""
