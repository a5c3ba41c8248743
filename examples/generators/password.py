"""The password generator of the GReduce paper, in Python (see password.mjs)."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import whittle_generator  # noqa: E402

LETTERS = "abcdefghijklmnopqrstuvwxyz"


def generate(g):
    w = []
    g.repeat("char", 0, 19, lambda i: w.append(g.pick("letter", LETTERS)))
    line = "".join(w) + "\n"
    return line + line


if __name__ == "__main__":
    whittle_generator.speak(generate, seed=482835)
