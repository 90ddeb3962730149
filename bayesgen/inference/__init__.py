"""The inference layer: algorithms over (family, statistics, parameters).

Above the families and stories, below the estimators: log-space normalisation, EM (one
driver, `bayesgen.inference.em`, for every EM: over unlabelled rows, missing entries,
mixture components, the label-shift EM), posterior draws (exact and NUTS) and their ArviZ
packaging, synthetic rows from the story, imputation. Nothing here is a scikit-learn
class; the estimators call these functions.
"""
