"""A token diff whose cost is bounded on any input (a server controls the text it diffs).

``difflib.SequenceMatcher`` is quadratic or worse on repetitive text: a hostile description of
1 MB with 40 changed words did not finish in 300 s, so a server could time out ``diff`` (the CI
gate), ``show`` and ``accept``. :func:`opcodes` gives the same kind of opcodes in bounded time:

1. the common prefix and suffix are cut off (C-speed slice comparisons);
2. a small remainder (at most :data:`SMALL` token pairs) goes to ``difflib`` as before, so short
   texts read exactly as they did;
3. otherwise Myers' O((N+M)·D) algorithm runs with D capped (at most :data:`MAX_D` edits, and
   fewer for a short region, so its Python-level work is linear in the region's size); its
   diagonal runs are followed with galloping slice comparisons, so a long equal run costs
   C-speed work, not a Python step per token;
4. when the region has more edits than that, patience anchors (tokens that occur exactly once
   in each side, longest increasing run by bisection, O(n log n)) split it and each gap is
   diffed again, at most :data:`DEPTH` levels deep; a gap left over is shown as replaced.

So the whole diff is O(n log n) Python-level steps plus at most :data:`MAX_D` C-level token
comparisons per token, whatever the text. bench/core_bench.py times it on large repetitive
text (docs/performance.md).
"""

from __future__ import annotations

import difflib
from bisect import bisect_left
from collections.abc import Sequence
from typing import Literal

Tag = Literal["replace", "delete", "insert", "equal"]  # SequenceMatcher's, as typeshed spells them
Opcode = tuple[Tag, int, int, int, int]

SMALL = 40_000  # len(a) * len(b) up to which difflib decides (about 200 x 200 tokens)
MAX_D = 400  # the most edits Myers looks for in one region
DEPTH = 12  # how deep patience anchors split a region


def opcodes(a: Sequence[str], b: Sequence[str]) -> list[Opcode]:
    """``SequenceMatcher.get_opcodes()``'s shape (equal / delete / insert / replace), in bounded time."""
    ids: dict[str, int] = {}
    ia = [ids.setdefault(t, len(ids)) for t in a]
    ib = [ids.setdefault(t, len(ids)) for t in b]
    out: list[Opcode] = []
    _diff(ia, ib, 0, len(ia), 0, len(ib), out, 0)
    return _merged(out)


class Bounded(difflib.SequenceMatcher[str]):
    """A ``SequenceMatcher`` whose opcodes (and so ``get_grouped_opcodes``) come from
    :func:`opcodes`: the same API, bounded cost."""

    a: Sequence[str]  # set by SequenceMatcher.set_seqs (typeshed does not declare them)
    b: Sequence[str]

    def get_opcodes(self) -> list[Opcode]:
        return opcodes(self.a, self.b)


