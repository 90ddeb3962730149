"""Column groups: columns whose combinations repeat beyond independence, drawn together from
the training rows' combinations, the rest from the model given them.

References: the expected number of distinct pairs of independent draws (closed form, and
simulated), the training rows' own combinations and frequencies (binomial error), and the
conditional law as its definition gives it, unconditional draws kept where the condition
holds.
"""

import numpy as np
import pandas as pd
import pytest

from bayesgen import LatentClassNB, TableSynthesizer, grouped_columns
from bayesgen.grouped_columns import (
    Combinations,
    column_group,
    expected_untaken,
    log_empty_tail,
)
from bayesgen.value_sets import value_sets


def _panel(households=200, years=4, seed=0):
    """Households repeated over years: a plan, an incentive and a deductible (logarithms of
    amounts: sets of values) fixed per household, a label and visits per year."""
    rng = np.random.default_rng(seed)
    plan = rng.choice(np.log([1.0, 26.0, 51.0, 96.0]), households)
    incentive = np.log(25.0 * rng.integers(1, 40, households))
    deductible = np.where(plan == 0.0, 0.0, np.log(50.0 * rng.integers(2, 30, households)))
    home = np.repeat(np.arange(households), years)
    good = rng.random(home.size) < np.where(incentive[home] > 6.0, 0.7, 0.3)
    return pd.DataFrame(
        {
            "plan": plan[home],
            "incentive": incentive[home],
            "deductible": deductible[home],
            "visits": rng.poisson(np.where(plan[home] == 0.0, 3.0, 1.0)),
            "health": np.where(good, "good", "other"),
        }
    )


def test_expected_empty_cells_are_the_closed_form_and_their_tail_bounds_the_simulated_one():
    p, q, n = np.array([0.5, 0.3, 0.2]), np.array([0.6, 0.25, 0.1, 0.05]), 12
    closed = sum((1 - a * b) ** n for a in p for b in q)
    assert expected_untaken(p, q, n) == pytest.approx(closed, rel=1e-12)
    repeated = np.array([0.25, 0.125, 0.25, 0.125, 0.25])  # each distinct one weighed
    closed_repeated = sum((1 - a * b) ** n for a in repeated for b in q)
    assert expected_untaken(repeated, q, n) == pytest.approx(closed_repeated, rel=1e-12)
    rng = np.random.default_rng(0)
    empty = np.array(
        [
            12 - len(set(zip(rng.choice(3, n, p=p), rng.choice(4, n, p=q), strict=True)))
            for _ in range(4000)
        ]
    )
    assert abs(empty.mean() - closed) <= 4 * empty.std() / np.sqrt(empty.size)
    for m in range(int(np.ceil(closed)) + 1, 10):  # the Chernoff bound on P(M >= m)
        seen = (empty >= m).mean()
        assert seen <= np.exp(log_empty_tail(m, closed)) + 4 * np.sqrt(seen / empty.size) + 1e-3


def test_expected_empty_cells_are_the_same_in_chunks(monkeypatch):
    rng = np.random.default_rng(1)
    p, q = rng.dirichlet(np.ones(50)), rng.dirichlet(np.ones(30))
    whole = expected_untaken(p, q, 500)
    monkeypatch.setattr(grouped_columns, "CHUNK_CELLS", 70)
    assert expected_untaken(p, q, 500) == pytest.approx(whole, rel=1e-12)


@pytest.mark.parametrize("n", [150, 300, 1000])
def test_independent_categories_form_no_group(n):
    rng = np.random.default_rng(n)
    for _ in range(20):
        X = pd.DataFrame(
            {f"c{k}": rng.choice(k, n).astype(str) for k in (3, 4, 5, 6, 7, 8, 10, 12)}
        )
        assert column_group(X, value_sets(X)) == []


def test_an_identifier_stays_out_of_groups():
    rng = np.random.default_rng(4)
    person = np.repeat(np.arange(400), 2)  # two waves
    X = pd.DataFrame(
        {
            "person": person.astype(str),
            "status": rng.choice(["a", "b", "c"], 400)[person],
            "region": rng.choice(["n", "s"], 400)[person],
        }
    )
    assert "person" not in column_group(X, value_sets(X))


