"""Benchmarks: ``python -m bench all [--quick]`` (see ``bench/__main__.py``)."""
