"""``TableSynthesizer``: a latent class model chosen on the table, drawing rows like it.

References: the training table itself (grid, range, missing rates and categories of each
column; binomial error for rates), the known number of hidden groups of a simulated table,
and exact zeros, which only a histogram column with a point mass reproduces.
"""

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.model_selection import train_test_split

from bayesgen import LatentClassNB, TableSynthesizer
from bayesgen.synthetic import held_out_log_likelihood
from bayesgen.value_sets import value_sets


def _grouped_table(n=900, seed=0):
    """Two classes; inside each, three hidden groups move a number (one decimal), a
    category and a count together; some cells missing."""
    rng = np.random.default_rng(seed)
    label = rng.choice(["no", "yes"], n)
    group = rng.integers(0, 3, n)
    table = pd.DataFrame(
        {
            "size": np.round(10.0 + 6.0 * group + 2.0 * (label == "yes") + rng.normal(size=n), 1),
            "kind": np.array(["red", "green", "blue"])[group],
            "visits": rng.poisson(1 + 4 * group),
            "label": label,
        }
    )
    table.loc[rng.random(n) < 0.15, "size"] = np.nan
    table.loc[rng.random(n) < 0.10, "kind"] = None
    return table


def test_defaults_draw_rows_on_the_grid_in_the_range_with_the_training_gaps():
    table = _grouped_table()
    synthesizer = TableSynthesizer(target="label", n_components=(1, 3)).fit(table)
    assert synthesizer.choice_["n_components"] == 3  # the simulated hidden groups
    scores = synthesizer.choice_["cv_scores"]
    assert synthesizer.model_.n_components == max(scores, key=scores.get) == 3
    rows = synthesizer.sample(4000)
    assert list(rows.columns) == list(table.columns)
    size = rows["size"].dropna().to_numpy()
    np.testing.assert_allclose(size * 10, np.round(size * 10), atol=1e-9)  # one decimal
    assert size.min() >= table["size"].min() and size.max() <= table["size"].max()
    assert set(rows["kind"].dropna()) <= set(table["kind"].dropna())
    assert set(rows["label"]) == {"no", "yes"}
    for column in ("size", "kind", "visits"):
        rate = table[column].isna().mean()
        spread = 4 * np.sqrt(rate * (1 - rate) / len(rows)) + 1e-12
        assert abs(rows[column].isna().mean() - rate) <= spread


def test_a_column_of_exact_zeros_chooses_histogram_columns_and_keeps_its_zeros():
    rng = np.random.default_rng(1)
    n = 800
    spend = np.where(rng.random(n) < 0.6, 0.0, np.round(rng.lognormal(5.0, 1.0, n), 2))
    table = pd.DataFrame({"spend": spend, "age": rng.integers(18, 80, n)})
    synthesizer = TableSynthesizer(n_components=(1, 2)).fit(table)
    auc = synthesizer.choice_["detector_auc"]
    assert synthesizer.choice_["numeric_columns"] == "histogram"
    assert set(auc) == {"evidence", "histogram", "gaussian_copula"}
    chosen = auc["histogram"][synthesizer.choice_["n_components"]]
    others = [
        value
        for name, by_count in auc.items()
        if name != "histogram"
        for value in by_count.values()
    ]
    assert chosen < min(others)
    tried = synthesizer.choice_["cv_scores"]  # judged: the likeliest and the next tried
    likeliest = max(tried, key=tried.get)
    larger = [count for count in tried if count > likeliest]
    assert set(auc["histogram"]) == {likeliest, *([min(larger)] if larger else [])}
    # The zeros are the model's point mass, not the rounding's: unrounded draws keep them.
    exact = synthesizer.set_params(rounding=None).sample(5000)
    share = (exact["spend"] == 0).mean()
    assert abs(share - 0.6) <= 4 * np.sqrt(0.6 * 0.4 / n + 0.6 * 0.4 / len(exact))
    plain = TableSynthesizer(n_components=(1, 2), numeric_columns="evidence", rounding=None)
    assert (plain.fit(table).sample(5000)["spend"] == 0).mean() < 0.01  # densities only


def test_no_target_is_one_latent_class_model_of_the_table():
    table = _grouped_table().drop(columns="label")
    synthesizer = TableSynthesizer(n_components=(1, 3), numeric_columns="evidence").fit(table)
    assert isinstance(synthesizer.model_, LatentClassNB)
    assert synthesizer.model_.classes_.tolist() == [0]
    rows = synthesizer.sample(50)
    assert list(rows.columns) == list(table.columns)
    with pytest.raises(ValueError, match="no target"):
        synthesizer.sample(5, y="yes")


