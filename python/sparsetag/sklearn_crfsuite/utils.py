"""Helpers of the metrics."""


def flatten(seqs):
    """The items of a list of sequences, in one list."""
    return [x for seq in seqs for x in seq]