def test_a_panel_s_household_columns_form_the_group_and_yearly_ones_stay_out():
    X = _panel().drop(columns="health")
    sets = value_sets(X)
    assert {"incentive", "deductible"} <= set(sets)
    group = column_group(X, sets)
    assert set(group) == {"plan", "incentive", "deductible"}
    assert group[0] == "incentive"  # the most distinct values first


def test_independent_sets_of_values_and_gappy_columns_form_no_group():
    rng = np.random.default_rng(2)
    X = pd.DataFrame(
        {
            "a": np.log(rng.integers(1, 30, 3000) * 7.0),
            "b": np.log(rng.integers(1, 20, 3000) * 3.0),
        }
    )
    assert set(value_sets(X)) == {"a", "b"}
    assert column_group(X, value_sets(X)) == []
    panel = _panel().drop(columns="health")
    panel.loc[3, "deductible"] = np.nan
    assert "deductible" not in column_group(panel, value_sets(panel))


def _model_and_combinations(table, target="health", components=2):
    X, y = table.drop(columns=target), table[target].to_numpy()
    model = LatentClassNB(n_components=components, random_state=0)
    model.fit(X, y)
    group = column_group(X, value_sets(X))
    return model, Combinations.of(table, group, target)


def _draw(model):
    def draw(n, labels, given, seed):
        return model.sample(n, y=labels, given=given, random_state=seed)

    return draw


def _combination_keys(frame, columns):
    return list(zip(*(frame[c].to_numpy() for c in columns), strict=True))


def test_draws_hold_training_combinations_at_their_training_frequencies():
    table = _panel()
    model, combinations = _model_and_combinations(table)
    X, labels = combinations.sample(
        model, 20000, y=None, given=None, draw=_draw(model), rng=np.random.default_rng(0)
    )
    drawn = X.assign(health=labels)
    held = ["health", *combinations.columns]
    counts = pd.Series(_combination_keys(drawn, held)).value_counts()
    training = pd.Series(_combination_keys(table, held)).value_counts() / len(table)
    assert set(counts.index) <= set(training.index)
    share = (counts / len(drawn)).reindex(training.index, fill_value=0.0)
    spread = 4 * np.sqrt(training * (1 - training) / len(drawn))
    assert (np.abs(share - training) <= spread).all()


def test_a_given_value_of_another_column_weighs_combinations_as_the_definition_does():
    table = _panel()
    model, combinations = _model_and_combinations(table)
    held = ["health", *combinations.columns]
    rng = np.random.default_rng(3)
    X, labels = combinations.sample(model, 60000, y=None, given=None, draw=_draw(model), rng=rng)
    kept = X.assign(health=labels).loc[lambda rows: rows["visits"] == 0]
    X_given, labels_given = combinations.sample(
        model, 20000, y=None, given={"visits": 0}, draw=_draw(model), rng=rng
    )
    assert (X_given["visits"] == 0).all()
    given_rows = X_given.assign(health=labels_given)
    for column in held:  # each column's law given the value, against the kept draws
        expected = kept[column].value_counts(normalize=True)
        drawn = (
            given_rows[column].value_counts(normalize=True).reindex(expected.index, fill_value=0.0)
        )
        spread = 4 * np.sqrt(expected * (1 - expected) * (1 / len(kept) + 1 / len(given_rows)))
        assert (np.abs(drawn - expected) <= spread + 1e-12).all(), column


def test_given_group_values_are_held_and_an_unseen_one_is_drawn_from_the_model():
    table = _panel()
    model, combinations = _model_and_combinations(table)
    rare = table["incentive"].value_counts().index[-1]
    X, labels = combinations.sample(
        model,
        300,
        y="good",
        given={"incentive": rare},
        draw=_draw(model),
        rng=np.random.default_rng(4),
    )
    assert (X["incentive"] == rare).all() and (labels == "good").all()
    training = set(_combination_keys(table, ["health", *combinations.columns]))
    assert (
        set(_combination_keys(X.assign(health=labels), ["health", *combinations.columns]))
        <= training
    )
    unseen = float(np.log(25.0 * 40))  # an incentive no household has
    X, _ = combinations.sample(
        model,
        50,
        y=None,
        given={"incentive": unseen},
        draw=_draw(model),
        rng=np.random.default_rng(5),
    )
    assert (X["incentive"] == unseen).all()


