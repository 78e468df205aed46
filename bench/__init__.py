"""The pvtui benchmark: `python -m bench` (see README.md, "Benchmarks").

Modules, one job each: `reports` (the synthetic report and its facts), `ingest`
(cold ingest against size/cbor2), `app` (first paint, key-to-repaint, peak RSS),
`cancel` (progress and cancelling), `child` (one measurement in a fresh process),
`runner` (starting children), `figures` (medians, the table, BENCHMARKS.md).
"""