def test_the_same_seed_gives_the_same_synthesizer_and_rows():
    table = _grouped_table(n=300)
    first = TableSynthesizer(target="label", n_components=(1, 2)).fit(table)
    again = clone(first).fit(table)
    pd.testing.assert_frame_equal(first.sample(100), again.sample(100))
    second = first.sample(100)  # the next call: other rows, the same as again's next
    pd.testing.assert_frame_equal(second, again.sample(100))
    assert not second.equals(first.sample(100, random_state=1))
    pd.testing.assert_frame_equal(
        first.sample(100, random_state=1), again.sample(100, random_state=1)
    )
    given = first.sample(200, y="yes", given={"kind": "blue"})
    assert (given["label"] == "yes").all() and (given["kind"].dropna() == "blue").all()


@pytest.mark.parametrize(
    ("settings", "table", "named"),
    [
        ({}, np.zeros((5, 2)), "table must be a pandas DataFrame"),
        ({"target": "nope"}, None, "target='nope' is not a column"),
        ({"numeric_columns": "yes"}, None, "numeric_columns must be 'auto' or one of"),
        ({"numeric_columns": True}, None, "numeric_columns must be 'auto' or one of"),
        ({"n_components": (0, 2)}, None, "n_components must be a sequence"),
        ({"cv": 1}, None, "cv must be 'auto', None or an integer >= 2"),
        ({"target": "label", "cv": 200}, None, "fewer than the 200 folds of cv=200"),
    ],
)
def test_bad_settings_and_tables_are_refused_by_name(settings, table, named):
    table = _grouped_table(n=300) if table is None else table
    with pytest.raises(ValueError, match=named):
        TableSynthesizer(**settings).fit(table)


def test_missing_labels_are_refused():
    table = _grouped_table(n=300)
    table.loc[3, "label"] = None
    with pytest.raises(ValueError, match="1 missing labels"):
        TableSynthesizer(target="label").fit(table)


def test_awkward_columns_a_constant_float32_and_a_categorical_target():
    rng = np.random.default_rng(5)
    n = 240
    table = pd.DataFrame(
        {
            "size": np.round(rng.gamma(4.0, 2.0, n), 1).astype(np.float32),
            "fixed": np.full(n, 5.0),  # one value: every truncated draw holds it
            "label": pd.Categorical(rng.choice(["a", "b"], n)),
        }
    )
    synthesizer = TableSynthesizer(target="label", n_components=(1, 2)).fit(table)
    rows = synthesizer.sample(500)
    assert (rows["fixed"] == 5.0).all()
    assert rows["size"].dtype == np.float32 and rows["label"].dtype == table["label"].dtype
    tenths = rows["size"].to_numpy(np.float64) * 10
    np.testing.assert_allclose(tenths, np.round(tenths), atol=1e-3)  # float32's one decimal
    synthesizer.set_params(target=None)  # the fit's target stays the fit's
    assert list(synthesizer.sample(5).columns) == list(table.columns)
    with pytest.raises(ValueError, match="draw rows of a class with y="):
        synthesizer.sample(5, given={"label": "a"})


def test_candidates_fit_the_smallest_class_of_every_fit():
    table = _grouped_table(n=300)
    table.loc[:9, "label"] = "rare"  # a class of 10 rows: 7 in the column choice's share
    synthesizer = TableSynthesizer(target="label", cv=10, n_components=(1, 7, 9)).fit(table)
    assert set(synthesizer.choice_["cv_scores"]) == {1, 7}


def test_a_column_the_model_cannot_take_is_named():
    table = _grouped_table(n=300)
    table["when"] = pd.Timestamp("2026-01-01") + pd.to_timedelta(np.arange(300), "D")
    with pytest.raises((ValueError, TypeError), match="when"):
        TableSynthesizer(target="label", n_components=(1,)).fit(table)


