"""``ModelFileError``: the one exception a model file that cannot be read raises."""

from __future__ import annotations


class ModelFileError(ValueError):
    """A model file is not a valid bayesgen model file, or holds something it may not.

    Raised by [`bayesgen.load`][bayesgen.load] and
    [`bayesgen.model_file_info`][bayesgen.model_file_info] for anything wrong
    with the file's contents (not a zip archive, truncated, a missing or malformed header,
    an unknown format or class, a newer format version, an array that is not plain data),
    and by ``save`` for an estimator holding a value the format cannot store. The message
    names the file and what was wrong with it.

    Parameters
    ----------
    source : str
        The file (its path, or a description of the file object).
    problem : str
        What was wrong.
    """

    def __init__(self, source: str, problem: str):
        super().__init__(f"model file {source}: {problem}")
        self.source = source
        self.problem = problem