def _common(a: list[int], b: list[int], i: int, j: int, n: int, m: int) -> int:
    """How many tokens from ``a[i]`` and ``b[j]`` on are equal (before ``n``, ``m``): galloping slices."""
    k, step = 0, 16
    while i + k < n and j + k < m:
        s = min(step, n - i - k, m - j - k)
        if a[i + k : i + k + s] == b[j + k : j + k + s]:
            k += s
            step *= 2
        elif s == 1:
            break
        else:
            step = max(1, s // 2)
    return k


def _common_back(a: list[int], b: list[int], i: int, j: int, lo_a: int, lo_b: int) -> int:
    """How many tokens before ``a[i]`` and ``b[j]`` (down to ``lo_a``, ``lo_b``) are equal."""
    k, step = 0, 16
    while i - k > lo_a and j - k > lo_b:
        s = min(step, i - k - lo_a, j - k - lo_b)
        if a[i - k - s : i - k] == b[j - k - s : j - k]:
            k += s
            step *= 2
        elif s == 1:
            break
        else:
            step = max(1, s // 2)
    return k


def _diff(a: list[int], b: list[int], i1: int, i2: int, j1: int, j2: int, out: list[Opcode], depth: int) -> None:
    pre = _common(a, b, i1, j1, i2, j2)
    if pre:
        out.append(("equal", i1, i1 + pre, j1, j1 + pre))
        i1, j1 = i1 + pre, j1 + pre
    post = _common_back(a, b, i2, j2, i1, j1)
    tail: Opcode | None = ("equal", i2 - post, i2, j2 - post, j2) if post else None
    _middle(a, b, i1, i2 - post, j1, j2 - post, out, depth)
    if tail is not None:
        out.append(tail)


def _middle(a: list[int], b: list[int], i1: int, i2: int, j1: int, j2: int, out: list[Opcode], depth: int) -> None:
    """A region that differs at both ends (or is empty on one side): a deletion or an insertion,
    ``difflib``'s opcodes when it is small, else :func:`_large`."""
    n, m = i2 - i1, j2 - j1
    if n == 0 or m == 0:
        if n or m:
            out.append(("delete" if n else "insert", i1, i2, j1, j2))
    elif n * m <= SMALL:
        _small(a, b, i1, i2, j1, j2, out)
    else:
        _large(a, b, i1, i2, j1, j2, out, depth)


def _small(a: list[int], b: list[int], i1: int, i2: int, j1: int, j2: int, out: list[Opcode]) -> None:
    """A small region diffed by ``difflib`` (short texts read exactly as they always did)."""
    sm = difflib.SequenceMatcher(a=a[i1:i2], b=b[j1:j2], autojunk=False)
    out.extend((op, i1 + x1, i1 + x2, j1 + y1, j1 + y2) for op, x1, x2, y1, y2 in sm.get_opcodes())


def _large(a: list[int], b: list[int], i1: int, i2: int, j1: int, j2: int, out: list[Opcode], depth: int) -> None:
    """A region too large for ``difflib`` that differs at both ends: Myers with D capped, else
    split at patience anchors and each gap diffed again, else shown as replaced."""
    # Python-level work of Myers is about D², kept linear in the region's size
    cap = min(MAX_D, max(32, int((8 * (i2 - i1 + j2 - j1)) ** 0.5)))
    found = _myers(a, b, i1, i2, j1, j2, cap)
    if found is not None:
        out.extend(found)
    elif depth < DEPTH and (anchors := _anchors(a, b, i1, i2, j1, j2)):
        ai, bj = i1, j1
        for x, y in anchors:
            _diff(a, b, ai, x, bj, y, out, depth + 1)
            out.append(("equal", x, x + 1, y, y + 1))
            ai, bj = x + 1, y + 1
        _diff(a, b, ai, i2, bj, j2, out, depth + 1)
    else:
        out.append(("replace", i1, i2, j1, j2))


def _step(row: list[int], base: int, k: int, d: int, n: int, m: int) -> tuple[int, int] | None:
    """Where step ``d`` reaches diagonal ``k`` before its run of equal tokens: (x, the diagonal
    it came from), the furthest of a deletion from ``k - 1`` and an insertion from ``k + 1``
    that stays inside the region; None when neither does. ``row[base + k]``: the furthest x of
    step ``d - 1`` on diagonal ``k`` (-1: not reached)."""
    best: tuple[int, int] | None = None
    if k > -d and row[base + k - 1] >= 0:
        x = row[base + k - 1] + 1
        if x <= n and x - k <= m:
            best = (x, k - 1)
    if k < d and row[base + k + 1] >= 0:
        x = row[base + k + 1]
        if x - k <= m and (best is None or x >= best[0]):
            best = (x, k + 1)
    return best


def _myers(a: list[int], b: list[int], i1: int, i2: int, j1: int, j2: int, cap: int) -> list[Opcode] | None:
    """The shortest edit script of ``a[i1:i2]`` → ``b[j1:j2]`` when it has at most ``cap`` edits."""
    n, m = i2 - i1, j2 - j1
    off = cap + 1
    v = [-1] * (2 * cap + 3)
    trace: list[list[int]] = []
    for d in range(cap + 1):
        trace.append(v[off - d - 1 : off + d + 2])
        for k in range(-d, d + 1, 2):
            if d == 0:
                x = 0
            else:
                got = _step(v, off, k, d, n, m)
                if got is None:
                    v[off + k] = -1
                    continue
                x = got[0]
            x += _common(a, b, i1 + x, j1 + x - k, i2, j2)
            v[off + k] = x
            if x == n and x - k == m:
                return _script(trace, d, k, n, m, i1, j1)
    return None


def _script(trace: list[list[int]], d: int, k: int, n: int, m: int, i1: int, j1: int) -> list[Opcode]:
    """Walk Myers' trace back from (n, m): the opcodes, in order."""
    ops: list[Opcode] = []
    x, y = n, m
    for dd in range(d, 0, -1):
        got = _step(trace[dd], dd + 1, k, dd, n, m)  # the step as the forward pass took it
        assert got is not None
        sx, pk = got
        sy = sx - k
        if x > sx:
            ops.append(("equal", i1 + sx, i1 + x, j1 + sy, j1 + y))
        px = trace[dd][dd + 1 + pk]
        py = px - pk
        if pk == k + 1:
            ops.append(("insert", i1 + px, i1 + px, j1 + py, j1 + py + 1))
        else:
            ops.append(("delete", i1 + px, i1 + px + 1, j1 + py, j1 + py))
        x, y, k = px, py, pk
    if x > 0:
        ops.append(("equal", i1, i1 + x, j1, j1 + y))
    ops.reverse()
    return ops


def _anchors(a: list[int], b: list[int], i1: int, i2: int, j1: int, j2: int) -> list[tuple[int, int]]:
    """Tokens that occur exactly once in ``a[i1:i2]`` and once in ``b[j1:j2]``, the longest run
    of them in the same order on both sides (patience diff), as (i, j) pairs."""
    return _longest_run(_unique_pairs(a, b, i1, i2, j1, j2))


def _unique_pairs(a: list[int], b: list[int], i1: int, i2: int, j1: int, j2: int) -> list[tuple[int, int]]:
    """(i, j) of each token that occurs exactly once in ``a[i1:i2]`` and once in ``b[j1:j2]``, by i."""
    count: dict[int, int] = {}
    where_a: dict[int, int] = {}
    for i in range(i1, i2):
        t = a[i]
        count[t] = count.get(t, 0) + 1
        where_a[t] = i
    count_b: dict[int, int] = {}
    where_b: dict[int, int] = {}
    for j in range(j1, j2):
        t = b[j]
        if count.get(t) == 1:
            count_b[t] = count_b.get(t, 0) + 1
            where_b[t] = j
    return sorted((where_a[t], where_b[t]) for t, c in count_b.items() if c == 1)


def _longest_run(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest run of ``pairs`` (sorted by i) whose j increase too: patience sorting, O(k log k)."""
    tops: list[int] = []
    top_at: list[int] = []
    back: list[int] = [-1] * len(pairs)
    for idx, (_, j) in enumerate(pairs):
        p = bisect_left(tops, j)
        if p == len(tops):
            tops.append(j)
            top_at.append(idx)
        else:
            tops[p] = j
            top_at[p] = idx
        back[idx] = top_at[p - 1] if p else -1
    run: list[tuple[int, int]] = []
    idx = top_at[-1] if top_at else -1
    while idx >= 0:
        run.append(pairs[idx])
        idx = back[idx]
    run.reverse()
    return run


def _joined(prev: Opcode, op: Opcode) -> Opcode | None:
    """The one opcode ``prev`` and the ``op`` right after it make, the way difflib reports them
    (equal runs as one; changes as one delete, insert or replace), or None when they stay two."""
    tag, a1, a2, b1, b2 = prev
    if a2 != op[1] or b2 != op[3] or (tag == "equal") != (op[0] == "equal"):
        return None
    new_a2, new_b2 = op[2], op[4]
    kind: Tag = "equal" if tag == "equal" else _change_tag(new_a2 > a1, new_b2 > b1)
    return (kind, a1, new_a2, b1, new_b2)


def _change_tag(removes: bool, adds: bool) -> Tag:
    """A change that removes and adds tokens is a replace; one that only removes, a delete; else an insert."""
    if removes and adds:
        return "replace"
    return "delete" if removes else "insert"


def _merged(ops: list[Opcode]) -> list[Opcode]:
    """Adjacent opcodes joined the way difflib reports them: equal runs as one, a delete and an
    insert that meet as one replace (empty ones dropped)."""
    out: list[Opcode] = []
    for op in ops:
        if op[1] == op[2] and op[3] == op[4]:
            continue
        joined = _joined(out[-1], op) if out else None
        if joined is not None:
            out[-1] = joined
        else:
            out.append(op)
    return out
