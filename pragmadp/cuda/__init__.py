"""The CUDA front end: a lossless tree-sitter-cuda parse and the facts pdcc needs from it."""
