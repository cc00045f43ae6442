"""What a keyword query is made of: phrases, content words without function words (unless
nothing else is left), each word once whatever its case."""

from __future__ import annotations

from services.search.terms import CJK_RUN, content_terms


def test_function_words_drop_out_when_content_words_remain():
    phrases, words = content_terms("what is the staging database called?")
    assert phrases == []
    assert [w.casefold() for w in words] == ["staging", "database", "called"]


def test_a_query_of_only_function_words_keeps_them():
    _, words = content_terms("who are you")
    assert [w.casefold() for w in words] == ["who", "are", "you"]


def test_words_are_distinct_whatever_their_case():
    _, words = content_terms("Postgres postgres POSTGRES replica")
    assert [w.casefold() for w in words] == ["postgres", "replica"]


def test_quoted_phrases_are_kept_whole():
    phrases, words = content_terms('deploy "blue green" tonight')
    assert len(phrases) == 1 and "blue" in phrases[0] and "green" in phrases[0]
    assert "deploy" in [w.casefold() for w in words]


def test_stopwords_can_be_kept():
    _, words = content_terms("the build", stopwords=False)
    assert [w.casefold() for w in words] == ["the", "build"]


def test_cjk_runs_are_found_for_substring_lookup():
    assert CJK_RUN.findall("今天做了回归测试 and tests") == ["今天做了回归测试"]
    assert CJK_RUN.findall("plain ascii only") == []
