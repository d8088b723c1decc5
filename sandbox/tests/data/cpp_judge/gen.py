"""Writes cases.json: stdin/stdout cases for the judge-style C++ solutions beside this file.

Each solution NN_name.cpp is an accepted-style competitive-programming program (bits/stdc++.h,
stdio); its expected outputs come from the independent Python reference below, on fixed-seed
inputs, so the C++ is checked against something other than itself. Run: python3 gen.py
"""
import heapq
import json
import math
import random
from collections import Counter, deque
from itertools import permutations
from pathlib import Path

R = random.Random(12)
CASES = {}


def case(name):
    def register(f):
        CASES[name] = f
        return f
    return register


def lines(*rows):
    return "".join(" ".join(map(str, r)) + "\n" for r in rows)


def tests(inputs, solve):
    return [{"stdin": i, "stdout": solve(i)} for i in inputs]


def ints(text):
    return list(map(int, text.split()))


@case("01_sum_pairs")
def _():
    ins = [lines([2], [1, 2], [-5, 5]), lines([1], [10**17, 10**17])]
    ins.append(lines([50], *[[R.randint(-10**9, 10**9), R.randint(-10**9, 10**9)] for _ in range(50)]))
    def solve(s):
        v = ints(s)
        return "".join(f"{v[1 + 2 * i] + v[2 + 2 * i]}\n" for i in range(v[0]))
    return tests(ins, solve)


@case("02_kadane")
def _():
    ins = [lines([5], [-2, 1, -3, 4, 5]), lines([3], [-5, -1, -7])]
    ins.append(lines([1000], [R.randint(-10**6, 10**6) for _ in range(1000)]))
    def solve(s):
        a = ints(s)[1:]
        best, cur = -10**30, 0
        for x in a:
            cur = max(x, cur + x)
            best = max(best, cur)
        return f"{best}\n"
    return tests(ins, solve)


@case("03_prefix_queries")
def _():
    def make(n, q):
        a = [R.randint(-10**9, 10**9) for _ in range(n)]
        qs = []
        for _ in range(q):
            l = R.randint(1, n)
            qs.append([l, R.randint(l, n)])
        return lines([n, q], a, *qs)
    ins = [lines([3, 2], [1, 2, 3], [1, 3], [2, 2]), make(100, 50), make(2000, 500)]
    def solve(s):
        v = ints(s)
        n, q = v[0], v[1]
        p = [0]
        for x in v[2:2 + n]:
            p.append(p[-1] + x)
        qs = v[2 + n:]
        return "".join(f"{p[qs[2 * i + 1]] - p[qs[2 * i] - 1]}\n" for i in range(q))
    return tests(ins, solve)


@case("04_distinct_count")
def _():
    ins = [lines([5], [1, 1, 2, 2, 3]), lines([1], [7]), lines([3000], [R.randint(1, 1000) for _ in range(3000)])]
    return tests(ins, lambda s: f"{len(set(ints(s)[1:]))}\n")


@case("05_sieve")
def _():
    def solve(s):
        n = int(s)
        if n < 2:
            return "0\n"
        sieve = bytearray([1]) * (n + 1)
        sieve[0] = sieve[1] = 0
        for i in range(2, int(n ** 0.5) + 1):
            if sieve[i]:
                sieve[i * i::i] = bytearray(len(range(i * i, n + 1, i)))
        return f"{sum(sieve)}\n"
    return tests(["1\n", "100\n", "1000000\n"], solve)


@case("06_gcd_lcm")
def _():
    pairs = [[12, 18], [7, 13], [10**9, 10**9 - 2]] + [[R.randint(1, 10**6), R.randint(1, 10**6)] for _ in range(20)]
    ins = [lines([2], *pairs[:2]), lines([len(pairs)], *pairs)]
    def solve(s):
        v = ints(s)
        out = []
        for i in range(v[0]):
            a, b = v[1 + 2 * i], v[2 + 2 * i]
            g = math.gcd(a, b)
            out.append(f"{g} {a // g * b}\n")
        return "".join(out)
    return tests(ins, solve)


@case("07_modpow")
def _():
    qs = [[2, 10], [3, 0], [10**18, 10**18]] + [[R.randint(0, 10**18), R.randint(0, 10**18)] for _ in range(10)]
    ins = [lines([1], [2, 10]), lines([len(qs)], *qs)]
    def solve(s):
        v = ints(s)
        return "".join(f"{pow(v[1 + 2 * i], v[2 + 2 * i], 10**9 + 7)}\n" for i in range(v[0]))
    return tests(ins, solve)


