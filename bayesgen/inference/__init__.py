"""The inference layer: algorithms over (family, statistics, parameters).

Above the families and stories, below the estimators: log-space normalisation, EM,
posterior draws (exact and NUTS) and their ArviZ packaging, synthetic rows from the story,
imputation. Nothing here is a scikit-learn class; the estimators call these functions.
"""
