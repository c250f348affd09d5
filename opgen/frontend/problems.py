"""Problems found in a prototype, each tied to a JSON path, and the error that carries them."""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from opgen.errors import BadInput

_NO_VALUE = object()


@dataclass(frozen=True)
class Problem:
    path: str  # JSON path such as $[0].input_desc[1].type[0]
    message: str
    value: Any = field(default=_NO_VALUE, compare=False)
    suggestion: str | None = None  # a near miss: "did you mean ..."

    @property
    def has_value(self) -> bool:
        return self.value is not _NO_VALUE

    def text(self) -> str:
        """One line: the message, the offending value and the suggestion."""
        out = self.message
        if self.has_value:
            out += f" (got {short_json(self.value)})"
        if self.suggestion is not None:
            out += f"; did you mean {self.suggestion!r}?"
        return out

    def as_json(self) -> dict[str, Any]:
        return {"path": self.path, "message": self.text()}


class PrototypeError(BadInput):
    """The prototype is invalid; `problems` lists every problem found, in file order.
    `checked_ops` are the ops that passed every rule, which a later stage (the compute compiler)
    may still check, so that one run reports every problem."""

    def __init__(
        self, problems: Iterable[Problem], source: str = "", checked_ops: tuple = ()
    ) -> None:
        self.problems = list(problems)
        self.source = source
        self.checked_ops = checked_ops
        super().__init__(f"{len(self.problems)} problem(s) in {source or 'the prototype'}")


def short_json(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def number_text(value: Any) -> str:
    """A number for a message: a long integer as its first digits and its length."""
    text = str(value) if isinstance(value, int) else repr(value)
    return text if len(text) <= 24 else f"{text[:10]}...({len(text)} digits)"


def did_you_mean(word: str, choices: Iterable[str]) -> str | None:
    """The closest choice to `word`, ignoring case, or None when nothing is close."""
    by_lower = {c.lower(): c for c in choices}
    match = difflib.get_close_matches(word.lower(), list(by_lower), n=1, cutoff=0.6)
    return by_lower[match[0]] if match else None


def key_path(base: str, key: str | int) -> str:
    """Append a key or an index to a JSON path the way jsonschema writes it."""
    if isinstance(key, int):
        return f"{base}[{key}]"
    if key.isidentifier():
        return f"{base}.{key}"
    return f"{base}[{json.dumps(key)}]"