@case("08_fib_matrix")
def _():
    def fib(n):
        a, b = 0, 1
        for bit in bin(n)[2:]:
            c = a * (2 * b - a) % (10**9 + 7)
            d = (a * a + b * b) % (10**9 + 7)
            a, b = (d, (c + d) % (10**9 + 7)) if bit == "1" else (c, d)
        return a
    return tests(["0\n", "10\n", "1000000000000000000\n"], lambda s: f"{fib(int(s))}\n")


@case("09_lis")
def _():
    import bisect
    ins = [lines([6], [10, 9, 2, 5, 3, 7]), lines([4], [1, 1, 1, 1]), lines([5000], [R.randint(1, 10**9) for _ in range(5000)])]
    def solve(s):
        d = []
        for x in ints(s)[1:]:
            i = bisect.bisect_left(d, x)
            d[i:i + 1] = [x]
        return f"{len(d)}\n"
    return tests(ins, solve)


@case("10_lcs")
def _():
    rs = lambda n: "".join(R.choice("ACGT") for _ in range(n))
    ins = [lines(["ABCBDAB"], ["BDCABA"]), lines(["X"], ["Y"]), lines([rs(800)], [rs(700)])]
    def solve(s):
        a, b = s.split()
        prev = [0] * (len(b) + 1)
        for ca in a:
            cur = [0]
            for j, cb in enumerate(b):
                cur.append(prev[j] + 1 if ca == cb else max(prev[j + 1], cur[j]))
            prev = cur
        return f"{prev[-1]}\n"
    return tests(ins, solve)


@case("11_knapsack")
def _():
    def make(n, w):
        return lines([n, w], *[[R.randint(1, w), R.randint(1, 10**9)] for _ in range(n)])
    ins = [lines([4, 10], [5, 10], [4, 40], [6, 30], [3, 50]), make(50, 1000), make(100, 10000)]
    def solve(s):
        v = ints(s)
        n, W = v[0], v[1]
        dp = [0] * (W + 1)
        for i in range(n):
            w, val = v[2 + 2 * i], v[3 + 2 * i]
            for c in range(W, w - 1, -1):
                if dp[c - w] + val > dp[c]:
                    dp[c] = dp[c - w] + val
        return f"{max(dp)}\n"
    return tests(ins, solve)


@case("12_coin_ways")
def _():
    ins = [lines([3, 9], [2, 3, 5]), lines([1, 7], [2]), lines([10, 100000], R.sample(range(1, 1000), 10))]
    def solve(s):
        v = ints(s)
        n, x = v[0], v[1]
        dp = [1] + [0] * x
        for c in v[2:2 + n]:
            for t in range(c, x + 1):
                dp[t] = (dp[t] + dp[t - c]) % (10**9 + 7)
        return f"{dp[x]}\n"
    return tests(ins, solve)


@case("13_edit_distance")
def _():
    rs = lambda n: "".join(R.choice("abc") for _ in range(n))
    ins = ["kitten\nsitting\n", "same\nsame\n", f"{rs(500)}\n{rs(450)}\n"]
    def solve(s):
        a, b = s.split("\n")[:2]
        prev = list(range(len(b) + 1))
        for i, ca in enumerate(a, 1):
            cur = [i]
            for j, cb in enumerate(b, 1):
                cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
            prev = cur
        return f"{prev[-1]}\n"
    return tests(ins, solve)


def grid(n, m, p):
    g = [["." if R.random() > p else "#" for _ in range(m)] for _ in range(n)]
    g[0][0] = g[n - 1][m - 1] = "."
    return g


@case("14_grid_bfs")
def _():
    ins = [lines([3, 3], ["..."], [".#."], ["..."]), lines([2, 2], [".#"], ["#."])]
    ins.append(lines([60, 70], *[["".join(r)] for r in grid(60, 70, 0.25)]))
    def solve(s):
        t = s.split()
        n, m = int(t[0]), int(t[1])
        g = t[2:]
        d = [[-1] * m for _ in range(n)]
        d[0][0] = 0
        q = deque([(0, 0)])
        while q:
            x, y = q.popleft()
            for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                a, b = x + dx, y + dy
                if 0 <= a < n and 0 <= b < m and g[a][b] == "." and d[a][b] < 0:
                    d[a][b] = d[x][y] + 1
                    q.append((a, b))
        return f"{d[n - 1][m - 1]}\n"
    return tests(ins, solve)


@case("15_dijkstra")
def _():
    def make(n, m):
        return lines([n, m], *[[R.randint(1, n), R.randint(1, n), R.randint(1, 10**9)] for _ in range(m)])
    ins = [lines([3, 4], [1, 2, 6], [1, 3, 2], [3, 2, 3], [1, 3, 4]), lines([3, 1], [2, 3, 5]), make(500, 3000)]
    def solve(s):
        v = ints(s)
        n, m = v[0], v[1]
        adj = [[] for _ in range(n + 1)]
        for i in range(m):
            a, b, c = v[2 + 3 * i:5 + 3 * i]
            adj[a].append((b, c))
        dist = [None] * (n + 1)
        dist[1] = 0
        pq = [(0, 1)]
        while pq:
            d, u = heapq.heappop(pq)
            if d != dist[u]:
                continue
            for b, c in adj[u]:
                if dist[b] is None or d + c < dist[b]:
                    dist[b] = d + c
                    heapq.heappush(pq, (d + c, b))
        return " ".join(str(-1 if x is None else x) for x in dist[1:]) + "\n"
    return tests(ins, solve)


