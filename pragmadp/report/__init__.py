"""Remarks (what pdcc did, did not do, and why) and the renderers that show them."""
