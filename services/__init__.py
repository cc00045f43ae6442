"""Business logic. Plain Python: no Qt widgets, usable from the CLI, the GUI and benchmarks."""