@case("16_dsu")
def _():
    def make(n, m):
        return lines([n, m], *[[R.randint(1, n), R.randint(1, n)] for _ in range(m)])
    ins = [lines([5, 3], [1, 2], [3, 4], [1, 2]), make(50, 60), make(2000, 1500)]
    def solve(s):
        v = ints(s)
        n, m = v[0], v[1]
        p = list(range(n + 1))
        size = [1] * (n + 1)
        def find(x):
            while p[x] != x:
                p[x] = p[p[x]]
                x = p[x]
            return x
        comps, big, out = n, 1, []
        for i in range(m):
            a, b = find(v[2 + 2 * i]), find(v[3 + 2 * i])
            if a != b:
                if size[a] < size[b]:
                    a, b = b, a
                p[b] = a
                size[a] += size[b]
                comps -= 1
                big = max(big, size[a])
            out.append(f"{comps} {big}\n")
        return "".join(out)
    return tests(ins, solve)


@case("17_toposort")
def _():
    def dag(n, m):
        edges = set()
        while len(edges) < m:
            a, b = sorted(R.sample(range(1, n + 1), 2))
            edges.add((a, b) if R.random() < 0.5 else (a, b))
        perm = list(range(1, n + 1))
        R.shuffle(perm)
        return lines([n, m], *[[perm[a - 1], perm[b - 1]] for a, b in sorted(edges)])
    ins = [lines([3, 3], [1, 2], [2, 3], [3, 1]), dag(8, 10), dag(300, 1000)]
    def solve(s):
        v = ints(s)
        n, m = v[0], v[1]
        g = [[] for _ in range(n + 1)]
        indeg = [0] * (n + 1)
        for i in range(m):
            a, b = v[2 + 2 * i], v[3 + 2 * i]
            g[a].append(b)
            indeg[b] += 1
        pq = [i for i in range(1, n + 1) if indeg[i] == 0]
        heapq.heapify(pq)
        order = []
        while pq:
            u = heapq.heappop(pq)
            order.append(u)
            for w in g[u]:
                indeg[w] -= 1
                if indeg[w] == 0:
                    heapq.heappush(pq, w)
        return "IMPOSSIBLE\n" if len(order) != n else " ".join(map(str, order)) + "\n"
    return tests(ins, solve)


@case("18_kruskal")
def _():
    def make(n, m):
        return lines([n, m], *[[R.randint(1, n), R.randint(1, n), R.randint(1, 10**9)] for _ in range(m)])
    ins = [lines([4, 5], [1, 2, 1], [2, 3, 2], [3, 4, 3], [1, 4, 10], [1, 3, 1]), lines([3, 1], [1, 2, 5]), make(1000, 5000)]
    def solve(s):
        v = ints(s)
        n, m = v[0], v[1]
        e = sorted((v[4 + 3 * i], v[2 + 3 * i], v[3 + 3 * i]) for i in range(m))
        p = list(range(n + 1))
        def f(x):
            while p[x] != x:
                p[x] = p[p[x]]
                x = p[x]
            return x
        total = used = 0
        for w, a, b in e:
            a, b = f(a), f(b)
            if a != b:
                p[a] = b
                total += w
                used += 1
        return "IMPOSSIBLE\n" if used != n - 1 else f"{total}\n"
    return tests(ins, solve)


@case("19_floyd")
def _():
    def make(n, m, q):
        es = [[R.randint(1, n), R.randint(1, n), R.randint(1, 10**9)] for _ in range(m)]
        return lines([n, m, q], *es, *[[R.randint(1, n), R.randint(1, n)] for _ in range(q)])
    ins = [lines([4, 3, 5], [1, 2, 5], [1, 3, 9], [2, 3, 3], [1, 2], [2, 1], [1, 3], [1, 4], [3, 2]), make(60, 200, 100)]
    def solve(s):
        v = ints(s)
        n, m, q = v[:3]
        inf = float("inf")
        d = [[0 if i == j else inf for j in range(n + 1)] for i in range(n + 1)]
        for i in range(m):
            a, b, c = v[3 + 3 * i:6 + 3 * i]
            d[a][b] = d[b][a] = min(d[a][b], c)
        for k in range(1, n + 1):
            dk = d[k]
            for i in range(1, n + 1):
                dik = d[i][k]
                if dik == inf:
                    continue
                di = d[i]
                for j in range(1, n + 1):
                    if dik + dk[j] < di[j]:
                        di[j] = dik + dk[j]
        base = 3 + 3 * m
        out = []
        for i in range(q):
            x = d[v[base + 2 * i]][v[base + 2 * i + 1]]
            out.append(f"{-1 if x == inf else x}\n")
        return "".join(out)
    return tests(ins, solve)


