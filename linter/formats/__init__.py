"""Input formats other than gpulint's own, and the shared layer their adapters call: shell words
with positions (``shell``), serving engines' and training launchers' command lines.
"""
