"""Regenerate ``js_numbers.json``: JavaScript's own outputs, used by the tests without Node.

Run from the repository root with Node.js on the PATH::

    .venv/bin/python tests/data/make_js_numbers.py

Inputs are generated here (seeded, so the file is stable); Node computes ``String(x)``,
``JSON.stringify(x)``, ``Math.round(x)``, the ``round2`` formula, ``x.toFixed(d)``, and
``JSON.stringify`` of strings and documents (compact and with 2-space indentation). Doubles
travel as their 64-bit patterns (16 hex digits), so no bit is lost on either side. The fixture
is written with ASCII escapes only (lone surrogates survive as ``\\udxxx``).
"""

from __future__ import annotations

import json
import math
import random
import struct
import subprocess
from pathlib import Path

OUT = Path(__file__).with_name("js_numbers.json")


def bits(x: float) -> str:
    return struct.pack(">d", x).hex()


def from_bits(h: str) -> float:
    return float(struct.unpack(">d", bytes.fromhex(h))[0])


def numbers(rng: random.Random) -> list[float]:
    xs: list[float] = []
    # Random bit patterns (any exponent, subnormals, NaNs and infinities included).
    xs += [from_bits(f"{rng.getrandbits(64):016x}") for _ in range(500)]
    # Powers of ten and their neighbours, around every formatting boundary and far beyond.
    for k in list(range(-25, 26)) + [-324, -323, -310, -308, -307, -300, -100, -50, 50, 100, 300, 307, 308]:
        try:
            p = float(f"1e{k}")
        except OverflowError:  # pragma: no cover
            continue
        for m in (1.0, 2.5, 1.2345678901234567):
            v = p * m
            xs += [v, math.nextafter(v, math.inf), math.nextafter(v, -math.inf)]
    # Integers near 2**53 and other integer-valued doubles.
    for base in (2**53, 2**54, 2**63, 2**64, 10**15, 10**16, 10**17, 10**21, 10**22):
        for d in range(-4, 5):
            xs.append(float(base + d))
    xs += [float(rng.randrange(-(10**6), 10**6)) for _ in range(40)]
    xs += [float(rng.randrange(0, 2**60)) for _ in range(40)]
    # Subnormals and range limits.
    xs += [5e-324, 1e-323, 2.2250738585072014e-308, 2.225073858507201e-308, 1.7976931348623157e308]
    xs += [from_bits(f"{rng.getrandbits(52):016x}") for _ in range(30)]
    # Arithmetic results with long expansions.
    xs += [0.1 + 0.2, 0.3 - 0.1, 1 / 3, 2 / 3, 1 / 7, 5 / 6, 1 / 8, 3 / 5, 0.1 * 3, 1.1 * 1.1, 100 / 3]
    for a in range(1, 13):
        for b in range(1, 13):
            xs.append(a / b)
    # Money-like and decimal-ish values, halves and near-halves (rounding and toFixed ties).
    xs += [rng.randrange(0, 10**7) / 100 for _ in range(150)]
    xs += [round(rng.uniform(-1000, 1000), rng.randrange(0, 8)) for _ in range(150)]
    xs += [n + 0.5 for n in range(-10, 11)]
    xs += [n / 8 for n in range(-40, 41)]
    xs += [1.005, 2.675, 1.045, 8.345, 0.125, 0.375, 0.615, 10.235, 1.255, 4.35, 0.045, 1e-7, 0.5]
    xs += [0.49999999999999994, -0.49999999999999994, 0.5000000000000001, 4503599627370495.5]
    xs += [2.5e-6, 507500.0, 140000.0, 52.8, 1234.5, 0.000001, 1e21, 1e20, 123e-20]
    # Uniform draws across magnitudes.
    for e in range(-12, 24, 2):
        xs += [rng.uniform(0, 10.0**e) for _ in range(8)]
    xs += [0.0, -0.0, math.inf, -math.inf, math.nan]
    # Negatives of a sample.
    xs += [-v for v in rng.sample(xs, 250)]
    return xs


def strings(rng: random.Random) -> list[str]:
    out = [
        "",
        "plain",
        'quote " inside',
        "back\\slash",
        "\\u0041 literal",
        "\b\f\n\r\t",
        "".join(chr(c) for c in range(0x20)),
        "\x7f DEL",
        "\u2028 line sep \u2029 para sep",
        "caf\u00e9 na\u00efve \u65e5\u672c \U0001f600",
        "\ud800",
        "\udfff",
        "a\udc00b",
        "\ud83d\ude00",  # a valid pair, written as the character
        "\ud83d",
        "x\ud800\udbff",
        "\u0080\u00a0\u00ad\ufeff\uffff",
        "</script>",
        "\x00nul",
    ]
    pool = [chr(c) for c in range(0, 0x80)] + ["\u2028", "\u2029", "\u00e9", "\ud800", "\udfff", "\U0001f600"]
    for _ in range(80):
        out.append("".join(rng.choice(pool) for _ in range(rng.randrange(0, 12))))
    return out


