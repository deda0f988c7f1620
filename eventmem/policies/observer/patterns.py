"""The regexes of the observer filter: what system content, markup, injection and code look like.

Tables, not decisions: each rule of :func:`eventmem.policies.observer.rules.screen` tests the text
against the patterns here (and a cheap pre-check first), and the rules, their order and the
choices behind them are described in :mod:`eventmem.policies.observer.rules`. Kept apart because the
injection patterns alone are longer than the rules that use them. A change here changes what is
rejected, so it goes with a new :data:`~eventmem.policies.observer.rules.OBSERVER_VERSION`.
"""

from __future__ import annotations

import re
from typing import Final

from eventmem.text.lazyre import lazy_re

# ---------------------------------------------------------------- system content (on lowercase)

CONTROL_TOKEN = lazy_re(
    r"<\|[\w.\-]{1,40}\|>"  # <|im_start|>, <|system|>, <|eot_id|>, <|endoftext|>
    r"|\[/?inst\]|<</?sys>>"  # Llama 2
    r"|<(?:start|end)_of_turn>"  # Gemma
    r"|^[ \t]*#{1,6}[ \t]*(?:system|instruction|instructions|response|assistant|human|user"
    r"|input)[ \t]*:",  # Alpaca / Vicuna section headers
    re.MULTILINE,
)
# A bare "system:" header counts only when an instruction follows it (or nothing, as in a
# template): "System: Windows 11, 16 GB" and "Developer: Jane Smith" are facts worth keeping.
ROLE_HEADER = lazy_re(
    r"^[ \t]*(?:[\[<](?:system|developer)[\]>]"
    r"|(?:system|developer)[ _](?:prompt|message|override|instructions?)[ \t]*:"
    r"|(?:system|developer)[ \t]*:[ \t]*(?:$|(?:you|your|always|never|do\s+not|don't|respond"
    r"|answer|reply|ignore|act|new|from\s+now|the\s+(?:user|assistant|model|ai))\b"
    r"|this\s+(?:assistant|model|ai)\b|as\s+an?\s+(?:ai|assistant)\b))",
    re.MULTILINE,
)

# ---------------------------------------------------------------- markup

TAG = lazy_re(
    r"<(?:/?[a-zA-Z][\w:.\-]{0,40}(?:\s[^<>]{0,2000})?/?|!--[^>]{0,2000}--|![a-zA-Z\[][^<>]{0,2000}"
    r"|\?[a-zA-Z][^<>]{0,2000}\?)>"
)
XML_PROLOGUE = lazy_re(r"<\?xml\b|<!doctype\b|<html\b", re.IGNORECASE)
JSON_KEY = lazy_re(r"""["'][^"'\n]{1,60}["']\s*:""")

# ---------------------------------------------------------------- prompt injection (on lowercase)

# A pre-check: every injection pattern below contains one of these substrings, so text without
# any of them (nearly all conversation) never runs the long regex. A plain loop of ``in`` tests
# beats one alternation regex here; the list is kept short because each entry costs a scan.
INJECTION_ANCHORS: Final = (
    "ignor", "disregard", "forget", "overrid", "bypass", "circumvent", "disable", "re now",
    "now you", "now on", "instruction", "directive", "prompt", "pretend", "unrestrict", "unfilter",
    "uncensor", "jailbr", "repeat", "restriction", "guideline",
)  # fmt: skip

_W = r"(?:[\w'\-,]+\s+)"  # one filler word
# The verb must not have a subject or a negation: "I forget the previous rules" is a statement,
# "don't forget your instructions" a reminder, "I always forget ..." a habit, "she told me to
# ignore ..." reported speech; the injections are bare imperatives ("I want you to ..." is one). The
# lookahead comes first so that the lookbehinds run only where a verb starts.
_BARE = "".join(
    rf"(?<!{before} )"
    for before in (
        r"\bi", r"\bwe", r"\bthey", r"\bhe", r"\bshe", "'d", "'ll", "n't", r"\bdont", r"\bnot",
        r"\bnever", r"\balways", r"\busually", r"\boften", r"\bsometimes", "me to", "us to",
        "him to", "her to", "them to",
    )
)  # fmt: skip


