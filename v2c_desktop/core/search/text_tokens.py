"""The keyword tokenizer: the terms BM25 indexes, queries look up and snippets bold.

One pipeline serves the index, the query and the snippet, because a word only matches when
both sides turn it into the same term. For each word of the text:

1. **Words** are runs of Unicode letters and digits (with their combining marks). An
   apostrophe inside a word is dropped ("don't" -> "dont", "driver's" -> "drivers"), any
   other character splits ("30-minute" -> "30", "minute"; "GPT-3.5" -> "gpt", "3", "5").
   Sound tags such as "[Music]", "[INAUDIBLE]" or "(laughter)" are skipped: they sit in
   every intro and would make "music" match every video. A bracket holding real words
   ("[? dystring ?]", MIT's unsure-transcription mark) is kept.
2. **Folding**: lowercase (casefold: "Straße" -> "strasse") and diacritics dropped (NFKD,
   then the combining diacritics blocks removed, plus ø/æ/œ/ł/đ/ð/þ/ı which do not
   decompose), so "café" matches "cafe" and "Ångström" matches "angstrom". Marks that
   are letters of their script (Devanagari vowel signs) stay.
3. **Stop words** (`STOP_WORDS`, the usual ~190 English function words with contractions
   written without their apostrophe) and **caption filler** (`FILLER`: "um", "uh",
   "yeah", "okay", "gonna"...) carry no topic, so BM25 skips them. "like" is NOT filler:
   it carries meaning in "would like", "looks like", "like button", and BM25's idf already
   weighs a very common word down. Neither are "ill" ("I'll") and "id" ("I'd"): "mentally
   ill" and Freud's "id" are real search words.
4. **Model codes** (a word mixing letters and digits: "M113", "W463", "gpt4", "3b1b",
   "mp3", "60fps") are not stemmed. The whole code is a term, and so are its parts: every
   digit run, and every letter run of at least 2 letters that is not an ordinal suffix
   (st/nd/rd/th). So "M113" -> "m113", "113", and a speaker who said "the 113 motor"
   matches a query for "M113" (the query gets the same parts); "gpt4" -> "gpt4", "gpt", "4"
   matches "GPT-4"; "60fps" -> "60fps", "60", "fps"; "19th" -> "19th", "19"; "3b1b" ->
   "3b1b", "3", "1". One-letter runs are left out ("m", "b"): as terms they would match
   every stray letter. A plural "s" after the digits is dropped first ("M113s" -> "m113",
   "1990s" -> "1990").
5. **Stemming** (`stem`): a small suffix stemmer for English plurals, -ing, -ed and -ly
   only (as the search spec asks; -er, -ness, -ment... are left alone). Rules, in order:

   - words of 3 letters or fewer, words with a non a-z letter, and `KEEP` are untouched;
     a few irregular forms map to their base first (`IRREGULAR`: "goes" -> "go",
     "dying" -> "die", "simply" -> "simple");
   - plural: "-sses" -> "-ss"; "-ies" -> "-y" ("studies" -> "study"; "-ie" for 4-letter
     words: "ties" -> "tie"); "-xes"/"-ches"/"-shes" and "-oes" (6+ letters) lose "-es"
     ("boxes" -> "box", "potatoes" -> "potato"); otherwise a final "s" goes, except after
     "s", "sis" or "us" ("class", "analysis", "focus"; but "GPUs" -> "gpu": an "-us"
     whose "u" is the only vowel is an acronym plural);
   - "-ed" / "-ing" go when what is left has a vowel ("thing", "sing", "bed" stay);
     "-ied" -> "-y" ("studied" -> "study"; "died" -> "die"); "-eed" only loses its "d",
     and only after a syllable ("agreed" -> "agree"; "speed", "need" and the "-ceed"
     verbs stay). Then "-at"/"-bl"/"-iz" get their "e" back ("related" -> "relate"), a
     doubled final consonant is undoubled ("stopped" -> "stop", "running" -> "run"; not
     l/s/z/f, and not below 3 letters: "added" -> "add", "missing" -> "miss"), or else a
     final "e" is restored on a short consonant-vowel-consonant stem ("used" -> "use",
     "making" -> "make", "hoping" -> "hope" while "hopping" -> "hop");
   - "-ly" (only when no "-ed"/"-ing" went): "-ably"/"-ibly" -> "-able"/"-ible",
     "-ily" -> "-y" ("easily" -> "easy"), "-ally" -> "-al" ("really" -> "real"), else
     "-ly" goes when 4+ letters remain that do not end in a vowel other than "e"
     ("quickly" -> "quick"; "family", "early", "only" stay);
   - last, on every word of 4+ letters: "-ie" -> "-y" ("movie" -> "movy", matching
     "movies"), a final "e" is dropped unless what precedes it is one syllable ending
     consonant-vowel-consonant or no closed syllable at all (Porter's measure m = 1 with
     *o, or m = 0): "compute" and "computed" -> "comput", "house" and "housing" ->
     "hous", but "make", "use", "hope", "true" keep it; and a final "ll" after two
     syllables becomes "l" ("controlled" and "control" -> "control").

   The last step is what keeps a word family on one term: each rule is a function of the
   letters left, so "compute", "computes", "computed", "computing" all end at "comput".
   Terms are index keys, not words to show, so "comput" is fine.

`tokenize` gives the BM25 terms of a text; `query_terms` the same for a query (each once);
`phrase_tokens` keeps stop words (only hesitations go) for word-for-word phrase matching;
`snippet_terms` and `match_spans` map terms back to character spans of the original text,
so a snippet can bold what matched. Tokenizing the ~30-hour corpus takes well under a
second: regexes are compiled once and each distinct word is analysed once (`lru_cache`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection, Iterator
from functools import lru_cache
from typing import NamedTuple

__all__ = [
    "FILLER",
    "HESITATIONS",
    "STOP_WORDS",
    "TermSpan",
    "fold",
    "match_spans",
    "phrase_tokens",
    "query_terms",
    "snippet_terms",
    "stem",
    "tokenize",
]


def _words(text: str) -> frozenset[str]:
    """A word set written as text, so long lists stay readable."""
    return frozenset(text.split())


STOP_WORDS: frozenset[str] = _words(
    """
    a about above after again against ain all also am an and any are arent as at
    be because been before being below between both but by
    can cant could couldnt couldve d did didnt do does doesnt doing dont down during
    each few for from further had hadnt has hasnt have havent having he her here heres
    hers herself hes him himself his how hows i if im in into is isnt it its itself ive
    just ll lets m many may me might mightnt mightve more most much must mustnt mustve my myself
    neednt no nor not now o of off on once only or other our ours ourselves out over own
    re s same shall shant she shes should shouldnt shouldve so some such
    t than that thatll thats the their theirs them themselves then there theres these
    they theyd theyll theyre theyve this those through thus to too
    under until up us ve very was wasnt we were werent weve what whats when whens where
    wheres which while who whom whos whose why whys will with wont would wouldnt wouldve
    y yet you youd youll your youre yours yourself yourselves youve
    """
)
"""English function words, folded and without apostrophes ("don't" is "dont").

