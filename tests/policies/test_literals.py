"""The cheap exits of the rule regexes (eventmem.policies.literals) never change an answer:

* soundness: whenever a pattern matches a text, its prefilter lets the text through, and a
  screen of many patterns counts it among those that may match (random patterns from a grammar
  with every construct the derivation reads, random texts);
* the policies that use them (classify, importance, timebound) answer as the plain searches do;
* examples of what is derived, and of what gets no exit.
"""

from __future__ import annotations

import re
import unicodedata

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eventmem.policies import classify, importance, literals, timebound
from eventmem.policies.literals import Necessary, Prefilter, Screen, necessary
from ops.bench.log import generate_texts

# -- examples ------------------------------------------------------------------------------------


def test_a_literal_run_and_its_alternatives():
    assert necessary(r"\bi (?:am|was) here") == Necessary(frozenset({"i am here", "i was here"}))
    assert necessary(r"my (?:full )?name") == Necessary(frozenset({"my full name", "my name"}))


def test_a_run_ends_at_an_unknown_item_and_the_most_telling_run_is_kept():
    # "i " then anything, then one of the verbs: the verbs say more than "i ".
    found = necessary(r"\bi (?:really )*(?:like|love)s?\b")
    assert found == Necessary(frozenset({"like", "love"}))


def test_strings_that_contain_another_are_dropped():
    assert necessary(r"(?:dislike|like)") == Necessary(frozenset({"like"}))


def test_an_anchored_pattern_needs_its_strings_at_the_start():
    found = necessary(r"^(?:hi|hello)[!.]*$")
    assert found == Necessary(frozenset({"hi", "hello"}), opening=True)  # "hello" is no "hi..."
    exit_ = Prefilter([r"^(?:hi|hello)[!.]*$"])
    assert exit_.may_match("hello!") and not exit_.may_match("oh hi")
    assert necessary(r"^(?:ok|k)$") == Necessary(frozenset({"ok", "k"}), opening=True)


def test_no_exit_where_nothing_is_certain():
    for pattern in (r"\w+", r".*abc?", r"(?:a|)b*", r"(?i)abc", r"[^x]yz*"):
        found = necessary(pattern)
        assert found is None or "" not in found.strings, pattern
    assert necessary(r"\w+") is None
    assert necessary(r"(?i)hello") is None  # case-insensitive: the text's case is not known
    assert necessary("abc", re.IGNORECASE) is None
    assert Prefilter([r"abc", r"\w+"]).may_match("zzz")  # one pattern without an exit


def test_alternatives_one_of_which_opens_with_anything_need_what_each_needs():
    # As one item they tell nothing ("\d+" may be anything); each alternative needs its words.
    found = necessary(r"\bhow many\b|\b\d+ (?:own|have)\b")
    assert found == Necessary(frozenset({"how many", " own", " have"}))
    # "a" opens one alternative: what the alternatives need tells more than how they begin.
    assert necessary(r"\b(?:a|an) (?:nurse|pilot)\b|\bjob title\b") == Necessary(
        frozenset({"a nurse", "an nurse", "a pilot", "an pilot", "job title"}))
    # how they begin tells as much as what they need ("on " of one alternative): kept
    assert necessary(r"\bdentist\b.* on |\bvet\b") == Necessary(frozenset({"dentist", "vet"}))
    assert necessary(r"\d+|abc") is None  # one alternative needs nothing


def test_a_screen_tells_which_patterns_may_match_in_one_scan():
    patterns = [re.compile(p) for p in (r"\bcar\b", r"\bcards?\b", r"^hi\b", r"\w+\d",
                                        r"\bhow many\b|\b\d+ (?:own|have)\b")]
    car, cards, hi, number, count = patterns
    screen = Screen(patterns)
    assert screen.possible("my car") == {car, number}  # "\w+\d" has no exit: always possible
    assert screen.possible("two cards") == {car, cards, number}  # "car" begins "cards"
    assert screen.possible("hi there, I have 3") == {hi, number, count}
    assert screen.possible("oh hi") == {number}  # "hi" must open the text


