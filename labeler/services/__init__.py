"""Writes of the labeler app: studies and their items, assignments and labels, imports."""
