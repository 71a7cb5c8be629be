"""tmkit bench: the benchmark suite (bench/README.md) and the web-cache experiment (docs/webcache.md)."""
