"""The Python client of whittle's generator protocol (docs/generator-protocol.md).

A generator is a function of `g` that makes its output from g's decisions::

    import whittle_generator

    def generate(g):
        s = ""
        def item(i):
            nonlocal s
            s += g.pick("letter", ["a", "b"])
        g.repeat("item", 0, 5, item)
        if g.maybe("tail", lambda: None):
            s += "!"
        return s + "\\n"

    whittle_generator.speak(generate, seed=7)

and `whittle generate --generator 'python3 my_generator.py' ...` runs it.
"""

import json
import sys


class Halted(Exception):
    """whittle ended this run."""


class Decisions:
    """A `g` whose decisions whittle makes, over stdin and stdout."""

    def __init__(self, ask):
        self._ask = ask

    def int(self, label, lo, hi):
        return int(self._ask(f"int {_word(label)} {lo} {hi}"))

    def pick(self, label, choices):
        if not choices:
            raise ValueError(f"pick {label}: a non-empty list, please")
        keys = [c if isinstance(c, str) else getattr(c, "name", None) for c in choices]
        named = all(isinstance(k, str) and k for k in keys) and len(set(keys)) == len(keys)
        tail = " " + json.dumps(keys) if named else ""
        return choices[int(self._ask(f"pick {_word(label)} {len(choices)}{tail}"))]

    def fresh(self, label):
        """A number for a new name, which a reduced run keeps."""
        return int(self._ask(f"fresh {_word(label)}"))

    def repeat(self, label, lo, hi, body):
        n = int(self._ask(f"loop {_word(label)} {lo} {hi}"))
        for i in range(n):
            self._ask("iter")
            body(i)
        self._ask("end")
        return n

    def maybe(self, label, body):
        return self._selection("maybe", label, body)

    def part(self, label, body):
        """A part of the output: in every free run (no draw); a reduced run may drop it."""
        return self._selection("part", label, body)

    def _selection(self, verb, label, body):
        taken = self._ask(f"{verb} {_word(label)}") == "1"
        if taken:
            body()
            self._ask("end")
        return taken


def _word(label):
    label = str(label)
    if not label or any(c.isspace() for c in label):
        raise ValueError(f"a label is one word without spaces, not {label!r}")
    return label


def speak(generate, seed=0):
    """Runs `generate` under `whittle generate`."""

    def ask(request):
        sys.stdout.write(request + "\n")
        sys.stdout.flush()
        answer = sys.stdin.readline()
        if not answer or answer.strip() == "halt":
            raise Halted()
        return answer.strip()

    try:
        ask(f"hello {seed}")
        # One process, many runs: `done again` keeps it for whittle's next run (`again`).
        while True:
            output = generate(Decisions(ask))
            ask("out " + json.dumps(str(output)))
            ask("done again")
    except Halted:
        pass
