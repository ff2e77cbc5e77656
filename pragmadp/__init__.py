"""pragmadp: the pdcc source-to-source optimizer for CUDA dynamic parallelism."""

__version__ = "0.1.0"