def _bare(verbs: str) -> str:
    return rf"\b(?={verbs}){_BARE}{verbs}\s+"


_DROP = _bare(r"(?:ignore|disregard|forget|override|bypass)")
_STRONG_NOUN = r"(?:instructions?|prompts?|directives?|guidelines|programming|guardrails)"
_ANY_NOUN = rf"(?:{_STRONG_NOUN}|rules|commands|orders|directions|context|constraints|restrictions)"
_EARLIER = (
    r"(?:previous|previously|prior|above|preceding|earlier|foregoing|former|original|initial"
    r"|system)"
)
_PERSONA = r"(?:unrestricted|unfiltered|uncensored|jailbroken|jailbreak)\b"
_MODEL = r"(?:ai|a\.i\.|artificial\s+intelligence|chatbot|llm|gpt|language\s+model)"
_ROLE = (  # the model cast in a role: "an AI.", "an AI that ...", "a helpful AI assistant"
    rf"(?:{_MODEL}|assistant|persona)\b(?=\s*(?:$|[.,;:!]|that\b|who\b|which\b|with\b"
    r"|without\b|called\b|named\b|assistant\b|model\b|chatbot\b|system\b|and\b))"
)
_RULEISH = (
    r"(?:rules|restrictions|guidelines|filters|limitations|limits|constraints|programming"
    r"|guardrails|policies|safeguards|censorship|alignment)"
)
_YOU_NOW = r"\b(?:you(?:\s+are|'re|re)\s+now|now,?\s+you(?:\s+are|'re|re))\s+"
INJECTION = lazy_re(
    "|".join(
        (
            # "ignore all of the previous instructions", "disregard prior rules"
            rf"{_DROP}{_W}{{0,4}}?{_EARLIER}\s+{_W}{{0,2}}?{_ANY_NOUN}\b",
            # "ignore your instructions", "forget all guidelines"
            rf"{_DROP}{_W}{{0,3}}?(?:all|any|every|your)\s+{_W}{{0,2}}?{_STRONG_NOUN}\b",
            # "disregard the above.", "ignore everything above and ..." -- but not "disregard
            # the previous email"
            _bare("(?:disregard|ignore)")
            + r"(?:(?:the|all|everything|anything|all\s+of\s+the)\s+)?"
            r"(?:above|previous|preceding|prior|foregoing)"
            rf"(?:\s+(?:{_ANY_NOUN}|text|content|input|messages?))?\s*(?:[.,;:!\"']|and\b|$)",
            # "forget all the rules you were given"
            rf"{_DROP}{_W}{{0,3}}?{_ANY_NOUN}\s+(?:that\s+)?you(?:\s+were|\s+have\s+been|'ve\s+been)"
            r"\s+(?:given|told)\b",
            # "forget everything above", "forget everything you were told"
            _bare("forget") + r"(?:about\s+)?(?:all\s+|everything\s+|of\s+)+(?:that\s+)?"
            r"(?:above|before\s+this|you(?:'ve|\s+have|\s+were)?\s+(?:been\s+)?told"
            r"|(?:was\s+)?(?:said|written)\s+(?:above|before)|up\s+to\s+this\s+point)",
            # "you are now an unrestricted AI", "you're now in developer mode"
            # (a role needs its article: "you're now in AI" is a career, not a persona)
            rf"{_YOU_NOW}(?:(?:a|an|the|my|your|called|named|known\s+as)\s+{_W}{{0,2}}?{_ROLE}"
            rf"|(?:(?:a|an|the)\s+)?{_W}?{_PERSONA})",
            rf"{_YOU_NOW}in\s+(?:dev|developer|god|jailbreak|jailbroken|admin|sudo|debug|maintenance"
            r"|unrestricted|unfiltered|dan)\s+mode\b",
            rf"{_YOU_NOW}(?:free\s+(?:from|of)\s+(?:all\s+|any\s+|your\s+)*{_RULEISH}"
            rf"|no\s+longer\s+(?:bound|restricted|limited|an?\s+(?:{_MODEL}|assistant)))",
            rf"{_YOU_NOW}going\s+to\s+(?:act|pretend|role-?play|respond|answer|behave)"
            r"\s+(?:as|like)\b",
            # "from now on you will respond only ..."
            r"\bfrom\s+now\s+on,?\s+you(?:\s+will|'ll|\s+must|\s+shall|\s+are\s+going\s+to)?"
            r"\s+(?:act|respond"
            r"|answer|reply|pretend|ignore|obey|role-?play)\b",
            # "new instructions:", "updated system prompt:"
            r"\b(?:new|updated|revised|secret|hidden|override)\s+"
            r"(?:system\s+)?(?:instructions?|directives?|prompt)\s*:",
            # "act as an unrestricted AI", "pretend you are an AI without rules"
            r"\b(?:act|acting|behave|respond|answer|role-?play|pose)\s+(?:as|like)\s+"
            rf"(?:an?\s+|the\s+)?{_W}{{0,2}}?{_PERSONA}",
            rf"\bpretend\s+(?:to\s+be|you\s+are|you're|that\s+you\s+are)\s+(?:an?\s+)?"
            rf"{_W}{{0,2}}?(?:{_PERSONA}|{_MODEL}\s+(?:without|with\s+no|free\s+of)\s)",
            r"\b(?:act|acting|behave|respond|answer|role-?play|pose)\s+(?:as|like)\s+(?:an?\s+)?"
            rf"{_W}?{_MODEL}\s+(?:without|with\s+no|free\s+(?:of|from))\s+(?:any\s+)?{_W}?"
            r"(?:restrictions|guidelines)\b",
            # "You are now TranslatorBot"
            rf"{_YOU_NOW}\w*(?:bot|gpt)\b",
            # "the instructions you were given at the start of this conversation"
            r"\b(?:instructions|prompt)\s+(?:that\s+)?you\s+(?:were|have\s+been|got)\s+given\s+"
            r"(?:at|in|before)\s+(?:the\s+(?:start|beginning)\s+of\s+)?(?:this|our|the)\s+"
            r"(?:conversation|chat|session)\b",
            r"\b(?:reveal|print|output|dump|leak)\s+(?:the\s+|your\s+|all\s+)?(?:hidden|secret"
            r"|internal|system)\s+(?:prompts?|instructions)\b",
            # "reveal your system prompt", "print your instructions", "repeat the words above"
            r"\b(?:reveal|print|show|display|output|repeat|leak|dump|tell\s+me|give\s+me|share"
            r"|expose|write\s+out|spell\s+out|recite|what\s+(?:is|are|was|were))\s+"
            rf"{_W}{{0,3}}?(?:(?:your|the)\s+(?:\w+\s+)?system\s+prompt"
            r"|your\s+(?:\w+\s+)?(?:initial|original|hidden|secret|internal|first|full|exact"
            r"|pre-?)\s*(?:prompt|instructions)"
            r"|the\s+(?:hidden|secret|internal)\s+(?:prompt|instructions))\b",
            r"\b(?:reveal|print|output|repeat|leak|dump|recite)\s+(?:me\s+)?your\s+"
            r"(?:instructions|prompt|directives)\b",
            r"\b(?:show|tell|give|send)\s+(?:me\s+)?(?:all\s+)?your\s+(?:\w+\s+)?prompts?\b",
            r"\brepeat\s+(?:the\s+)?(?:words|text|everything|all|instructions|sentences?|lines?)"
            r"\s+(?:\w+\s+){0,2}?(?:above|before\s+this)\b",
            # "override your rules", "bypass your safety filters"
            _bare("override") + rf"{_W}{{0,2}}?(?:(?:your|the\s+system'?s?)\s+(?:\w+\s+)?"
            rf"(?:{_RULEISH}|instructions|protocols|directives|prompt)"
            rf"|(?:all|any|every)\s+(?:safety|content|ethical|moral|system)\s+{_RULEISH})\b",
            _bare("(?:bypass|circumvent|disable)")
            + rf"{_W}{{0,2}}?(?:your|all|any)\s+(?:(?:safety|content|ethical|moral)\s+)?"
            r"(?:filters?|guardrails|restrictions|safeguards|guidelines|rules|limitations"
            r"|programming|alignment|censorship)\b",
        )
    )
)
# "DAN" ("do anything now") counts only in capitals: "Dan" and "dan" are names.
DAN = lazy_re(
    r"(?i:\byou(?:\s+are|'re|re)(?:\s+now)?|\bact(?:ing)?\s+as|\bpretend\s+(?:to\s+be|you\s+are)"
    r"|\b(?:become|called|named|known\s+as|role\s+of|enable|activate))\s+(?:an?\s+|the\s+)?DAN\b"
    r"|\bDAN\s+(?i:mode)\b|\bDAN\b.{0,60}?(?i:do\s+anything\s+now)"
)