@case("20_bipartite")
def _():
    def make(n, m, bip):
        es = []
        while len(es) < m:
            a, b = R.randint(1, n), R.randint(1, n)
            if a != b and (not bip or a % 2 != b % 2):
                es.append([a, b])
        return lines([n, m], *es)
    ins = [lines([5, 3], [1, 2], [1, 3], [4, 5]), lines([3, 3], [1, 2], [2, 3], [1, 3]), make(200, 400, True), make(200, 400, False)]
    def solve(s):
        v = ints(s)
        n, m = v[0], v[1]
        g = [[] for _ in range(n + 1)]
        for i in range(m):
            a, b = v[2 + 2 * i], v[3 + 2 * i]
            g[a].append(b)
            g[b].append(a)
        col = [0] * (n + 1)
        for s0 in range(1, n + 1):
            if col[s0]:
                continue
            col[s0] = 1
            st = [s0]
            while st:
                u = st.pop()
                for w in g[u]:
                    if not col[w]:
                        col[w] = 3 - col[u]
                        st.append(w)
                    elif col[w] == col[u]:
                        return "IMPOSSIBLE\n"
        return " ".join(map(str, col[1:])) + "\n"
    return tests(ins, solve)


def tree(n):
    return [[R.randint(1, i - 1), i] for i in range(2, n + 1)]


@case("21_tree_diameter")
def _():
    ins = [lines([5], [1, 2], [1, 3], [3, 4], [3, 5]), lines([1]), lines([3000], *tree(3000))]
    def solve(s):
        v = ints(s)
        n = v[0]
        g = [[] for _ in range(n + 1)]
        for i in range(n - 1):
            a, b = v[1 + 2 * i], v[2 + 2 * i]
            g[a].append(b)
            g[b].append(a)
        def bfs(src):
            d = [-1] * (n + 1)
            d[src] = 0
            q = deque([src])
            while q:
                u = q.popleft()
                for w in g[u]:
                    if d[w] < 0:
                        d[w] = d[u] + 1
                        q.append(w)
            far = max(range(1, n + 1), key=lambda i: d[i])
            return far, d[far]
        return f"{bfs(bfs(1)[0])[1]}\n"
    return tests(ins, solve)


@case("22_lca")
def _():
    def make(n, q):
        return lines([n, q], [R.randint(max(1, i - 5), i - 1) for i in range(2, n + 1)], *[[R.randint(1, n), R.randint(1, n)] for _ in range(q)])
    ins = [lines([5, 3], [1, 1, 2, 2], [4, 5], [4, 3], [1, 5]), make(2000, 300)]
    def solve(s):
        v = ints(s)
        n, q = v[0], v[1]
        par = [0, 0] + v[2:n + 1]
        dep = [0] * (n + 1)
        for i in range(2, n + 1):
            dep[i] = dep[par[i]] + 1
        out = []
        qs = v[n + 1:]
        for i in range(q):
            a, b = qs[2 * i], qs[2 * i + 1]
            while a != b:
                if dep[a] >= dep[b]:
                    a = par[a]
                else:
                    b = par[b]
            out.append(f"{a}\n")
        return "".join(out)
    return tests(ins, solve)


@case("23_segment_tree")
def _():
    def make(n, q):
        qs = []
        for _ in range(q):
            if R.random() < 0.5:
                qs.append([1, R.randint(1, n), R.randint(-10**9, 10**9)])
            else:
                a = R.randint(1, n)
                qs.append([2, a, R.randint(a, n)])
        return lines([n, q], [R.randint(-10**9, 10**9) for _ in range(n)], *qs)
    ins = [lines([4, 3], [1, 2, 3, 4], [2, 1, 4], [1, 2, 10], [2, 2, 3]), make(1000, 1000)]
    def solve(s):
        v = ints(s)
        n, q = v[0], v[1]
        a = v[2:2 + n]
        i, out = 2 + n, []
        for _ in range(q):
            if v[i] == 1:
                a[v[i + 1] - 1] = v[i + 2]
            else:
                out.append(f"{sum(a[v[i + 1] - 1:v[i + 2]])}\n")
            i += 3
        return "".join(out)
    return tests(ins, solve)