"many" and "much" are added to the usual list: in questions ("how many ...") they carry
no topic and otherwise outweigh the words that do."""

HESITATIONS: frozenset[str] = _words("um umm ummm uh uhh uhm er erm hmm hmmm hm mm mmm mhm")
"""Sounds, not words: dropped everywhere, even inside a phrase ("cam, um, chain")."""

FILLER: frozenset[str] = HESITATIONS | _words(
    "ah ahh oh ooh eh huh yeah yep yup okay ok gonna wanna gotta kinda sorta"
)
"""Caption filler: never a BM25 term, but kept word for word in phrases ("okay google")."""

# Square-bracketed or parenthesised tags made only of these words are sound descriptions.
_SOUND_WORDS = _words(
    """
    music musical applause laughter laughs laughing laugh chuckles chuckling inaudible
    indistinct unintelligible crosstalk interposing voices voice intro outro silence noise
    noises cheering cheers clapping coughs coughing sighs sigh foreign speaking language
    background upbeat dramatic playing plays chatter static beep beeping sound sounds
    effect effects no audio blank theme song singing whistling ding bell bells
    """
)

KEEP: frozenset[str] = _words(
    """
    news lens series species bias alias atlas canvas whereas christmas texas chaos cosmos
    ethos kudos pathos plus thus this
    nothing something anything everything morning evening ceiling wedding pudding herring
    sterling darling offspring lightning viking awning
    embed indeed
    family homily supply comply multiply assembly butterfly dragonfly firefly
    """
)
"""Words the suffix rules would mangle; they are their own term."""

IRREGULAR: dict[str, str] = {
    "goes": "go",
    "dying": "die",
    "lying": "lie",
    "tying": "tie",
    "simply": "simple",
    "gently": "gentle",
    "menus": "menu",
    "buses": "bus",
    "gases": "gas",
}
"""Forms whose base the rules cannot see; the base is then stemmed like any word."""

_FOLD_EXTRA = str.maketrans(
    {
        "ø": "o",
        "æ": "ae",
        "œ": "oe",
        "ł": "l",
        "đ": "d",
        "ð": "d",
        "þ": "th",
        "ı": "i",
        "'": "",
        "’": "",
        "ʼ": "",
    }
)
_APOSTROPHES = "'’ʼ"
_ORDINALS = frozenset({"st", "nd", "rd", "th"})
_PHRASE_ONLY = "\x00"  # marks a stop word or filler: a phrase token, not a BM25 term

_ASCII_WORD = re.compile(r"[A-Za-z0-9]+(?:['’][A-Za-z0-9]+)*")
_TAG = re.compile(r"[\[(]([^\[\]()]{1,60})[\])]")
_CODE_PART = re.compile(r"[0-9]+|[^\W\d_]+")
_LETTERS = re.compile(r"[a-z]+")
# The combining diacritics blocks (accents, cedillas, umlauts...), not every mark: the
# vowel signs of Devanagari and other Indic scripts are marks too, but they are letters of
# the word, and dropping them would merge different words.
_DIACRITICS = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")


@lru_cache(maxsize=1)
def _unicode_word() -> re.Pattern[str]:
    """The word pattern for non-ASCII text: letters and digits with their combining marks.

    Python's `\\w` does not match combining marks, so "cafe\\u0301" or a Devanagari word with
    vowel signs would split mid-word. The mark ranges of the Basic Multilingual Plane are
    collected once (about 10 ms), on the first non-ASCII text.
    """
    ranges: list[tuple[int, int]] = []
    for cp in range(0x10000):
        if unicodedata.category(chr(cp))[0] == "M":
            if ranges and ranges[-1][1] == cp - 1:
                ranges[-1] = (ranges[-1][0], cp)
            else:
                ranges.append((cp, cp))
    marks = "".join(f"\\u{a:04x}" if a == b else f"\\u{a:04x}-\\u{b:04x}" for a, b in ranges)
    char = f"(?:[^\\W_]|[{marks}])"
    return re.compile(f"[^\\W_]{char}*(?:[{_APOSTROPHES}]{char}+)*")


def _sound_tags(text: str, pattern: re.Pattern[str]) -> list[tuple[int, int]]:
    """The spans of the sound tags of `text` ("[Music]", "(laughter)"), in order."""
    skip: list[tuple[int, int]] = []
    if "[" in text or "(" in text:
        for tag in _TAG.finditer(text):
            words = {fold(m.group()) for m in pattern.finditer(tag.group(1))}
            if words and words <= _SOUND_WORDS:
                skip.append(tag.span())
    return skip


def _raw_words(text: str) -> Iterator[re.Match[str]]:
    """The word matches of `text`, in order, outside sound tags."""
    pattern = _ASCII_WORD if text.isascii() else _unicode_word()
    skip = _sound_tags(text, pattern)
    if not skip:
        yield from pattern.finditer(text)
        return
    k = 0
    for match in pattern.finditer(text):
        while k < len(skip) and skip[k][1] <= match.start():
            k += 1
        if k < len(skip) and skip[k][0] <= match.start() < skip[k][1]:
            continue
        yield match


def fold(word: str) -> str:
    """Lowercase, diacritics and apostrophes removed: "Café" -> "cafe", "don't" -> "dont"."""
    if word.isascii():
        out = word.lower()
        return out.replace("'", "") if "'" in out else out
    decomposed = unicodedata.normalize("NFKD", word.casefold().translate(_FOLD_EXTRA))
    bare = _DIACRITICS.sub("", decomposed)
    kept = "".join(ch for ch in bare if ch.isalnum() or unicodedata.category(ch)[0] == "M")
    return unicodedata.normalize("NFC", kept)


# --- the stemmer -----------------------------------------------------------------------


def _is_consonant(word: str, i: int) -> bool:
    ch = word[i]
    if ch in "aeiou":
        return False
    if ch == "y":  # Porter: "y" is a vowel after a consonant ("try"), a consonant otherwise
        return i == 0 or not _is_consonant(word, i - 1)
    return True


def _measure(word: str) -> int:
    """Porter's m: the number of vowel-consonant sequences ("tree" 0, "trouble" 1, "oaten" 2)."""
    m = 0
    previous_vowel = False
    for i in range(len(word)):
        consonant = _is_consonant(word, i)
        if consonant and previous_vowel:
            m += 1
        previous_vowel = not consonant
    return m