def test_a_column_recorded_on_few_values_draws_its_nearest_training_values():
    """A count's logarithm takes the count's few values: rounded draws are the training
    value nearest to the unrounded draw of the same stream; a given value is kept; the
    count itself is explained by its grid (multiples of 7) and drawn on it; a nullable
    integer column keeps its dtype and its gaps."""
    rng = np.random.default_rng(3)
    n = 600
    count = rng.poisson(3.0, n) * 7
    table = pd.DataFrame(
        {
            "count": count.astype(float),
            "log_count": np.log(count + 0.1),
            "size": rng.gamma(3.0, 2.0, n) + count / 10,  # all distinct: no value set
        }
    )
    synthesizer = TableSynthesizer(n_components=(2,), numeric_columns="gaussian_copula")
    synthesizer.fit(table)  # one pair: nothing for the detector to choose
    assert set(synthesizer.value_sets_) == {"log_count"}
    values = synthesizer.value_sets_["log_count"]
    np.testing.assert_array_equal(values, np.unique(table["log_count"]))
    rounded = synthesizer.sample(500, random_state=4)
    raw = clone(synthesizer).set_params(rounding=None).fit(table).sample(500, random_state=4)
    distance = np.abs(raw["log_count"].to_numpy()[:, None] - values)
    np.testing.assert_array_equal(rounded["log_count"], values[distance.argmin(axis=1)])
    assert not np.isin(raw["log_count"], values).any()  # the model's own draws: a density
    off_the_set = float(values[1] + values[2]) / 2
    given = synthesizer.sample(50, given={"log_count": off_the_set}, random_state=5)
    assert (given["log_count"] == off_the_set).all()
    np.testing.assert_array_equal(given["count"] % 7, 0)
    drawn = clone(synthesizer).set_params(support="model").fit(table).sample(5000, random_state=7)
    outside = (drawn["log_count"] < values[0]) | (drawn["log_count"] > values[-1])
    assert outside.any() and not np.isin(drawn["log_count"][outside], values).any()
    assert np.isin(drawn["log_count"][~outside], values).all()  # the law's tails left as drawn
    table["count"] = pd.array(np.where(np.arange(n) % 10 == 0, None, count), dtype="Int64")
    rows = synthesizer.fit(table).sample(400, random_state=6)
    assert rows["count"].dtype == "Int64" and rows["count"].isna().any()
    np.testing.assert_array_equal(rows["count"].dropna().to_numpy() % 7, 0)


def test_a_table_of_a_few_rows_takes_the_likeliest_count_without_the_detector():
    rng = np.random.default_rng(8)
    table = pd.DataFrame({"size": rng.gamma(3.0, 2.0, 9), "kind": rng.choice(["a", "b"], 9)})
    synthesizer = TableSynthesizer(n_components=(1, 2), numeric_columns="gaussian_copula")
    synthesizer.fit(table)
    assert synthesizer.choice_["detector_auc"] is None
    scores = synthesizer.choice_["cv_scores"]
    assert synthesizer.choice_["n_components"] == max(scores, key=scores.get)
    assert len(synthesizer.sample(20)) == 20


def test_a_grid_explains_chance_gaps_but_not_a_set_of_values():
    """Body masses to 25 g in a few hundred rows leave grid points untaken by chance (the
    grid rounds their draws), in float32 as in float64; years of schooling in thousands of
    rows, whether they take half of their grid's points or most of them with gaps a smooth
    law would fill, and populations of a few places in hundreds, are sets of values."""
    rng = np.random.default_rng(11)
    mass = np.round(rng.normal(4200, 800, 240) / 25) * 25
    assert np.median(np.unique(mass, return_counts=True)[1]) >= 2  # repeats, on the grid
    tenths = (np.round(rng.normal(18.0, 1.5, 240) * 10) / 10).astype(np.float32)
    school = rng.choice([9, 12, 14, 16, 17, 20], 4456).astype(float)
    coded = rng.choice([8, 9, 10, 12, 14, 16, 17, 20], 4456).astype(float)  # 8 of 13 points
    places = rng.choice(rng.integers(100, 8000, 90), 660).astype(float)
    assert value_sets(pd.DataFrame({"mass": mass, "depth": tenths})) == {}
    # Long tails on a grid leave far fewer distinct values than an even spread would, but
    # as many as a smooth law's: incomes to 100, a Pareto count, a negative binomial.
    skewed = {
        "income": np.round(rng.lognormal(10, 0.6, 3000), -2),
        "claims": np.round(rng.pareto(1.5, 3000) * 10),
        "visits": rng.negative_binomial(1, 0.05, 3000).astype(float),
    }
    assert value_sets(pd.DataFrame(skewed)) == {}
    sets = value_sets(pd.DataFrame({"school": school, "coded": coded}))
    assert list(sets) == ["school", "coded"]
    np.testing.assert_array_equal(sets["coded"], [8, 9, 10, 12, 14, 16, 17, 20])
    assert list(value_sets(pd.DataFrame({"popul": places}))) == ["popul"]


