"""The transformation passes, one module each, in the order the driver (pragmadp/rewrite.py) runs them:
threshold -> coarsen -> aggregate. `base` is the pass interface they share, `child` the launched kernel
as they build on it, `site` the statement that replaces a launch and its launch safety.
"""