def _has_vowel(word: str) -> bool:
    return any(not _is_consonant(word, i) for i in range(len(word)))


def _ends_cvc(word: str) -> bool:
    """Consonant-vowel-consonant at the end, the last not w/x/y ("hop", "mak", "us").

    Porter's *o, extended to a two-letter word "vowel-consonant" ("us" -> "use", "ag" ->
    "age"): the start of the word counts as a consonant.
    """
    n = len(word)
    if n < 2 or word[-1] in "wxy":
        return False
    if not _is_consonant(word, n - 1) or _is_consonant(word, n - 2):
        return False
    return n == 2 or _is_consonant(word, n - 3)


def _strip_plural(word: str) -> str:
    if word.endswith("sses"):
        return word[:-2]
    if word.endswith("ies"):
        return word[:-3] + ("y" if len(word) > 4 else "ie")
    if word.endswith(("xes", "ches", "shes")) or (word.endswith("oes") and len(word) >= 6):
        return word[:-2]
    if not word.endswith("s") or word.endswith(("ss", "sis")):
        return word
    if word.endswith("us") and _has_vowel(word[:-2]):
        return word  # "focus", "virus"; "gpus" (the "u" is the only vowel) is a plural
    return word[:-1]


def _strip_verb(word: str) -> str | None:
    """`word` without "-ed"/"-ing" (and with its "e" or single consonant back), else None."""
    if word.endswith("eed"):
        if word.endswith("ceed") or _measure(word[:-3]) == 0:
            return None
        return word[:-1]  # "agreed" -> "agree"
    if word.endswith("ied"):  # "studied" -> "study"; "died" -> "die"
        return word[:-3] + "y" if len(word) > 4 else word[:-1]
    if word.endswith("ed"):
        base = word[:-2]
    elif word.endswith("ing"):
        base = word[:-3]
    else:
        return None
    if not _has_vowel(base):
        return None  # "bed", "thing", "sing", "string"
    if base.endswith(("at", "bl", "iz")):
        return base + "e"  # "related" -> "relate", "troubled" -> "trouble"
    if len(base) >= 4 and base[-1] == base[-2] and base[-1] not in "aeioulsfz":
        return base[:-1]  # "stopp" -> "stop", "runn" -> "run"; "add", "miss" stay
    if _measure(base) == 1 and _ends_cvc(base):
        return base + "e"  # "us" -> "use", "mak" -> "make", "hop" -> "hope"
    return base