def test_labels_and_given_values_one_per_row_keep_their_order():
    table = _panel()
    model, combinations = _model_and_combinations(table)
    wanted = np.array(["good", "other", "other", "good", "other"] * 20)
    visits = np.arange(wanted.size) % 7
    X, labels = combinations.sample(
        model,
        0,
        y=wanted,
        given={"visits": visits},
        draw=_draw(model),
        rng=np.random.default_rng(6),
    )
    assert labels.tolist() == wanted.tolist() and len(X) == wanted.size
    assert X["visits"].tolist() == visits.tolist()
    for label in ("good", "other"):
        rows = X.assign(health=labels).loc[labels == label]
        of_class = set(_combination_keys(table.loc[table["health"] == label], combinations.columns))
        assert set(_combination_keys(rows, combinations.columns)) <= of_class


def test_the_synthesizer_draws_the_panel_s_combinations_or_none_when_told():
    table = _panel()
    auto = TableSynthesizer(target="health", n_components=(1, 2)).fit(table)
    choice = auto.choice_
    ungrouped = choice["detector_auc"][choice["numeric_columns"]][choice["n_components"]]
    assert set(choice["detector_auc"]) == {"evidence", "histogram", "gaussian_copula"}
    assert isinstance(choice["grouped_detector_auc"], float)  # the chosen pair, grouped
    if choice["grouped"]:  # lower by more than the detector's standard error
        assert choice["grouped_detector_auc"] < ungrouped
    assert auto.grouped_columns_ == (
        ["incentive", "deductible", "plan"] if choice["grouped"] else []
    )
    named = ["incentive", "deductible", "plan"]
    grouped = TableSynthesizer(target="health", n_components=(1,), grouped_columns=named)
    grouped.fit(table)
    assert grouped.grouped_columns_ == named and grouped.choice_["grouped"]
    assert grouped.choice_["grouped_detector_auc"] is None  # named: not judged against none
    training = set(_combination_keys(table, named))
    rows = grouped.sample(2000, random_state=0)
    assert set(_combination_keys(rows, named)) <= training
    free = TableSynthesizer(target="health", n_components=(1,), grouped_columns=None)
    rows = free.fit(table).sample(2000, random_state=0)
    assert free.grouped_columns_ == [] and not free.choice_["grouped"]
    assert not set(_combination_keys(rows, named)) <= training


@pytest.mark.parametrize(
    ("grouped_columns", "named"),
    [
        ("plan", "a list of column names"),
        ([], "a list of column names"),
        (["plan", "plan"], "named twice"),
        (["plan", "health"], "['health'] are not feature columns"),
        (["plan", "nowhere"], "['nowhere'] are not feature columns"),
        (["plan", "gappy"], "['gappy'] have missing cells"),
    ],
)
def test_bad_groups_are_refused_by_name(grouped_columns, named):
    table = _panel().assign(gappy=lambda frame: frame["visits"].where(frame["visits"] > 0))
    with pytest.raises(ValueError, match="grouped_columns") as raised:
        TableSynthesizer(target="health", grouped_columns=grouped_columns).fit(table)
    assert named in str(raised.value)


def test_bad_sample_arguments_are_refused_as_the_model_refuses_them():
    table = _panel()
    synthesizer = TableSynthesizer(target="health", n_components=(1,)).fit(table)
    assert synthesizer.grouped_columns_
    with pytest.raises(ValueError, match="y must name classes"):
        synthesizer.sample(5, y="excellent")
    with pytest.raises(ValueError, match="n_samples"):
        synthesizer.sample(0)
    with pytest.raises(ValueError, match="nowhere"):
        synthesizer.sample(5, given={"nowhere": 1.0})
    with pytest.raises(ValueError, match="given"):
        synthesizer.sample(5, given={"visits": [1, 2]})
    with pytest.raises(ValueError, match="n_samples"):
        synthesizer.sample(2.5, y="good")
    with pytest.raises(ValueError, match=r"given\['visits'\] must hold whole numbers"):
        synthesizer.sample(5, given={"visits": 2.5})


