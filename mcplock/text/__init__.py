"""Untrusted text made safe to show (untrusted) and to compare (skeleton). Imports nothing of
mcplock but errors."""
