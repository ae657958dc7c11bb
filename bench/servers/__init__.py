"""Comparison servers for bench/http_bench.py: sdk, bare and raw. Each is ``python FILE --port P``."""