def _strip_ly(word: str) -> str:
    if not word.endswith("ly") or word in KEEP:
        return word
    if word.endswith(("ably", "ibly")) and len(word) >= 6:
        return word[:-1] + "e"  # "probably" -> "probable"
    if word.endswith("ily") and len(word) >= 6:
        return word[:-3] + "y"  # "easily" -> "easy"
    if word.endswith("ally") and len(word) >= 6:
        return word[:-2]  # "really" -> "real", "basically" -> "basical"
    base = word[:-2]
    if len(base) >= 4 and base[-1] not in "aiouy":
        return base  # "quickly" -> "quick", "completely" -> "complete"
    return word


def _finish(word: str) -> str:
    """The normalisation every word goes through last, so a word family meets on one term."""
    if len(word) < 4:
        return word
    if word.endswith("ie"):
        return word[:-2] + "y"  # "movie" -> "movy", like "movies"
    if word.endswith("e") and not word.endswith("ee"):
        base = word[:-1]
        m = _measure(base)
        if m >= 2 or (m == 1 and not _ends_cvc(base)):
            return base  # "compute" -> "comput", "house" -> "hous"; "make" stays
    if word.endswith("ll") and _measure(word) >= 2:
        return word[:-1]  # "controll" -> "control", "install" -> "instal"
    return word


@lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """The index term of one folded word: plural, -ing, -ed, -ly removed (see module doc).

    `stem` of a word and of any of its inflections is the same term: "chains" -> "chain",
    "running" -> "run", "studies" -> "study", "boxes" -> "box", "quickly" -> "quick",
    "used" -> "use", "stopped" -> "stop"; short words are left alone ("bus", "this",
    "thing", "sing"). Expects a folded word (lowercase, no diacritics): use `fold` first.
    """
    if len(word) <= 3 or word in KEEP or not _LETTERS.fullmatch(word):
        return word
    if word in IRREGULAR:
        return stem(IRREGULAR[word])
    candidate = _strip_plural(word)
    if candidate in KEEP:
        return candidate
    verb = _strip_verb(candidate)
    candidate = verb if verb is not None else _strip_ly(candidate)
    return _finish(candidate)


# --- words to terms --------------------------------------------------------------------


def _is_code(word: str) -> bool:
    has_digit = has_letter = False
    for ch in word:
        if ch.isdigit():
            has_digit = True
        else:
            has_letter = True
        if has_digit and has_letter:
            return True
    return False


def _code_terms(code: str) -> tuple[str, tuple[str, ...]]:
    """A model code's own term and its index terms: the code, its digits, its long letters."""
    if code.endswith("s") and len(code) > 2 and code[-2].isdigit():
        code = code[:-1]  # "m113s" -> "m113", "1990s" -> "1990"
        if code.isdigit():
            return code, (code,)
    terms = [code]
    for part in _CODE_PART.findall(code):
        wanted = part[0].isdigit() or (len(part) >= 2 and part not in _ORDINALS)
        if wanted and part not in terms:
            terms.append(part)
    return code, tuple(terms)


@lru_cache(maxsize=1 << 18)
def _analyse(raw: str) -> tuple[str, tuple[str, ...]]:
    """(phrase term, BM25 terms) of one raw word; phrase term "" for a hesitation.

    Cached on the raw word, so each distinct spelling in a corpus is analysed once.
    """
    word = fold(raw)
    if not word or word in HESITATIONS:
        return "", ()
    if _is_code(word):
        return _code_terms(word)
    term = stem(word)
    if word in STOP_WORDS or word in FILLER:
        return term, ()
    return term, (term,)


def tokenize(text: str) -> list[str]:
    """The BM25 terms of `text`, in order, duplicates kept (stop words and filler dropped)."""
    out: list[str] = []
    for match in _raw_words(text):
        terms = _analyse(match.group())[1]
        if len(terms) == 1:
            out.append(terms[0])
        elif terms:
            out.extend(terms)
    return out


def query_terms(text: str) -> list[str]:
    """The BM25 terms of a query: `tokenize`, each term once, in first-seen order."""
    return list(dict.fromkeys(tokenize(text)))


def phrase_tokens(text: str) -> list[str]:
    """Every word of `text` as a stemmed term, stop words and filler included.

    For phrase matching: a phrase is matched word for word, so "the cam chain" must not
    match "cam chain" alone, yet "chains" still matches "chain". Only hesitations ("um",
    "uh") are left out, so "Land Cruiser, uh, killer" still holds "land cruiser killer".
    A model code is one token (its whole code, no parts).
    """
    out: list[str] = []
    for match in _raw_words(text):
        term = _analyse(match.group())[0]
        if term:
            out.append(term)
    return out


class TermSpan(NamedTuple):
    """One word of a text: its character span in the original text and its term."""

    start: int
    end: int
    term: str