def test_a_prefilter_reads_its_patterns_on_first_use(monkeypatch: pytest.MonkeyPatch):
    """Prefilters are module constants of the rule tables: made at import, they parse nothing
    until a text is tested, and then once."""
    read: list[str] = []

    def reading(pattern: str, flags: int = 0) -> Necessary | None:
        read.append(pattern)
        return necessary(pattern, flags)

    monkeypatch.setattr(literals, "necessary", reading)
    pattern = r"\bhello (?:there|world)\b"
    exit_ = Prefilter(iter([pattern]))  # a generator is taken at once
    assert read == []
    assert exit_.may_match("oh hello world!") and not exit_.may_match("hello you")
    assert exit_.strings == ("hello there", "hello world") and exit_.openings == ()
    assert read == [pattern]


# -- soundness over random patterns --------------------------------------------------------------

ALPHABET = "ab cA"


ATOMS = st.one_of(
    st.sampled_from(["a", "b", "c", " ", "ab", "ba", "abc", "c a"]),
    st.sampled_from(["[ab]", "[a-c]", "[^a]", ".", r"\w", r"\s", r"\b", "^", "$", "(?=a)", "(?!b)",
                     "(?<=a)", "(?<!c)"]),
)
QUANTIFIERS = st.sampled_from(["?", "*", "+", "{2}", "{1,3}", "??", "*?", "++", "{0,2}"])


def _extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.lists(inner, min_size=2, max_size=4).map("".join),
        st.lists(inner, min_size=2, max_size=3).map(lambda alts: "(?:" + "|".join(alts) + ")"),
        st.tuples(inner, QUANTIFIERS).map(lambda t: f"(?:{t[0]}){t[1]}"),
        inner.map(lambda p: f"({p})"),
        inner.map(lambda p: f"(?>{p})"),
        inner.map(lambda p: f"(?i:{p})"),
    )


patterns = st.recursive(ATOMS, _extend, max_leaves=10)


def _with_matching(texts: list[str], patterns: list[str], data: st.DataObject) -> list[str]:
    """``texts`` and, for each pattern hypothesis can make a text of, one it matches."""
    out = list(texts)
    for pattern in patterns:
        try:
            out.append(data.draw(st.from_regex(pattern).filter(lambda t: len(t) < 40)))
        except Exception:  # a construct from_regex does not support
            continue
    return out


@pytest.mark.slow
@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(patterns, min_size=1, max_size=3),
       st.lists(st.text(ALPHABET, max_size=12), min_size=1, max_size=8), st.data())
def test_a_text_a_pattern_matches_always_passes_the_prefilter(patterns, texts, data):
    exit_ = Prefilter(patterns)
    for text in _with_matching(texts, patterns, data):
        if any(re.search(p, text) for p in patterns):
            assert exit_.may_match(text), (patterns, text, exit_.strings, exit_.openings)


@pytest.mark.slow
@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(patterns, st.lists(patterns, min_size=2, max_size=3).map("|".join)),
                min_size=1, max_size=5),
       st.lists(st.text(ALPHABET, max_size=12), min_size=1, max_size=8), st.data())
def test_a_pattern_that_matches_a_text_is_among_those_its_screen_lets_through(patterns, texts,
                                                                             data):
    compiled = [re.compile(p) for p in patterns]
    screen = Screen(compiled)
    for text in _with_matching(texts, patterns, data):
        possible = screen.possible(text)
        for pattern in compiled:
            if pattern.search(text):
                assert pattern in possible, (pattern, text, necessary(pattern.pattern))
                assert Prefilter([pattern.pattern]).may_match(text)


# -- the policies answer as the plain searches do ------------------------------------------------


def _plain_classify(text: str) -> tuple[str, str]:
    """classify-2 without its exits: each kind tried on the text, then on its first-person form
    (a name in ASCII letters, as classify-2 read it)."""
    unified = unicodedata.normalize("NFKC", text).translate(classify._APOSTROPHES)
    first_person = classify._first_person(unified, classify._ASCII_SUBJECT)
    forms = [classify._normalize(text), classify._normalize(first_person)]
    for kind, pattern, names in classify._compiled():
        for norm in forms:
            match = pattern.search(norm)
            if match is not None:
                return kind, names[match.lastgroup]
    return "context", classify.DEFAULT_RULE


