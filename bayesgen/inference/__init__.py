"""Inference over a fitted family: EM (one driver), label shift, semi-supervised fitting.

Imports point down: this layer uses ``families`` and ``stories`` and is used by
``estimators``; it holds algorithms, never scikit-learn classes.
"""