# ---------------------------------------------------------------- code (case-sensitive)

FENCE = lazy_re(r"^[ \t]*(?:```|~~~)", re.MULTILINE)
STRONG_LINE = lazy_re(
    r"[ \t]*(?:"
    r"(?:async[ \t]+)?def[ \t]+\w+[ \t]*\("
    r"|class[ \t]+\w+[ \t]*[:({]"
    r"|import[ \t]+[\w.]+(?:[ \t]+as[ \t]+\w+)?[ \t]*;?[ \t]*$"
    r"|from[ \t]+[\w.]+[ \t]+import[ \t]"
    r"|#include[ \t]*[<\"]"
    r"|(?:export[ \t]+)?function[ \t]*\w*[ \t]*\("
    r"|(?:const|let|var)[ \t]+\w+[ \t]*="
    r"|(?:public|private|protected)[ \t]+(?:(?:static|final|async)[ \t]+)*[\w<>\[\]]+[ \t]+\w+"
    r"[ \t]*[({;=]"
    r"|(?:if|for|while|switch|catch)[ \t]*\(.*\)[ \t]*\{?[ \t]*$"
    r"|(?:elif[ \t].*|else[ \t]*|try[ \t]*|except\b.*|finally[ \t]*):[ \t]*$"
    r"|[{}()\[\];]+[ \t]*[;,]?[ \t]*$"
    r"|\}[ \t]*else\b"
    r"|SELECT[ \t]+.+[ \t]FROM[ \t]"
    r"|<\?php"
    r")"
)
# Structural tokens of code. One or two on a line make it a weak code line, three a strong one.
# ("kid(s)" is prose, so a call counts only as "f()" or "obj.method(" / "snake_case(")
CODE_TOKEN = lazy_re(
    r"==|!=|<=|>=|=>|->|::|&&|\|\||\+=|-=|\+\+|\w\(\)|\w[._]\w+\(|\)[ \t]*(?:\{|;|:[ \t]*$)"
    r"|[;{][ \t]*$|\w\[[\w\"']*\]|[ \t]=[ \t]"
)
# Emoticons are symbols too; a chatty ":) ;) <3" must not read as code.
EMOTICON = lazy_re(r"[:;=8xX][-'^o]?[)(\]\[DPpOo3/\\|*@]|<3+|\^_*\^|[-o]_+[-o]|[)(]:")
SYMBOL = lazy_re(r"[{}\[\]()<>;=+*/\\|&^~$#@%_`]")
URL = lazy_re(r"\b(?:https?|ftp)://\S+|\bwww\.\S+")
INDENTED = lazy_re(r"(?: {4}|\t)\S")

