"""Benchmarks for typed_elicit: `python -m tests.bench` runs them all (see docs/benchmarks.md).

Modules: `roundtrip` (1, push round trip; `fastmcp_worker` runs in FastMCP's own venv),
`overhead` (1c, per-step cost), `instructions` (1d, instructions per round trip under
callgrind), `wizard` (2 and 3), `scale` (4), `bench_schema` (5), `report` and `plot`
(output), `profile` (cProfile diff of two contenders), `ab` (A/B a changed typed_elicit
against the working tree).
"""
