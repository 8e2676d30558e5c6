"""Synthetic data generators (``make_*`` functions taking ``random_state``)."""

__all__: list[str] = []