def documents(rng: random.Random, xs: list[float], ss: list[str]) -> list[object]:
    """Nested values: dict keys never integer-like (JavaScript would reorder those)."""

    def scalar() -> object:
        r = rng.random()
        if r < 0.35:
            return rng.choice(xs) if rng.random() < 0.7 else float(rng.randrange(-1000, 1000))
        if r < 0.5:
            return rng.randrange(-(2**53) + 1, 2**53)
        if r < 0.75:
            return rng.choice(ss)
        if r < 0.87:
            return rng.choice([True, False])
        return None

    def value(depth: int) -> object:
        r = rng.random()
        if depth > 3 or r < 0.45:
            return scalar()
        if r < 0.72:
            return [value(depth + 1) for _ in range(rng.randrange(0, 5))]
        keys = ["id", "name", "k", "a b", "\u00e9", "x\ud800", "_1", "-1", "1.5", "z"]
        return {rng.choice(keys) + str(i if rng.random() < 0.5 else ""): value(depth + 1)
                for i in range(rng.randrange(0, 5))}

    docs: list[object] = [[], {}, [[]], {"a": {}}, {"a": [], "b": [{}]}, [1.0, -0.0, 1e21, 5e-7]]
    docs += [value(0) for _ in range(150)]
    return docs


def encode(v: object) -> object:
    """JSON-able form for the Node side: floats as {"f": bits} so nothing is lost."""
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    if isinstance(v, int):
        return {"i": str(v)}
    if isinstance(v, float):
        return {"f": bits(v)}
    if isinstance(v, list):
        return {"l": [encode(x) for x in v]}
    assert isinstance(v, dict)
    return {"d": [[k, encode(x)] for k, x in v.items()]}


NODE = r"""
const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const f = (h) => Buffer.from(h, 'hex').readDoubleBE(0);
const num = (v) => Object.is(v, -0) ? '-0' : String(v);
const decode = (v) => {
  if (v === null || typeof v !== 'object') return v;
  if ('f' in v) return f(v.f);
  if ('i' in v) return Number(v.i);
  if ('l' in v) return v.l.map(decode);
  const o = {}; for (const [k, x] of v.d) o[k] = decode(x); return o;
};
const out = {
  numbers: input.numbers.map((h) => {
    const x = f(h);
    return [h, String(x), JSON.stringify(x), num(Math.round(x)),
            num(Math.round((x + 2.220446049250313e-16) * 100) / 100), x.toFixed(2)];
  }),
  fixed: input.fixed.map(([h, d]) => [h, d, f(h).toFixed(d)]),
  percent: input.percent.map(([a, b]) => [a, b, num(Math.round(a / b * 1000) / 10)]),
  strings: input.strings.map((s) => [s, JSON.stringify(s)]),
  documents: input.documents.map((d) => {
    const v = decode(d);
    return {doc: d, compact: JSON.stringify(v), pretty: JSON.stringify(v, null, 2) + '\n'};
  }),
  node: process.version,
};
process.stdout.write(JSON.stringify(out));
"""


def main() -> None:
    rng = random.Random(20240601)
    xs = numbers(rng)
    ss = strings(rng)
    fixed = [(bits(x), d) for x in rng.sample(xs, 400) for d in [rng.choice([0, 1, 3, 4, 5, 8, 10, 20])]]
    fixed += [(bits(x), d) for x in (1.005, 2.675, -0.001, -0.0, 1e20, 5e-324, 0.5, -0.5, 1.45)
              for d in (0, 1, 2, 3, 20, 100)]
    percent = [(a, b) for a in range(0, 14) for b in range(1, 14)]
    docs = documents(rng, [x for x in xs if math.isfinite(x)], ss)
    payload = {
        "numbers": [bits(x) for x in xs],
        "fixed": fixed,
        "percent": percent,
        "strings": ss,
        "documents": [encode(d) for d in docs],
    }
    proc = subprocess.run(["node", "-e", NODE], input=json.dumps(payload).encode(), capture_output=True,
                          check=True)
    out = json.loads(proc.stdout.decode("utf-8"))
    for row, x in zip(out["numbers"], xs, strict=True):
        row.insert(1, repr(x))  # for human readers; the tests use the bits
    about = {
        "about": "JavaScript outputs generated by tests/data/make_js_numbers.py with Node " + out.pop("node"),
        "doubles": "big-endian IEEE-754 bit patterns, 16 hex digits",
        "numbers": ["bits", "python repr", "String(x)", "JSON.stringify(x)", "Math.round(x)",
                    "Math.round((x + 2.220446049250313e-16) * 100) / 100", "x.toFixed(2)"],
        "fixed": ["bits", "digits", "x.toFixed(digits)"],
        "percent": ["a", "b", "Math.round(a / b * 1000) / 10"],
        "strings": ["s", "JSON.stringify(s)"],
        "documents": ["encoded value", "JSON.stringify(v)", "JSON.stringify(v, null, 2) + newline"],
        "note": "a -0 result of Math.round is written as '-0'",
    }
    lines = ["{", '"_columns": ' + json.dumps(about) + ","]
    sections = ["numbers", "fixed", "percent", "strings", "documents"]
    for i, name in enumerate(sections):
        rows = out[name]
        if name == "documents":
            rows = [[d["doc"], d["compact"], d["pretty"]] for d in rows]
        lines.append(json.dumps(name) + ": [")
        lines += [json.dumps(r) + ("," if j < len(rows) - 1 else "") for j, r in enumerate(rows)]
        lines.append("]" + ("," if i < len(sections) - 1 else ""))
    lines.append("}")
    text = "\n".join(lines) + "\n"
    OUT.write_text(text, encoding="ascii")
    print(f"wrote {OUT} ({len(text)} bytes, {len(xs)} numbers)")


if __name__ == "__main__":
    main()