def test_without_folds_each_count_is_scored_on_the_detector_s_held_out_rows():
    """cv=None (cv="auto" from 2,000 rows): each count's held-out log-likelihood is that of
    one candidate fitted on the 70 % the detector's split keeps and scored on its other
    30 %, and the detector judges those same fits."""
    table = _grouped_table(n=600)
    synthesizer = TableSynthesizer(
        target="label", cv=None, n_components=(1, 3, 5), numeric_columns="evidence"
    ).fit(table)
    fitted, held_out = train_test_split(
        table, test_size=0.3, stratify=table["label"], random_state=0
    )
    tried = synthesizer.choice_["cv_scores"]
    assert list(tried)[:2] == [1, 3]
    for count in tried:
        candidate = LatentClassNB(n_components=count, max_iter=200, random_state=0)
        candidate.fit(fitted.drop(columns="label"), fitted["label"].to_numpy())
        expected = held_out_log_likelihood(
            candidate, held_out.drop(columns="label"), held_out["label"].to_numpy()
        )
        np.testing.assert_allclose(synthesizer.choice_["cv_scores"][count], expected, rtol=1e-12)
    judged = synthesizer.choice_["detector_auc"]["evidence"]
    likeliest = max(tried, key=tried.get)
    assert set(judged) == {likeliest, *[c for c in tried if c > likeliest][:1]}
    folded = TableSynthesizer(
        target="label", cv=3, n_components=(1, 3, 5), numeric_columns="evidence"
    )
    assert folded.fit(table).choice_["cv_scores"] != synthesizer.choice_["cv_scores"]
    auto = TableSynthesizer()  # cv="auto": folds below 2,000 rows, the split from there
    assert auto._fold_count(1999) == 3 and auto._fold_count(2000) is None


def test_below_the_split_s_rows_the_detector_judges_as_many_draws_as_fitted_rows(monkeypatch):
    """Tables under `SPLIT_ROWS` rows: each judged model draws as many rows as the 70 % it
    was fitted on (the detector learns the synthetic law from more rows); from there as
    many as the 30 % held out."""
    import bayesgen.synthesizer as module

    sizes, judge = [], module.detector_auc

    def recorded(real, synthetic, columns, random_state):
        sizes.append((len(real), len(synthetic)))
        return judge(real, synthetic, columns, random_state)

    monkeypatch.setattr(module, "detector_auc", recorded)
    table = _grouped_table(n=600)
    fitted, held_out = train_test_split(
        table, test_size=0.3, stratify=table["label"], random_state=0
    )
    settings = {"target": "label", "n_components": (1, 3)}  # three treatments judged
    TableSynthesizer(**settings).fit(table)
    assert sizes and set(sizes) == {(len(held_out), len(fitted))}
    sizes.clear()
    monkeypatch.setattr(module, "SPLIT_ROWS", len(table))
    TableSynthesizer(**settings, cv=3).fit(table)
    assert sizes and set(sizes) == {(len(held_out), len(held_out))}


def test_without_a_target_the_split_leaves_out_counts_its_rows_cannot_hold():
    rng = np.random.default_rng(9)
    table = pd.DataFrame({"size": rng.gamma(3.0, 2.0, 10), "kind": rng.choice(["a", "b"], 10)})
    synthesizer = TableSynthesizer(cv=None, n_components=(1, 10), numeric_columns="evidence")
    assert set(synthesizer.fit(table).choice_["cv_scores"]) == {1}  # fitted on 7 of the rows


def test_from_the_split_s_rows_the_chosen_model_is_refitted_from_its_fit_on_the_split(
    monkeypatch,
):
    """From `SPLIT_ROWS` rows (lowered here to this table's), the chosen candidate, fitted
    on the split's 70 %, is refitted on every row by EM from its memberships of them: its
    first objective lies above a cold fit's, and the model kept is an ordinary one
    (``warm_start`` off). Below it, the same settings fit afresh."""
    import bayesgen.synthesizer as module

    table = _grouped_table(n=600)
    X, labels = table.drop(columns="label"), table["label"].to_numpy()
    settings = {"target": "label", "cv": None, "n_components": (2, 4)}
    settings["numeric_columns"] = "evidence"
    fresh = TableSynthesizer(**settings).fit(table).model_
    cold = clone(fresh).fit(X, labels)
    np.testing.assert_array_equal(fresh.log_likelihood_history_, cold.log_likelihood_history_)
    monkeypatch.setattr(module, "SPLIT_ROWS", len(table))
    synthesizer = TableSynthesizer(**settings).fit(table)
    model = synthesizer.model_
    assert synthesizer.choice_["n_components"] > 1
    assert isinstance(model, LatentClassNB) and model.get_params()["warm_start"] is False
    assert model.class_count_.sum() == len(table)
    assert model.get_params() == cold.get_params()
    assert model.log_likelihood_history_[0] > cold.log_likelihood_history_[0]
    assert model.n_iter_ < cold.n_iter_
