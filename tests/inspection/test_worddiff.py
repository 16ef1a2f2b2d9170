from workbench.inspection.worddiff import salient_changes, token_kind, tokenize, word_diff


def test_tokenize_keeps_numbers_and_names_whole():
    assert tokenize("In 1,200 U.S. towns") == ["In", " ", "1,200", " ", "U.S", ".", " ", "towns"]


def test_token_kinds():
    assert token_kind("1889") == "year"
    assert token_kind("1990s") == "year"
    assert token_kind("13,527") == "number"
    assert token_kind("Eiffel") == "name"
    assert token_kind("The", sentence_start=True) == "word"
    assert token_kind("NASA") == "name"
    assert token_kind(" ") == "space"
    assert token_kind(",") == "punct"


def test_diff_marks_the_one_constraint_that_differs():
    d = word_diff("The tower was completed in 1889 by Gustave Eiffel.", "The tower was completed in 1887 by Gustave Eiffel.")
    assert [s.text for s in d.left if s.changed] == ["1889"]
    assert [s.text for s in d.right if s.changed] == ["1887"]
    assert d.left_only == ["1889"] and d.right_only == ["1887"]
    assert salient_changes(d) == (["1889"], ["1887"])
    assert 0.8 < d.similarity < 1.0


def test_diff_is_case_insensitive_and_reconstructs_texts():
    a, b = "Paris is the Capital of France.", "paris is the capital of Spain, not France."
    d = word_diff(a, b)
    assert "".join(s.text for s in d.left) == a
    assert "".join(s.text for s in d.right) == b
    assert [s.text for s in d.left if s.changed] == []
    assert {s.text for s in d.right if s.changed} == {"Spain", "not"}
    assert d.right_only[0] == "Spain"  # names sort before plain words


def test_salient_first_and_identical_texts():
    d = word_diff("born in 1950 in Ohio, a singer", "born in 1952 in Texas, a dancer")
    assert d.left_only[:2] == ["1950", "Ohio"]
    same = word_diff("same text", "same text")
    assert same.left_only == [] and same.similarity == 1.0
    empty = word_diff("", "")
    assert empty.left == [] and empty.similarity == 1.0


def test_salient_changes_keep_units_and_drop_words_on_both_sides():
    # issue 10: "44,000" vs "2,900" without their units, and a moved "1986" listed on both sides
    d = word_diff("In 1986 Acme logged 44,000 hours of support.", "Acme logged 2,900 minutes of support in 1986.")
    left, right = salient_changes(d)
    assert "44,000 hours" in left and "2,900 minutes" in right
    assert "1986" not in left and "1986" not in right