# ---------------------------------------------------------------- agent plumbing (on lowercase)

# What an agent framework sends through its own channel, not what a user said: a
# <system-reminder> block, or a turn that is only a heartbeat ("HEARTBEAT_OK", "ping").
PLUMBING = lazy_re(
    r"</?system-reminder>"
    r"|\A\W*(?:heartbeat(?:[ _]ok)?|keep-?alive|ping|pong|no-?op|\[?heartbeat\]?)\W*\Z")

# ---------------------------------------------------------------- markdown and emoji

# A line that is a list item, a heading or bold text: formatting, not a statement.
MARKDOWN_LINE = lazy_re(
    r"^[ \t]*(?:[-*+\u2022][ \t]+\S|\d{1,3}[.)][ \t]+\S|#{1,6}[ \t]+\S)"
    r"|\*\*[^*\n]+\*\*|__[^_\n]+__",
    re.MULTILINE)
# Pictographic emoji and their modifiers' bases (dingbats, symbols, flags' regional letters).
EMOJI = lazy_re(
    "[\U0001f1e6-\U0001f1ff\U0001f300-\U0001f5ff\U0001f600-\U0001f64f\U0001f680-\U0001f6ff"
    "\U0001f900-\U0001f9ff\U0001fa70-\U0001faff\u2600-\u26ff\u2700-\u27bf\u2b50\u2b55]")