def _plain_arousal(text: str, params: importance.ImportanceParams) -> tuple[float, tuple[str, ...]]:
    """importance._arousal as it was before its exits."""
    shown = unicodedata.normalize("NFKC", text)
    found: dict[str, float] = {}
    for match in importance._CUE_RE.finditer(" ".join(shown.casefold().split())):
        family, weight, _ = importance._CUES[int(str(match.lastgroup)[1:])]
        cue = f"{family}:{match.group()}"
        found[cue] = max(weight, found.get(cue, 0.0))
    weights = [found[cue] for cue in sorted(found)]
    bangs = min(shown.count("!"), params.emphasis_max_count)
    caps = min(sum(1 for w in re.findall(r"\w+", shown)
                   if len(w) >= 3 and w.isalpha() and w.isupper()), params.emphasis_max_count)
    weights += [params.exclamation_weight] * bangs + [params.caps_weight] * caps
    cues = sorted(found) + ["emphasis:!"] * (bangs > 0) + ["emphasis:caps"] * (caps > 0)
    calm = 1.0
    for weight in weights:
        calm *= 1.0 - min(1.0, weight)
    return 1.0 - calm, tuple(cues)


def _plain_valid_until(text: str, now: int) -> tuple[int, str] | None:
    """timebound.infer_valid_until as it was before its exits."""
    folded = " ".join(unicodedata.normalize("NFKC", text).casefold().split())
    at = timebound.from_micros(now)
    best: tuple[int, int, str] | None = None
    for index, (rule, pattern, end_of) in enumerate(timebound._COMPILED):
        for match in pattern.finditer(folded):
            try:
                end = end_of(match, at)
            except (OverflowError, ValueError):
                continue
            if end is not None:
                candidate = (timebound.to_micros(end), -index, rule)
                best = candidate if best is None or candidate > best else best
    return None if best is None else (best[0], best[2])


NOW = 1_735_722_000_000_000  # 2025-01-01 09:00 UTC


def _rule_fragments() -> list[str]:
    """Pieces of the rules' own words, so random texts hit the rules often."""
    words = set()
    for _, rules in classify._RULE_TABLE:
        for _, pattern in rules:
            words.update(re.findall(r"[a-z']{2,}", pattern))
    for _, _, pattern in importance._CUES:
        words.update(re.findall(r"[a-z']{2,}", pattern))
    for _, pattern, _ in timebound._RULE_TABLE:
        words.update(re.findall(r"[a-z']{2,}", pattern))
    return sorted(words)


FRAGMENTS = _rule_fragments()
rule_texts = st.lists(
    st.one_of(st.sampled_from(FRAGMENTS), st.sampled_from(["I", "I'm", "we", "my", "Hi", "!",
                                                           ".", "2024", "3", "URGENT", "ok"])),
    min_size=1, max_size=10,
).map(" ".join)


PARAMS = importance.ImportanceParams()


@pytest.mark.slow
@settings(max_examples=500, deadline=None)
@given(rule_texts)
def test_classify_and_arousal_answer_as_the_plain_searches(text):
    assert classify.classify(text, classify.CLASSIFY_2) == _plain_classify(text)
    assert importance._arousal(text, PARAMS) == _plain_arousal(text, PARAMS)
    assert timebound.infer_valid_until(text, NOW) == _plain_valid_until(text, NOW)


def test_classify_and_arousal_on_chat_text():
    texts = [*generate_texts(1500, seed=3), "Hi there!", "k", "ok", "I'm SO ANGRY about the OUTAGE",
             "Ünïcode ÉTÉ GRAND", "My name is Ana", "remind me: the deadline is due Friday",
             "We just got married!!!", "ＵＲＧＥＮＴ ｆｉｘ",
             "due 2025-03-04", "in 3 weeks", "by Friday", "on 3 May 2026", "within the next 2 days"]
    for text in texts:
        assert classify.classify(text, classify.CLASSIFY_2) == _plain_classify(text), text
        assert importance._arousal(text, PARAMS) == _plain_arousal(text, PARAMS), text
        assert timebound.infer_valid_until(text, NOW) == _plain_valid_until(text, NOW), text