@case("24_inversions_bit")
def _():
    ins = [lines([5], [2, 3, 8, 6, 1]), lines([4], [5, 5, 5, 5]), lines([3000], [R.randint(1, 500) for _ in range(3000)])]
    def solve(s):
        a = ints(s)[1:]
        return f"{sum(1 for i in range(len(a)) for j in range(i + 1, len(a)) if a[i] > a[j])}\n"
    return tests(ins, solve)


@case("25_sparse_table")
def _():
    def make(n, q):
        qs = []
        for _ in range(q):
            l = R.randint(1, n)
            qs.append([l, R.randint(l, n)])
        return lines([n, q], [R.randint(-10**9, 10**9) for _ in range(n)], *qs)
    ins = [lines([5, 3], [3, 1, 4, 1, 5], [1, 5], [3, 3], [3, 5]), make(5000, 500)]
    def solve(s):
        v = ints(s)
        n, q = v[0], v[1]
        a = v[2:2 + n]
        qs = v[2 + n:]
        return "".join(f"{min(a[qs[2 * i] - 1:qs[2 * i + 1]])}\n" for i in range(q))
    return tests(ins, solve)


def word(n, alphabet="ab"):
    return "".join(R.choice(alphabet) for _ in range(n))


@case("26_palindromes")
def _():
    ws = ["racecar", "ab", "a", word(7), "abba", word(3) + word(3)[::-1]]
    ins = [lines([2], ["level"], ["hello"]), lines([len(ws)], *[[w] for w in ws])]
    return tests(ins, lambda s: "".join("YES\n" if w == w[::-1] else "NO\n" for w in s.split()[1:]))


@case("27_kmp_count")
def _():
    ins = [lines(["aaaaa"], ["aa"]), lines(["abcabcabc"], ["abc"]), lines([word(5000)], [word(4)])]
    def solve(s):
        t, p = s.split()
        return f"{sum(1 for i in range(len(t) - len(p) + 1) if t[i:i + len(p)] == p)}\n"
    return tests(ins, solve)


@case("28_z_function")
def _():
    ins = ["abcabca\n", "aaaa\n", "abcd\n", word(12) * 40 + "\n"]
    def solve(s):
        w = s.strip()
        n = len(w)
        return " ".join(str(p) for p in range(1, n + 1) if all(w[i] == w[i + p] for i in range(n - p))) + "\n"
    return tests(ins, solve)


@case("29_matrix_power_paths")
def _():
    def make(n, m, k):
        return lines([n, m, k], *[[R.randint(1, n), R.randint(1, n)] for _ in range(m)])
    ins = [lines([3, 4, 2], [1, 2], [2, 3], [1, 3], [2, 3]), make(10, 30, 10**9), make(30, 120, 123456789)]
    def solve(s):
        v = ints(s)
        n, m, k = v[:3]
        mod = 10**9 + 7
        a = [[0] * n for _ in range(n)]
        for i in range(m):
            a[v[3 + 2 * i] - 1][v[4 + 2 * i] - 1] += 1
        def mul(x, y):
            return [[sum(x[i][t] * y[t][j] for t in range(n)) % mod for j in range(n)] for i in range(n)]
        r = [[int(i == j) for j in range(n)] for i in range(n)]
        while k:
            if k & 1:
                r = mul(r, a)
            a = mul(a, a)
            k >>= 1
        return f"{r[0][n - 1]}\n"
    return tests(ins, solve)


@case("30_ncr_mod")
def _():
    qs = [[5, 2], [10, 0], [3, 4], [1000000, 500000]] + [[a, R.randint(0, a)] for a in (R.randint(1, 10**6) for _ in range(10))]
    ins = [lines([1], [5, 2]), lines([len(qs)], *qs)]
    def solve(s):
        v = ints(s)
        mod = 10**9 + 7
        out = []
        for i in range(v[0]):
            a, b = v[1 + 2 * i], v[2 + 2 * i]
            out.append(f"{math.comb(a, b) % mod if 0 <= b <= a else 0}\n")
        return "".join(out)
    return tests(ins, solve)


@case("31_subset_sum_bitmask")
def _():
    ins = [lines([4, 5], [1, 2, 3, 4]), lines([3, 100], [1, 2, 3]), lines([18, 300], [R.randint(1, 40) for _ in range(18)])]
    def solve(s):
        v = ints(s)
        n, t = v[0], v[1]
        a = v[2:]
        sums = Counter([0])
        for x in a:
            nxt = Counter()
            for k, c in sums.items():
                nxt[k] += c
                nxt[k + x] += c
            sums = nxt
        return f"{sums[t]}\n"
    return tests(ins, solve)


@case("32_n_queens")
def _():
    known = {1: 1, 4: 2, 6: 4, 8: 92, 10: 724}
    return tests(["4\n", "1\n", "8\n", "10\n"], lambda s: f"{known[int(s)]}\n")


