"""Analyses the passes rely on: thread counts of launches and whether a child can run serially."""