def test_a_set_of_values_varying_row_by_row_does_not_hide_the_pair_that_repeats():
    rng = np.random.default_rng(0)
    home = np.repeat(np.arange(300), 5)
    X = pd.DataFrame(
        {
            "yearly": np.log(10.0 * rng.integers(1, 80, home.size)),  # most distinct values
            "incentive": np.log(25.0 * rng.integers(1, 40, 300))[home],
            "deductible": np.log(50.0 * rng.integers(2, 30, 300))[home],
        }
    )
    assert set(value_sets(X)) == {"yearly", "incentive", "deductible"}
    assert column_group(X, value_sets(X)) == ["incentive", "deductible"]


def test_a_column_and_a_function_of_it_form_no_group():
    X = _panel().drop(columns="health")
    X["log_incentive"] = np.log(X["incentive"])  # one variable written twice
    X = X[["incentive", "log_incentive", "visits"]]
    assert set(value_sets(X)) == {"incentive", "log_incentive"}
    assert column_group(X, value_sets(X)) == []


def test_without_a_target_the_group_is_drawn_from_the_table_s_combinations():
    table = _panel().drop(columns="health")
    named = ["incentive", "deductible", "plan"]
    synthesizer = TableSynthesizer(n_components=(1, 2), grouped_columns=named).fit(table)
    rows = synthesizer.sample(1000, given={"visits": 0}, random_state=0)
    assert list(rows.columns) == list(table.columns) and (rows["visits"] == 0).all()
    assert set(_combination_keys(rows, named)) <= set(_combination_keys(table, named))


def test_a_value_only_one_class_holds_draws_that_class_under_each_class_s_ranges():
    table = _panel()
    rng = np.random.default_rng(7)
    table["limited"] = np.where((table["health"] == "other") & (rng.random(len(table)) < 0.2), 1, 0)
    named = ["incentive", "deductible", "plan"]
    synthesizer = TableSynthesizer(
        target="health",
        numeric_columns="gaussian_copula",
        n_components=(1,),
        grouped_columns=named,
    ).fit(table)
    rows = synthesizer.sample(300, given={"limited": 1}, random_state=0)
    assert (rows["health"] == "other").all() and (rows["limited"] == 1).all()
    of_class = table.loc[table["health"] == "other"]
    assert set(_combination_keys(rows, named)) <= set(_combination_keys(of_class, named))


def test_the_group_drawn_is_the_one_the_detector_judged_on_the_split():
    rng = np.random.default_rng(0)
    households, singles, years = 100, 125, 10
    cells = rng.choice(39 * 28, households + singles, replace=False)
    incentive = np.log(25.0 * (1 + cells // 28))
    deductible = np.log(50.0 * (2 + cells % 28))
    home = np.concatenate(
        [np.repeat(np.arange(households), years), np.arange(households, households + singles)]
    )
    label = np.where(rng.random(home.size) < 0.5, "A", "B")
    table = pd.DataFrame(
        {
            "incentive": incentive[home],
            "deductible": deductible[home],
            "x": rng.normal(size=home.size),
            "t": label,
        }
    )
    X = table.drop(columns="t")
    assert column_group(X, value_sets(X)) == []  # most pairs are singles in the whole table
    synthesizer = TableSynthesizer(target="t", n_components=(1,), numeric_columns="histogram")
    synthesizer.fit(table)
    assert synthesizer.choice_["grouped"]  # the split's pairs repeat: judged and chosen
    assert synthesizer.grouped_columns_ == ["incentive", "deductible"]


def test_categories_that_exclude_each_other_s_values_form_a_group():
    rng = np.random.default_rng(3)
    n = 3000
    age = rng.choice(["22", "27", "32", "37", "42"], n)
    years = np.array(
        [rng.choice(["0.5", "2.5", "6", "9", "13", "16.5", "23"][: 2 + int(a) // 9]) for a in age]
    )
    X = pd.DataFrame({"age": age, "years": years, "religious": rng.choice(["1", "2", "3"], n)})
    assert column_group(X, value_sets(X)) == ["years", "age"]  # never married longer than adult
    independent = X.assign(years=rng.permutation(X["years"].to_numpy()))
    assert column_group(independent, value_sets(independent)) == []