def snippet_terms(text: str) -> list[TermSpan]:
    """Every word of `text` (stop words too) with its span in `text` and its phrase term.

    Spans index the original, unfolded text, so a snippet can bold `text[start:end]`.
    One entry per word, in order and never overlapping; the term is the word's own
    (`phrase_tokens`) term, so a model code is listed once, as its whole code. To also
    bold "M113" for a query "113", use `match_spans`, which knows a code's parts.
    """
    out: list[TermSpan] = []
    for match in _raw_words(text):
        term = _analyse(match.group())[0]
        if term:
            out.append(TermSpan(match.start(), match.end(), term))
    return out


def match_spans(text: str, terms: Collection[str]) -> list[tuple[int, int]]:
    """Spans of the words of `text` whose phrase term or any BM25 term is in `terms`.

    In order and never overlapping, ready to bold; unlike `snippet_terms` it counts a
    model code's parts, so "M113" is bolded for a query "113".

    Every hit's snippet is marked with this, so it must be cheap: analysing each word of a
    ~2,000-character range in Python took most of a search's hit building. For ASCII text
    (nearly every transcript) the distinct spellings are collected by C code
    (`_ascii_spellings`), only new ones are analysed, and the few wanted ones are found
    again with `str.find`, keeping an occurrence only where `_ASCII_WORD` would start and
    end a word there: the spans are those of the word-by-word walk (`_match_spans_walk`,
    still the way for other text).
    """
    wanted = frozenset(terms)
    if not wanted or not text:
        return []
    if not text.isascii():
        return _match_spans_walk(text, wanted)
    spellings = _wanted_spellings(_ascii_spellings(text), wanted)
    if not spellings:
        return []
    skip = _sound_tags(text, _ASCII_WORD)
    out: list[tuple[int, int]] = []
    k = 0
    for start, end in _whole_word_spans(text, spellings):
        while k < len(skip) and skip[k][1] <= start:
            k += 1
        if k < len(skip) and skip[k][0] <= start < skip[k][1]:
            continue
        out.append((start, end))
    return out


# Every ASCII character a word of `_ASCII_WORD` cannot hold, to a space.
_NOT_IN_WORDS = {i: " " for i in range(128) if not (chr(i).isalnum() or chr(i) == "'")}


def _ascii_spellings(text: str) -> set[str]:
    """The distinct `_ASCII_WORD` words of the ASCII `text`, three times faster than
    `findall`: the runs of letters, digits and apostrophes, with the runs holding an
    apostrophe (which may not be inside a word: "'cause", "don''t") split by the regex.
    A word never crosses another character, and such a character starts or ends a word
    just as the text's start or end does, so each run splits into words on its own."""
    runs = set(text.translate(_NOT_IN_WORDS).split())
    quoted = [run for run in runs if "'" in run]
    if quoted:
        runs.difference_update(quoted)
        for run in quoted:
            runs.update(_ASCII_WORD.findall(run))
    return runs


def _whole_word_spans(text: str, spellings: Collection[str]) -> list[tuple[int, int]]:
    """Where the ASCII `text` has a word (of `_ASCII_WORD`) spelled as one of `spellings`.

    A word starts at a letter or digit not preceded by one, nor by an apostrophe that
    follows one (the word would have run on through it), and ends where neither a letter
    or digit nor an apostrophe followed by one comes next. Each spelling is itself such a
    word, so an occurrence with those edges is exactly one word; words never overlap, so
    the sorted occurrences are in order and disjoint.
    """
    out: list[tuple[int, int]] = []
    size = len(text)
    for word in spellings:
        pos = text.find(word)
        while pos >= 0:
            end = pos + len(word)
            before = text[pos - 1] if pos else " "
            after = text[end] if end < size else " "
            if (
                not before.isalnum()
                and not (before == "'" and pos >= 2 and text[pos - 2].isalnum())
                and not after.isalnum()
                and not (after == "'" and end + 1 < size and text[end + 1].isalnum())
            ):
                out.append((pos, end))
            pos = text.find(word, pos + 1)
    out.sort()
    return out


class _Verdicts(NamedTuple):
    """Spellings known to match one set of terms, and known not to."""

    yes: set[str]
    no: set[str]