@case("33_permutations")
def _():
    def solve(s):
        ps = sorted(set("".join(p) for p in permutations(s.strip())))
        return f"{len(ps)}\n" + "".join(p + "\n" for p in ps)
    return tests(["abc\n", "aab\n", "dcbae\n"], solve)


@case("34_brackets")
def _():
    def rb(n):
        return "".join(R.choice("()[]{}") for _ in range(n))
    ws = ["()[]{}", "([)]", "((()))", "(", "}", "{[()()]}", rb(6), rb(8), "(" * 50 + ")" * 50]
    ins = [lines([2], ["()"], ["(]"]), lines([len(ws)], *[[w] for w in ws])]
    def ok(w):
        st = []
        pairs = {")": "(", "]": "[", "}": "{"}
        for c in w:
            if c in "([{":
                st.append(c)
            elif not st or st.pop() != pairs[c]:
                return False
        return not st
    return tests(ins, lambda s: "".join("YES\n" if ok(w) else "NO\n" for w in s.split()[1:]))


@case("35_sliding_max")
def _():
    ins = [lines([8, 3], [1, 3, -1, -3, 5, 3, 6, 7]), lines([3, 1], [4, 2, 9]), lines([2000, 37], [R.randint(-10**9, 10**9) for _ in range(2000)])]
    def solve(s):
        v = ints(s)
        n, k = v[0], v[1]
        a = v[2:]
        return " ".join(str(max(a[i:i + k])) for i in range(n - k + 1)) + "\n"
    return tests(ins, solve)


@case("36_kth_largest_stream")
def _():
    ins = [lines([5, 2], [4, 1, 7, 3, 8]), lines([300, 10], [R.randint(-10**12, 10**12) for _ in range(300)])]
    def solve(s):
        v = ints(s)
        n, k = v[0], v[1]
        out = []
        for i in range(n):
            seen = sorted(v[2:3 + i], reverse=True)
            out.append(str(seen[k - 1]) if len(seen) >= k else "-1")
        return " ".join(out) + "\n"
    return tests(ins, solve)


@case("37_merge_intervals")
def _():
    def make(n):
        iv = []
        for _ in range(n):
            l = R.randint(0, 10**6)
            iv.append([l, l + R.randint(1, 5000)])
        return lines([n], *iv)
    ins = [lines([3], [1, 3], [2, 6], [8, 10]), lines([2], [1, 4], [4, 5]), make(1000)]
    def solve(s):
        v = ints(s)
        iv = sorted((v[1 + 2 * i], v[2 + 2 * i]) for i in range(v[0]))
        out = []
        for l, r in iv:
            if out and l <= out[-1][1]:
                out[-1][1] = max(out[-1][1], r)
            else:
                out.append([l, r])
        return f"{len(out)} {sum(r - l for l, r in out)}\n"
    return tests(ins, solve)


@case("38_big_addition")
def _():
    big = lambda n: str(R.randint(10 ** (n - 1), 10**n - 1))
    ins = [lines([99], [1]), lines([0], [0]), lines([big(300)], [big(250)])]
    return tests(ins, lambda s: f"{sum(map(int, s.split()))}\n")


@case("39_base_conversion")
def _():
    qs = [[255, 16], [0, 2], [10, 2], [2**64 - 1, 36], [123456789, 7]] + [[R.randint(0, 2**63), R.randint(2, 36)] for _ in range(10)]
    ins = [lines([1], [5, 2]), lines([len(qs)], *qs)]
    digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    def conv(n, b):
        if n == 0:
            return "0"
        s = ""
        while n:
            s = digits[n % b] + s
            n //= b
        return s
    def solve(s):
        v = ints(s)
        return "".join(conv(v[1 + 2 * i], v[2 + 2 * i]) + "\n" for i in range(v[0]))
    return tests(ins, solve)


@case("40_josephus")
def _():
    def solve(s):
        n, k = ints(s)
        people = list(range(1, n + 1))
        i, out = 0, []
        while people:
            i = (i + k - 1) % len(people)
            out.append(people.pop(i))
        return " ".join(map(str, out)) + "\n"
    return tests([lines([7, 3]), lines([1, 1]), lines([1000, 17])], solve)


@case("41_collatz")
def _():
    def solve(s):
        n = int(s)
        steps, top = 0, n
        while n != 1:
            n = 3 * n + 1 if n % 2 else n // 2
            steps += 1
            top = max(top, n)
        return f"{steps} {top}\n"
    return tests(["1\n", "27\n", "837799\n"], solve)