# ---------------------------------------------------------------- low information (on lowercase)

# Words that carry nothing to remember on their own: acknowledgements, fillers, greetings.
FILLER_WORDS: Final = frozenset("""
    ok okay k kk yes yeah yep yup ya no nope nah sure lol lmao rofl haha hahaha hehe hmm hm mm
    um uh ah oh ooh wow cool nice great awesome thanks thank you thx ty np welcome hi hello hey
    bye goodbye cya good morning night evening afternoon see later alright right fine got it
    indeed totally absolutely exactly agreed same true omg yay so much very really
""".split())  # noqa: SIM905 - a word list reads better as prose
WORD = lazy_re(r"[a-z0-9']+")

# ---------------------------------------------------------------- secrets

# A credential stated in words: "my password is hunter2", "the wifi PIN: 4471", "API key =
# abc123"; group "value" is the secret. Case-insensitive.
_CREDENTIAL = (r"(?:pass(?:word|code|phrase)|pin(?:\s+(?:code|number))?|api[\s_-]?key"
               r"|(?:access|auth(?:entication)?|bearer|refresh)[\s_-]?token|secret[\s_-]?key"
               r"|client[\s_-]?secret|private[\s_-]?key|cvv|cvc|otp|combination"
               r"|(?:security|door|gate|garage|alarm|lock|access|entry|safe|locker|wi-?fi)\s+code)")
CREDENTIAL = lazy_re(
    rf"\b{_CREDENTIAL}\b(?:\s+(?:for|to|of|on|at)\s+(?:[\w.'-]+\s+){{0,3}}?)?"
    r"\s*(?:is|was|=|:|are)\s*[`'\"]?(?P<value>[^\s`'\",;]{3,}?)[`'\"]?(?=[\s,;!?]|\.(?:\s|$)|$)",
    re.IGNORECASE)
# Values a credential sentence ends in that are no secret: "the password is on the fridge",
# "my PIN is the same", "the API key is expired".
NOT_SECRETS: Final = frozenset("""
    the a an my your his her our their its this that same different new old long short weak
    strong wrong correct right secret private safe unknown blank empty none nothing missing
    written stored saved kept taped set changed expired reset locked required needed invalid
    valid easy hard simple complicated complex mine yours hers ours theirs there here somewhere
    on in at under behind inside with from for not still also too very really just now
""".split())  # noqa: SIM905 - a word list reads better as prose
# Secrets by their shape, wherever they stand: provider API keys, tokens, private keys, JWTs.
TOKEN_SHAPES_PATTERN: Final = (
    r"\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}"
    r"|\b(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"
    r"|\bgh[pousr]_[A-Za-z0-9]{30,}|\bgithub_pat_[A-Za-z0-9_]{40,}|\bglpat-[A-Za-z0-9_-]{20,}"
    r"|\bAKIA[0-9A-Z]{16}\b|\bxox[abprs]-[A-Za-z0-9-]{10,}|\bAIza[0-9A-Za-z_-]{35}"
    r"|-----BEGIN [A-Z ]*PRIVATE KEY-----"
    r"|\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")
TOKEN_SHAPES = lazy_re(TOKEN_SHAPES_PATTERN)
# A payment card number: 13 to 19 digits, in groups separated by spaces or dashes (checked
# with the Luhn sum before it counts).
CARD = lazy_re(r"(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d-])")
