"""Tables that cannot be compared: a clear ValueError naming the column or the table."""

import numpy as np
import pandas as pd
import pytest

from bayesgen.synthetic import quality_report


def test_different_columns_list_the_missing_and_the_extra(mixed_table):
    synthetic = mixed_table.drop(columns=["year", "male"]).assign(weight=1.0)
    with pytest.raises(
        ValueError, match=r"lacks column\(s\) 'year', 'male' and has column\(s\) 'weight'"
    ):
        quality_report(mixed_table, synthetic)


def test_a_holdout_with_other_columns(mixed_table):
    with pytest.raises(ValueError, match=r"holdout table lacks column\(s\) 'bill'"):
        quality_report(mixed_table, mixed_table, holdout=mixed_table.drop(columns="bill"))


def test_numeric_in_one_table_and_text_in_the_other(mixed_table):
    synthetic = mixed_table.assign(bill=mixed_table["bill"].astype(str))
    with pytest.raises(ValueError, match="column 'bill' is numeric in the real table but text"):
        quality_report(mixed_table, synthetic)
    with pytest.raises(ValueError, match="column 'island' is text/categorical .* but numeric"):
        quality_report(mixed_table, mixed_table.assign(island=1.0))


def test_a_category_outside_the_real_support(mixed_table):
    synthetic = mixed_table.copy()
    synthetic.loc[4, "island"] = "Atlantis"
    with pytest.raises(ValueError, match="column 'island' .* 'Atlantis' never seen .*support"):
        quality_report(mixed_table, synthetic)


def test_a_target_class_outside_the_real_support(mixed_table):
    real = mixed_table.assign(species=np.arange(60) % 3)
    synthetic = real.assign(species=np.arange(60) % 4)
    with pytest.raises(ValueError, match="column 'species' .* 3 never seen"):
        quality_report(real, synthetic, target="species")


def test_a_holdout_may_hold_categories_the_real_table_lacks(mixed_table):
    holdout = mixed_table.copy()
    holdout.loc[0, "island"] = "Biscoe North"
    report = quality_report(mixed_table, mixed_table, holdout=holdout, random_state=0)
    assert report.holdout == "given"


def test_non_integers_in_an_integer_column(mixed_table):
    synthetic = mixed_table.assign(year=mixed_table["year"] + 0.5)
    with pytest.raises(ValueError, match="column 'year' holds integers .* non-integer values"):
        quality_report(mixed_table, synthetic)
    whole = mixed_table.assign(year=mixed_table["year"].astype(float))
    quality_report(mixed_table, whole, random_state=0)


@pytest.mark.parametrize("value", [np.inf, -np.inf])
@pytest.mark.parametrize("table", ["real", "synthetic", "holdout"])
def test_infinite_values(mixed_table, table, value):
    tables = {"real": mixed_table, "synthetic": mixed_table.copy(), "holdout": mixed_table}
    tables[table] = mixed_table.copy()
    tables[table].loc[2, "bill"] = value
    with pytest.raises(ValueError, match=f"column 'bill' of the {table} table holds ±inf"):
        quality_report(tables["real"], tables["synthetic"], holdout=tables["holdout"])


@pytest.mark.parametrize("table", ["real", "synthetic", "holdout"])
def test_a_target_missing_from_a_table(mixed_table, table):
    tables = {"real": mixed_table, "synthetic": mixed_table, "holdout": mixed_table}
    tables[table] = mixed_table.drop(columns="species")
    with pytest.raises(ValueError, match=f"target column 'species' is not in the {table} table"):
        quality_report(
            tables["real"], tables["synthetic"], target="species", holdout=tables["holdout"]
        )


@pytest.mark.parametrize("table", ["real", "synthetic", "holdout"])
def test_fewer_than_two_rows(mixed_table, table):
    tables = {"real": mixed_table, "synthetic": mixed_table, "holdout": mixed_table}
    tables[table] = mixed_table.iloc[:1]
    with pytest.raises(ValueError, match=rf"the {table} table has 1 row\(s\); at least 2"):
        quality_report(tables["real"], tables["synthetic"], holdout=tables["holdout"])


def test_a_synthetic_target_of_one_class(mixed_table):
    synthetic = mixed_table.assign(species="Adelie")
    with pytest.raises(
        ValueError, match="target column 'species' of the synthetic table has fewer"
    ):
        quality_report(mixed_table, synthetic, target="species", random_state=0)


def test_a_repeated_column_name(mixed_table):
    synthetic = pd.concat([mixed_table, mixed_table[["bill"]]], axis=1)
    with pytest.raises(ValueError, match="synthetic table names column.* 'bill' more than once"):
        quality_report(mixed_table, synthetic)