@case("42_triangle_area")
def _():
    ts = [[3, 4, 5], [1, 1, 3], [2.5, 2.5, 2.5], [10, 6, 8]] + [[R.randint(1, 100) for _ in range(3)] for _ in range(10)]
    ins = [lines([1], [3, 4, 5]), lines([len(ts)], *ts)]
    def solve(s):
        v = list(map(float, s.split()))
        out = []
        for i in range(int(v[0])):
            a, b, c = v[1 + 3 * i:4 + 3 * i]
            if a + b <= c or a + c <= b or b + c <= a:
                out.append("-1\n")
                continue
            p = (a + b + c) / 2
            out.append(f"{math.sqrt(p * (p - a) * (p - b) * (p - c)):.6f}\n")
        return "".join(out)
    return tests(ins, solve)


@case("43_convex_hull")
def _():
    pts = lambda n, r: [[R.randint(-r, r), R.randint(-r, r)] for _ in range(n)]
    ins = [lines([5], [0, 0], [2, 0], [2, 2], [0, 2], [1, 1]), lines([4], [0, 0], [1, 1], [2, 2], [3, 3]), lines([500], *pts(500, 10**6))]
    def solve(s):
        v = ints(s)
        p = sorted(set((v[1 + 2 * i], v[2 + 2 * i]) for i in range(v[0])))
        cross = lambda o, a, b: (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
        def half(points):
            h = []
            for q in points:
                while len(h) >= 2 and cross(h[-2], h[-1], q) <= 0:
                    h.pop()
                h.append(q)
            return h
        if len(p) == 1:
            hull = p
        else:
            hull = half(p)[:-1] + half(p[::-1])[:-1]
        area2 = sum(hull[i][0] * hull[(i + 1) % len(hull)][1] - hull[i][1] * hull[(i + 1) % len(hull)][0] for i in range(len(hull)))
        return f"{len(hull)} {abs(area2)}\n"
    return tests(ins, solve)


@case("44_multiset_ops")
def _():
    def make(q):
        ops = []
        for _ in range(q):
            op = R.choice(["add", "add", "del", "min", "max", "cnt"])
            ops.append([op] if op in ("min", "max") else [op, R.randint(1, 20)])
        return lines([q], *ops)
    ins = [lines([6], ["min"], ["add", 5], ["add", 5], ["cnt", 5], ["del", 5], ["max"]), make(300)]
    def solve(s):
        t = s.split()
        ms, out, i = Counter(), [], 1
        for _ in range(int(t[0])):
            op = t[i]
            if op in ("min", "max"):
                keys = [k for k, c in ms.items() if c > 0]
                out.append(f"{(min if op == 'min' else max)(keys)}\n" if keys else "EMPTY\n")
                i += 1
                continue
            x = int(t[i + 1])
            i += 2
            if op == "add":
                ms[x] += 1
            elif op == "del":
                ms[x] = max(0, ms[x] - 1)
            else:
                out.append(f"{ms[x]}\n")
        return "".join(out)
    return tests(ins, solve)


@case("45_word_frequency")
def _():
    vocab = ["the", "cat", "Sat", "on", "MAT", "a", "dog", "Ran"]
    text = "\n".join(" ".join(R.choice(vocab) for _ in range(12)) for _ in range(30)) + "\n"
    ins = ["b a b c c c\n", "One two TWO three Three THREE\n", text]
    def solve(s):
        c = Counter(w.lower() for w in s.split())
        top = sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
        return "".join(f"{w} {n}\n" for w, n in top)
    return tests(ins, solve)


@case("46_bitset_subset")
def _():
    ins = [lines([3], [1, 5, 11]), lines([1], [7]), lines([100], [R.randint(1, 900) for _ in range(100)])]
    def solve(s):
        a = ints(s)[1:]
        total = sum(a)
        can = 1
        for x in a:
            can |= can << x
        sums = [t for t in range(1, total + 1) if can >> t & 1]
        best = min(sums, key=lambda t: abs(total - 2 * t))
        return f"{len(sums)}\n{best}\n"
    return tests(ins, solve)


@case("47_int128_mulmod")
def _():
    qs = [[2, 3, 5], [2**64 - 1, 2**64 - 1, 2**64 - 59]] + [[R.randint(0, 2**64 - 1), R.randint(0, 2**64 - 1), R.randint(1, 2**64 - 1)] for _ in range(10)]
    ins = [lines([1], [7, 8, 10]), lines([len(qs)], *qs)]
    def solve(s):
        v = ints(s)
        return "".join(f"{v[1 + 3 * i] * v[2 + 3 * i] % v[3 + 3 * i]}\n" for i in range(v[0]))
    return tests(ins, solve)


@case("48_popcount")
def _():
    ins = [lines([3], [0, 7, 8]), lines([1], [0]), lines([1000], [R.randint(0, 2**32 - 1) for _ in range(1000)])]
    def solve(s):
        a = ints(s)[1:]
        total = sum(bin(x).count("1") for x in a)
        best, bestv = -1, 0
        for x in a:
            if bin(x).count("1") > best:
                best, bestv = bin(x).count("1"), x
        ctz = (bestv & -bestv).bit_length() - 1 if bestv else -1
        return f"{total} {bestv} {ctz}\n"
    return tests(ins, solve)


@case("49_stoi_parse")
def _():
    nums = [R.randint(-10**9, 10**9) for _ in range(40)]
    ins = ["1,2,3\n", "-7\n", ",".join(map(str, nums)) + "\n"]
    def solve(s):
        parts = [int(p) for p in s.strip().split(",")]
        total = sum(parts)
        return f"{total} {parts[0] * 2} {len(str(total))}\n"
    return tests(ins, solve)


@case("50_structured_lambda")
def _():
    names = ["ann", "bob", "cid", "dan", "eve", "fay", "gus", "hal"]
    rows = [[n, R.randint(50, 60), R.randint(18, 22)] for n in names]
    ins = [lines([3], ["zed", 90, 20], ["amy", 90, 19], ["bo", 95, 30]), lines([len(rows)], *rows)]
    def solve(s):
        t = s.split()
        rows = [(t[1 + 3 * i], int(t[2 + 3 * i]), int(t[3 + 3 * i])) for i in range(int(t[0]))]
        rows.sort(key=lambda r: (-r[1], r[2], r[0]))
        return "".join(f"{n} {sc}\n" for n, sc, _ in rows)
    return tests(ins, solve)


@case("51_stock_profit")
def _():
    ins = [lines([6], [7, 1, 5, 3, 6, 4]), lines([3], [5, 4, 3]), lines([2000], [R.randint(1, 10**9) for _ in range(2000)])]
    def solve(s):
        p = ints(s)[1:]
        best, lo = 0, p[0]
        for x in p:
            lo = min(lo, x)
            best = max(best, x - lo)
        return f"{best} {sum(max(0, p[i] - p[i - 1]) for i in range(1, len(p)))}\n"
    return tests(ins, solve)


@case("52_connected_components_dfs")
def _():
    def make(n, m):
        return lines([n, m], *[[R.randint(1, n), R.randint(1, n)] for _ in range(m)])
    ins = [lines([5, 2], [1, 2], [4, 5]), lines([3, 0]), make(5000, 4000)]
    def solve(s):
        v = ints(s)
        n, m = v[0], v[1]
        p = list(range(n + 1))
        def f(x):
            while p[x] != x:
                p[x] = p[p[x]]
                x = p[x]
            return x
        for i in range(m):
            a, b = f(v[2 + 2 * i]), f(v[3 + 2 * i])
            p[a] = b
        sizes = sorted(Counter(f(i) for i in range(1, n + 1)).values(), reverse=True)
        return f"{len(sizes)}\n" + " ".join(map(str, sizes)) + "\n"
    return tests(ins, solve)


@case("53_accumulate_iota")
def _():
    def solve(s):
        n = int(s)
        v = list(range(1, n + 1))
        return f"{sum(v)} {sum(x * x for x in v)} {sum(v[:n // 2 + 1])} {12 * n // math.gcd(12, n)}\n"
    return tests(["1\n", "10\n", "100000\n"], solve)


@case("54_binary_search_answer")
def _():
    ins = [lines([3, 7], [3, 2, 5]), lines([1, 10**9], [10**9]), lines([1000, 10**9], [R.randint(1, 10**9) for _ in range(1000)])]
    def solve(s):
        v = ints(s)
        t, k = v[1], v[2:]
        lo, hi = 0, min(k) * t
        while lo < hi:
            mid = (lo + hi) // 2
            if sum(mid // x for x in k) >= t:
                hi = mid
            else:
                lo = mid + 1
        return f"{lo}\n"
    return tests(ins, solve)


@case("55_printf_floats")
def _():
    vals = [round(R.uniform(-1000, 1000), 3) for _ in range(101)]
    ins = [lines([4], [1, 2, 3, 4]), lines([1], [2.5]), lines([len(vals)], vals)]
    def solve(s):
        t = s.split()
        a = [float(x) for x in t[1:]]
        n = len(a)
        mean = sum(a) / n
        var = sum(x * x for x in a) / n - mean * mean
        b = sorted(a)
        med = b[n // 2] if n % 2 else (b[n // 2 - 1] + b[n // 2]) / 2
        return f"{mean:.4f} {math.sqrt(max(0.0, var)):.4f} {med:.4f}\n"
    return tests(ins, solve)


def main():
    here = Path(__file__).parent
    sources = sorted(p.stem for p in here.glob("*.cpp"))
    assert sources == sorted(CASES), set(sources) ^ set(CASES)
    out = {name: CASES[name]() for name in sorted(CASES)}
    (here / "cases.json").write_text(json.dumps(out, indent=1) + "\n")
    print(f"{len(out)} programs, {sum(map(len, out.values()))} cases")


if __name__ == "__main__":
    main()