#: Spellings one query's "no" set holds at most before it starts again: one search's hits
#: hold about a thousand distinct spellings, so this only bounds the worst case (64 kept
#: queries x 8k spellings, some tens of MB).
_VERDICTS_MAX = 1 << 13


@lru_cache(maxsize=64)
def _verdicts(wanted: frozenset[str]) -> _Verdicts:
    """The verdicts of one query's terms, shared by its hits' texts (and by the next search
    for the same terms): most of a hit's words were already seen in another hit, so set
    operations in C answer for them and only new spellings are analysed."""
    return _Verdicts(set(), set())


def holds_phrase_term(text: str, terms: Collection[str]) -> bool | None:
    """Whether a word of `text` has one of `terms` as its phrase term (`phrase_tokens`),
    answered from the text's distinct spellings (`_ascii_spellings`, C speed) instead of
    its every word; None where only the word-by-word walk can say: non-ASCII text, or a
    text with sound tags, whose words `phrase_tokens` leaves out.

    Exclusions ("-dreams") are checked on hundreds of candidate chunks a search, most of
    the time of the slowest queries; this answers the same a few times faster.
    """
    if not text.isascii() or _sound_tags(text, _ASCII_WORD):
        return None
    wanted = frozenset(terms)
    # those whose phrase term or a BM25 term is wanted: few, and found without stemming
    # every new spelling (`_wanted_spellings`); the phrase term decides among them
    maybe = _wanted_spellings(_ascii_spellings(text), wanted)
    return any(_analyse(spelling)[0] in wanted for spelling in maybe)


def _wanted_spellings(spellings: set[str], wanted: frozenset[str]) -> set[str]:
    """Those of `spellings` (ASCII words) whose phrase term or any BM25 term is in `wanted`.

    A spelling not seen before is analysed only when `_may_match` allows it: right after
    start-up `_analyse`'s cache is empty, and stemming every new word of a search's hits
    took several ms.
    """
    verdicts = _verdicts(wanted)
    if len(verdicts.no) > _VERDICTS_MAX:
        verdicts.no.clear()
    unknown = spellings - verdicts.yes - verdicts.no
    if unknown:
        heads = _term_heads(wanted)
        for raw in unknown:
            keep = _may_match(raw, heads) and _is_wanted(raw, wanted)
            (verdicts.yes if keep else verdicts.no).add(raw)
    return spellings & verdicts.yes


@lru_cache(maxsize=64)
def _term_heads(wanted: frozenset[str]) -> frozenset[str]:
    """The first two characters of each term (the whole term when shorter)."""
    return frozenset(t[:2] for t in wanted)


def _may_match(raw: str, heads: frozenset[str]) -> bool:
    """False only when no term of the ASCII word `raw` can begin with one of `heads`.

    Every term of a word without digits is its stem (`stem` of the folded word), and a stem
    begins with its word's first two letters, or is the word's first letter alone: the
    suffix rules only cut letters off the end and put at most "e", "y" or "ie" back after
    at least two kept letters (the one exception, "-ies" -> "-ie" on a four-letter word,
    keeps "ti" of "ties"). Only `IRREGULAR` forms ("dying" -> "die") are other, and a word
    with a digit has parts for terms ("M113" -> "113"): both are always analysed.
    tests/unit/search/test_hits_fast.py checks this on every word of the corpus.
    """
    if not raw.isalpha():
        return True  # digits: a model code or a number, whose parts are terms too
    folded = raw[:3].lower().replace("'", "")
    if folded[:1] in heads or folded[:2] in heads:
        return True
    return raw.lower().replace("'", "") in IRREGULAR


def _is_wanted(raw: str, wanted: frozenset[str]) -> bool:
    term, index_terms = _analyse(raw)
    return (bool(term) and term in wanted) or any(t in wanted for t in index_terms)


def _match_spans_walk(text: str, wanted: frozenset[str]) -> list[tuple[int, int]]:
    """`match_spans` word by word: the reference, and the way for non-ASCII text."""
    out: list[tuple[int, int]] = []
    for match in _raw_words(text):
        if _is_wanted(match.group(), wanted):
            out.append(match.span())
    return out
