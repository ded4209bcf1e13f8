"""Quickstart robot: NumPy sensor preprocessing -> MLP policy -> NumPy wheel commands."""
