"""Golden files and the regression gates of the demo environment (see ``gate.py``)."""
