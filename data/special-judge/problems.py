"""The special-judge problems: written for HACRL (see README.md). Each has a short statement,
its stdin cases, a Python reference solution (whose output is the expected answer), a checker
(C++ on our testlib.h, or Python), a right solution whose output differs from the reference's and
a wrong one the checker rejects, both in the task's language. `build.py` turns them into the
task file."""

from textwrap import dedent

PROBLEMS = []


def testlib(body, includes=()):
    """A C++ checker on testlib.h: `body` is the inside of main, after registerTestlibCmd."""
    head = "".join(f"#include <{i}>\n" for i in includes)
    body = "".join("    " + line if line.strip() else line
                   for line in dedent(body).strip("\n").splitlines(True))
    return (f'#include "testlib.h"\n{head}\nint main(int argc, char *argv[]) {{\n'
            f"    registerTestlibCmd(argc, argv);\n{body}\n}}\n")


def problem(id, category, statement, language, cases, reference, checker, right, wrong,
            checker_language="cpp"):
    PROBLEMS.append({
        "id": id,
        "category": category,
        "statement": dedent(statement).strip(),
        "language": language,
        "cases": cases,
        "reference": dedent(reference).lstrip("\n"),
        "checker": {"language": checker_language,
                    "source": checker if checker_language == "cpp" else dedent(checker).lstrip("\n")},
        "right": dedent(right).lstrip("\n"),
        "wrong": dedent(wrong).lstrip("\n"),
    })


# ---------------------------------------------------------------------------------------------
problem(
    "two-sum-any", "print any solution",
    """
    The first line holds n and x (1 <= n <= 1000, |x| <= 2*10^9), the second n integers a_1..a_n
    (|a_i| <= 10^9). Print two indices i < j (1-based) with a_i + a_j = x, or -1 if there are none.
    """,
    "cpp",
    ["5 10\n1 9 5 5 3\n", "6 7\n1 6 2 5 3 4\n", "3 100\n1 2 3\n", "2 -4\n-2 -2\n", "1 5\n5\n"],
    """
    import sys
    d = list(map(int, sys.stdin.read().split()))
    n, x, a = d[0], d[1], d[2:]
    for i in range(n):
        for j in range(i + 1, n):
            if a[i] + a[j] == x:
                print(i + 1, j + 1)
                sys.exit()
    print(-1)
    """,
    testlib("""
    int n = inf.readInt();
    long long x = inf.readLong();
    std::vector<long long> a = inf.readLongs(n);
    bool exists = ans.readLong() != -1;
    long long i = ouf.readLong(-1, n, "i");
    if (i == -1) {
        if (exists) quitf(_wa, "a pair exists, the output says -1");
        quitf(_ok, "no pair");
    }
    long long j = ouf.readLong(1, n, "j");
    if (i < 1 || i >= j) quitf(_wa, "indices %lld %lld are not 1 <= i < j", i, j);
    if (a[i - 1] + a[j - 1] != x)
        quitf(_wa, "a[%lld] + a[%lld] = %lld, not %lld", i, j, a[i - 1] + a[j - 1], x);
    if (!exists) quitf(_fail, "the output found a pair the answer missed");
    quitf(_ok, "a[%lld] + a[%lld] = %lld", i, j, x);
    """),
    r"""
    #include <cstdio>
    #include <vector>
    int main() {
        int n;
        long long x;
        if (std::scanf("%d %lld", &n, &x) != 2) return 1;
        std::vector<long long> a(n);
        for (auto &v : a) std::scanf("%lld", &v);
        for (int j = n - 1; j > 0; j--)
            for (int i = j - 1; i >= 0; i--)
                if (a[i] + a[j] == x) {
                    std::printf("%d %d\n", i + 1, j + 1);
                    return 0;
                }
        std::puts("-1");
    }
    """,
    r"""
    #include <cstdio>
    #include <vector>
    int main() {
        int n;
        long long x;
        if (std::scanf("%d %lld", &n, &x) != 2) return 1;
        std::vector<long long> a(n);
        for (auto &v : a) std::scanf("%lld", &v);
        // Wrong: lets an element pair with itself.
        for (int j = n - 1; j >= 0; j--)
            for (int i = j; i >= 0; i--)
                if (a[i] + a[j] == x) {
                    std::printf("%d %d\n", i + 1, j + 1);
                    return 0;
                }
        std::puts("-1");
    }
    """,
)

problem(
    "derangement", "any valid permutation",
    """
    Given n (1 <= n <= 10^5), print a permutation p_1..p_n of 1..n with p_i != i for every i, or
    -1 if there is none.
    """,
    "python",
    ["1\n", "2\n", "5\n", "4\n", "7\n"],
    """
    n = int(input())
    print(-1 if n == 1 else " ".join(str(i % n + 1) for i in range(1, n + 1)))
    """,
    testlib("""
    int n = inf.readInt();
    bool exists = ans.readInt() != -1;
    int first = ouf.readInt(-1, n, "p_1");
    if (first == -1) {
        if (exists) quitf(_wa, "a derangement of %d exists, the output says -1", n);
        quitf(_ok, "none for n = %d", n);
    }
    std::vector<int> p(n + 1);
    std::vector<bool> seen(n + 1);
    p[1] = first;
    for (int i = 2; i <= n; i++) p[i] = ouf.readInt(1, n, "p_i");
    for (int i = 1; i <= n; i++) {
        if (p[i] < 1) quitf(_wa, "p_%d = %d is not in [1, %d]", i, p[i], n);
        if (seen[p[i]]) quitf(_wa, "%d appears twice", p[i]);
        seen[p[i]] = true;
        if (p[i] == i) quitf(_wa, "p_%d = %d is a fixed point", i, i);
    }
    if (!exists) quitf(_fail, "the output found a derangement the answer missed");
    quitf(_ok, "a derangement of %d", n);
    """),
    """
    n = int(input())
    if n == 1:
        print(-1)
    else:
        p = list(range(1, n + 1))
        for i in range(0, n - 1, 2):
            p[i], p[i + 1] = p[i + 1], p[i]
        if n % 2:
            p[-1], p[-2] = p[-2], p[-1]
        print(*p)
    """,
    """
    n = int(input())
    print(*range(n, 0, -1))  # wrong: the middle stays in place when n is odd
    """,
)

problem(
    "shortest-path", "any shortest path",
    """
    An undirected graph has n vertices and m edges (1 <= n <= 1000, 0 <= m <= 10^4): the first
    line holds n and m, each next line an edge u v. Print a shortest path from vertex 1 to vertex
    n: its number of vertices k, then the k vertices on the next line; or -1 if n cannot be
    reached.
    """,
    "cpp",
    ["4 4\n1 2\n2 4\n1 3\n3 4\n", "6 7\n1 2\n1 3\n2 4\n3 4\n4 6\n2 5\n5 6\n", "3 1\n1 2\n",
     "1 0\n", "5 5\n1 2\n2 3\n3 4\n4 5\n1 5\n"],
    """
    import sys
    from collections import deque
    d = list(map(int, sys.stdin.read().split()))
    n, m = d[0], d[1]
    adj = [[] for _ in range(n + 1)]
    for i in range(m):
        u, v = d[2 + 2 * i], d[3 + 2 * i]
        adj[u].append(v)
        adj[v].append(u)
    parent = [0] * (n + 1)
    parent[1] = -1
    q = deque([1])
    while q:
        u = q.popleft()
        for v in sorted(adj[u]):
            if parent[v] == 0:
                parent[v] = u
                q.append(v)
    if parent[n] == 0:
        print(-1)
    else:
        path = [n]
        while path[-1] != 1:
            path.append(parent[path[-1]])
        print(len(path))
        print(*reversed(path))
    """,
    testlib("""
    int n = inf.readInt(), m = inf.readInt();
    std::vector<std::vector<int>> adj(n + 1);
    std::set<std::pair<int, int>> edges;
    for (int i = 0; i < m; i++) {
        int u = inf.readInt(), v = inf.readInt();
        adj[u].push_back(v);
        adj[v].push_back(u);
        edges.insert({std::min(u, v), std::max(u, v)});
    }
    std::vector<int> dist(n + 1, -1);
    std::queue<int> q;
    dist[1] = 0;
    q.push(1);
    while (!q.empty()) {
        int u = q.front();
        q.pop();
        for (int v : adj[u])
            if (dist[v] < 0) dist[v] = dist[u] + 1, q.push(v);
    }
    int expected = ans.readInt();
    if (expected != (dist[n] < 0 ? -1 : dist[n] + 1)) quitf(_fail, "the answer's length is wrong");
    int k = ouf.readInt(-1, n, "k");
    if (k == -1) {
        if (dist[n] >= 0) quitf(_wa, "vertex %d is reachable, the output says -1", n);
        quitf(_ok, "unreachable");
    }
    if (k == 0) quitf(_wa, "a path has at least one vertex");
    std::vector<int> path = ouf.readInts(k, 1, n, "vertex");
    if (path[0] != 1 || path[k - 1] != n) quitf(_wa, "the path goes from %d to %d", path[0], path[k - 1]);
    for (int i = 0; i + 1 < k; i++)
        if (!edges.count({std::min(path[i], path[i + 1]), std::max(path[i], path[i + 1])}))
            quitf(_wa, "no edge %d-%d", path[i], path[i + 1]);
    if (k - 1 != dist[n]) quitf(_wa, "the path has %d edges, the shortest %d", k - 1, dist[n]);
    quitf(_ok, "a shortest path of %d edges", k - 1);
    """, ["queue", "set"]),
    r"""
    #include <algorithm>
    #include <cstdio>
    #include <functional>
    #include <queue>
    #include <vector>
    int main() {
        int n, m;
        if (std::scanf("%d %d", &n, &m) != 2) return 1;
        std::vector<std::vector<int>> adj(n + 1);
        for (int i = 0; i < m; i++) {
            int u, v;
            std::scanf("%d %d", &u, &v);
            adj[u].push_back(v);
            adj[v].push_back(u);
        }
        for (auto &a : adj) std::sort(a.begin(), a.end(), std::greater<int>());
        std::vector<int> parent(n + 1, 0);
        parent[1] = -1;
        std::queue<int> q;
        q.push(1);
        while (!q.empty()) {
            int u = q.front();
            q.pop();
            for (int v : adj[u])
                if (parent[v] == 0) parent[v] = u, q.push(v);
        }
        if (parent[n] == 0) {
            std::puts("-1");
            return 0;
        }
        std::vector<int> path{n};
        while (path.back() != 1) path.push_back(parent[path.back()]);
        std::printf("%zu\n", path.size());
        for (size_t i = path.size(); i-- > 0;) std::printf("%d%c", path[i], i ? ' ' : '\n');
    }
    """,
    r"""
    #include <algorithm>
    #include <cstdio>
    #include <vector>
    // Wrong: a depth-first path is a path, not always a shortest one.
    int n, m;
    std::vector<std::vector<int>> adj;
    std::vector<int> path;
    std::vector<bool> seen;
    bool dfs(int u) {
        seen[u] = true;
        path.push_back(u);
        if (u == n) return true;
        for (int v : adj[u])
            if (!seen[v] && dfs(v)) return true;
        path.pop_back();
        return false;
    }
    int main() {
        if (std::scanf("%d %d", &n, &m) != 2) return 1;
        adj.resize(n + 1);
        seen.resize(n + 1);
        for (int i = 0; i < m; i++) {
            int u, v;
            std::scanf("%d %d", &u, &v);
            adj[u].push_back(v);
            adj[v].push_back(u);
        }
        for (auto &a : adj) std::sort(a.begin(), a.end());
        if (!dfs(1)) {
            std::puts("-1");
            return 0;
        }
        std::printf("%zu\n", path.size());
        for (size_t i = 0; i < path.size(); i++) std::printf("%d%c", path[i], i + 1 < path.size() ? ' ' : '\n');
    }
    """,
)

problem(
    "topological-order", "any topological order",
    """
    A directed acyclic graph has n vertices and m edges (1 <= n <= 10^5, 0 <= m <= 10^5): the first
    line holds n and m, each next line an edge u v (from u to v). Print the n vertices in an order
    where every edge goes from an earlier vertex to a later one.
    """,
    "python",
    ["4 3\n1 2\n1 3\n3 4\n", "5 0\n", "3 2\n3 2\n2 1\n", "6 6\n6 1\n5 1\n4 2\n6 3\n5 3\n3 2\n",
     "1 0\n"],
    """
    import heapq
    import sys
    d = list(map(int, sys.stdin.read().split()))
    n, m = d[0], d[1]
    out = [[] for _ in range(n + 1)]
    indeg = [0] * (n + 1)
    for i in range(m):
        u, v = d[2 + 2 * i], d[3 + 2 * i]
        out[u].append(v)
        indeg[v] += 1
    heap = [v for v in range(1, n + 1) if indeg[v] == 0]
    heapq.heapify(heap)
    order = []
    while heap:
        u = heapq.heappop(heap)
        order.append(u)
        for v in out[u]:
            indeg[v] -= 1
            if indeg[v] == 0:
                heapq.heappush(heap, v)
    print(*order)
    """,
    """
    import sys


    def reject(why):
        print(why, file=sys.stderr)
        sys.exit(1)


    data = open(sys.argv[1]).read().split()
    n, m = int(data[0]), int(data[1])
    edges = [(int(data[2 + 2 * i]), int(data[3 + 2 * i])) for i in range(m)]
    out = open(sys.argv[2]).read().split()
    if len(out) != n or not all(t.isdigit() for t in out):
        reject(f"expected {n} vertices, found {len(out)} tokens")
    order = [int(t) for t in out]
    if sorted(order) != list(range(1, n + 1)):
        reject("the output is not an order of the vertices 1..n")
    position = {v: i for i, v in enumerate(order)}
    for u, v in edges:
        if position[u] > position[v]:
            reject(f"edge {u} -> {v} goes backwards")
    print(f"ok, {n} vertices in order", file=sys.stderr)
    """,
    """
    import heapq
    import sys
    d = list(map(int, sys.stdin.read().split()))
    n, m = d[0], d[1]
    out = [[] for _ in range(n + 1)]
    indeg = [0] * (n + 1)
    for i in range(m):
        u, v = d[2 + 2 * i], d[3 + 2 * i]
        out[u].append(v)
        indeg[v] += 1
    heap = [-v for v in range(1, n + 1) if indeg[v] == 0]
    heapq.heapify(heap)
    order = []
    while heap:
        u = -heapq.heappop(heap)
        order.append(u)
        for v in out[u]:
            indeg[v] -= 1
            if indeg[v] == 0:
                heapq.heappush(heap, -v)
    print(*order)
    """,
    """
    n = int(input().split()[0])
    print(*range(1, n + 1))  # wrong: ignores the edges
    """,
    checker_language="python",
)

problem(
    "circle-area", "floating output within a tolerance",
    """
    Given the radius r of a circle (0 < r <= 10^4, a real number), print its area. An absolute or
    relative error of at most 10^-4 is accepted.
    """,
    "cpp",
    ["1\n", "2.5\n", "10000\n", "0.001\n"],
    """
    import math
    r = float(input())
    print("%.10f" % (math.pi * r * r))
    """,
    testlib("""
    double expected = ans.readDouble();
    double got = ouf.readDouble();
    if (!doubleCompare(expected, got, 1e-4))
        quitf(_wa, "expected %.10f, found %.10f (error %.3g)", expected, got, doubleDelta(expected, got));
    quitf(_ok, "%.10f is within 1e-4 of %.10f", got, expected);
    """),
    r"""
    #include <cmath>
    #include <cstdio>
    int main() {
        double r;
        if (std::scanf("%lf", &r) != 1) return 1;
        std::printf("%.5f\n", std::acos(-1.0) * r * r);
    }
    """,
    r"""
    #include <cstdio>
    int main() {
        double r;
        if (std::scanf("%lf", &r) != 1) return 1;
        std::printf("%.10f\n", 3.14 * r * r);  // wrong: pi is not 3.14
    }
    """,
)

problem(
    "mean", "floating output within a tolerance",
    """
    The first line holds n (1 <= n <= 1000), the second n integers (|a_i| <= 10^9). Print their
    arithmetic mean; an absolute or relative error of at most 10^-4 is accepted.
    """,
    "python",
    ["3\n1 2 4\n", "1\n-7\n", "4\n1000000000 1000000000 1000000000 999999999\n", "2\n1 2\n"],
    """
    n, *a = map(int, open(0).read().split())
    print("%.9f" % (sum(a) / n))
    """,
    """
    import math
    import sys

    expected = float(open(sys.argv[3]).read().split()[0])
    out = open(sys.argv[2]).read().split()
    try:
        got = float(out[0]) if len(out) == 1 else math.nan
    except ValueError:
        got = math.nan
    if not math.isfinite(got):
        print(f"expected one real number, found {out[:3]}", file=sys.stderr)
        sys.exit(1)
    error = abs(got - expected) / max(1.0, abs(expected))
    if error > 1e-4:
        print(f"expected {expected}, found {got} (error {error:.3g})", file=sys.stderr)
        sys.exit(1)
    print(f"ok, {got} is within 1e-4 of {expected}", file=sys.stderr)
    """,
    """
    n, *a = map(int, open(0).read().split())
    print(round(sum(a) / n, 4))
    """,
    """
    n, *a = map(int, open(0).read().split())
    print(sum(a) // n)  # wrong: integer division
    """,
    checker_language="python",
)

problem(
    "subset-sum", "any subset with a given sum",
    """
    The first line holds n and S (1 <= n <= 20, 1 <= S <= 2*10^7), the second n positive integers
    a_1..a_n (a_i <= 10^6). Print a non-empty set of distinct indices whose values sum to S: its
    size k, then the k indices on the next line; or -1 if there is none.
    """,
    "cpp",
    ["5 10\n2 3 5 7 8\n", "4 100\n1 2 3 4\n", "1 5\n5\n", "6 9\n4 5 1 3 6 2\n", "3 6\n4 3 3\n"],
    """
    import sys
    d = list(map(int, sys.stdin.read().split()))
    n, s, a = d[0], d[1], d[2:]
    for mask in range(1, 1 << n):
        picked = [i + 1 for i in range(n) if mask >> i & 1]
        if sum(a[i - 1] for i in picked) == s:
            print(len(picked))
            print(*picked)
            sys.exit()
    print(-1)
    """,
    testlib("""
    int n = inf.readInt();
    long long s = inf.readLong();
    std::vector<long long> a = inf.readLongs(n);
    bool exists = ans.readInt() != -1;
    int k = ouf.readInt(-1, n, "k");
    if (k == -1) {
        if (exists) quitf(_wa, "a subset with sum %lld exists, the output says -1", s);
        quitf(_ok, "no subset");
    }
    if (k == 0) quitf(_wa, "the subset is empty");
    std::vector<bool> used(n + 1);
    long long sum = 0;
    for (int i = 0; i < k; i++) {
        int index = ouf.readInt(1, n, "index");
        if (used[index]) quitf(_wa, "index %d appears twice", index);
        used[index] = true;
        sum += a[index - 1];
    }
    if (sum != s) quitf(_wa, "the subset sums to %lld, not %lld", sum, s);
    if (!exists) quitf(_fail, "the output found a subset the answer missed");
    quitf(_ok, "%d values sum to %lld", k, s);
    """),
    r"""
    #include <cstdio>
    #include <vector>
    int main() {
        int n, s;
        if (std::scanf("%d %d", &n, &s) != 2) return 1;
        std::vector<int> a(n + 1);
        for (int i = 1; i <= n; i++) std::scanf("%d", &a[i]);
        // reach[i][t]: some subset of the first i values sums to t.
        std::vector<std::vector<char>> reach(n + 1, std::vector<char>(s + 1, 0));
        reach[0][0] = 1;
        for (int i = 1; i <= n; i++)
            for (int t = 0; t <= s; t++)
                reach[i][t] = reach[i - 1][t] || (t >= a[i] && reach[i - 1][t - a[i]]);
        if (!reach[n][s]) {
            std::puts("-1");
            return 0;
        }
        std::vector<int> picked;
        for (int i = n, t = s; t > 0; i--)
            if (t >= a[i] && reach[i - 1][t - a[i]]) picked.push_back(i), t -= a[i];
        std::printf("%zu\n", picked.size());
        for (size_t i = picked.size(); i-- > 0;) std::printf("%d%c", picked[i], i ? ' ' : '\n');
    }
    """,
    r"""
    #include <algorithm>
    #include <cstdio>
    #include <vector>
    int main() {
        int n, s;
        if (std::scanf("%d %d", &n, &s) != 2) return 1;
        std::vector<std::pair<int, int>> a(n);
        for (int i = 0; i < n; i++) std::scanf("%d", &a[i].first), a[i].second = i + 1;
        std::sort(a.rbegin(), a.rend());
        std::vector<int> picked;
        int left = s;
        for (auto [v, i] : a)  // wrong: greedy, largest first
            if (v <= left) picked.push_back(i), left -= v;
        if (left) {
            std::puts("-1");
            return 0;
        }
        std::sort(picked.begin(), picked.end());
        std::printf("%zu\n", picked.size());
        for (size_t i = 0; i < picked.size(); i++) std::printf("%d%c", picked[i], i + 1 < picked.size() ? ' ' : '\n');
    }
    """,
)

problem(
    "two-coloring", "any valid coloring",
    """
    An undirected graph has n vertices and m edges (1 <= n <= 10^5, 0 <= m <= 10^5): the first line
    holds n and m, each next line an edge u v. Print n colors, each 1 or 2, so that every edge
    joins two different colors; or -1 if that is impossible.
    """,
    "python",
    ["4 4\n1 2\n2 3\n3 4\n4 1\n", "3 3\n1 2\n2 3\n3 1\n", "5 2\n1 2\n4 5\n", "1 0\n"],
    """
    import sys
    from collections import deque
    d = list(map(int, sys.stdin.read().split()))
    n, m = d[0], d[1]
    adj = [[] for _ in range(n + 1)]
    for i in range(m):
        u, v = d[2 + 2 * i], d[3 + 2 * i]
        adj[u].append(v)
        adj[v].append(u)
    color = [0] * (n + 1)
    for s in range(1, n + 1):
        if color[s]:
            continue
        color[s] = 1
        q = deque([s])
        while q:
            u = q.popleft()
            for v in adj[u]:
                if not color[v]:
                    color[v] = 3 - color[u]
                    q.append(v)
                elif color[v] == color[u]:
                    print(-1)
                    sys.exit()
    print(*color[1:])
    """,
    testlib("""
    int n = inf.readInt(), m = inf.readInt();
    std::vector<std::pair<int, int>> edges(m);
    for (auto &e : edges) e.first = inf.readInt(), e.second = inf.readInt();
    bool exists = ans.readInt() != -1;
    int first = ouf.readInt(-1, 2, "color");
    if (first == -1) {
        if (exists) quitf(_wa, "the graph is bipartite, the output says -1");
        quitf(_ok, "not bipartite");
    }
    if (first == 0) quitf(_wa, "color 0 is neither 1 nor 2");
    std::vector<int> color(n + 1);
    color[1] = first;
    for (int i = 2; i <= n; i++) color[i] = ouf.readInt(1, 2, "color");
    for (auto [u, v] : edges)
        if (color[u] == color[v]) quitf(_wa, "edge %d-%d joins two vertices of color %d", u, v, color[u]);
    if (!exists) quitf(_fail, "the output colored a graph the answer says is not bipartite");
    quitf(_ok, "%d edges, each between the two colors", m);
    """),
    """
    import sys
    from collections import deque
    d = list(map(int, sys.stdin.read().split()))
    n, m = d[0], d[1]
    adj = [[] for _ in range(n + 1)]
    for i in range(m):
        u, v = d[2 + 2 * i], d[3 + 2 * i]
        adj[u].append(v)
        adj[v].append(u)
    color = [0] * (n + 1)
    for s in range(1, n + 1):
        if color[s]:
            continue
        color[s] = 2
        q = deque([s])
        while q:
            u = q.popleft()
            for v in adj[u]:
                if not color[v]:
                    color[v] = 3 - color[u]
                    q.append(v)
                elif color[v] == color[u]:
                    print(-1)
                    sys.exit()
    print(*color[1:])
    """,
    """
    n = int(input().split()[0])
    print(*(1 if i % 2 else 2 for i in range(1, n + 1)))  # wrong: colors by parity of the number
    """,
)

problem(
    "greedy-coloring", "any valid coloring",
    """
    An undirected graph has n vertices and m edges (1 <= n <= 1000, 0 <= m <= 10^4): the first line
    holds n and m, each next line an edge u v. Let D be the largest degree. Print n colors, each
    between 1 and D + 1, so that the two ends of every edge have different colors.
    """,
    "cpp",
    ["4 4\n1 2\n2 3\n3 1\n3 4\n", "3 0\n", "5 4\n1 2\n1 3\n1 4\n1 5\n",
     "6 7\n1 2\n2 3\n3 4\n4 5\n5 6\n6 1\n1 4\n"],
    """
    import sys
    d = list(map(int, sys.stdin.read().split()))
    n, m = d[0], d[1]
    adj = [[] for _ in range(n + 1)]
    for i in range(m):
        u, v = d[2 + 2 * i], d[3 + 2 * i]
        adj[u].append(v)
        adj[v].append(u)
    color = [0] * (n + 1)
    for u in range(1, n + 1):
        used = {color[v] for v in adj[u]}
        color[u] = next(c for c in range(1, n + 2) if c not in used)
    print(*color[1:])
    """,
    testlib("""
    int n = inf.readInt(), m = inf.readInt();
    std::vector<int> degree(n + 1);
    std::vector<std::pair<int, int>> edges(m);
    for (auto &e : edges) {
        e.first = inf.readInt(), e.second = inf.readInt();
        degree[e.first]++, degree[e.second]++;
    }
    int d = *std::max_element(degree.begin(), degree.end());
    std::vector<int> color(n + 1);
    for (int i = 1; i <= n; i++) color[i] = ouf.readInt(1, d + 1, "color");
    for (auto [u, v] : edges)
        if (color[u] == color[v]) quitf(_wa, "edge %d-%d joins two vertices of color %d", u, v, color[u]);
    quitf(_ok, "a proper coloring with at most %d colors", d + 1);
    """),
    r"""
    #include <cstdio>
    #include <vector>
    int main() {
        int n, m;
        if (std::scanf("%d %d", &n, &m) != 2) return 1;
        std::vector<std::vector<int>> adj(n + 1);
        for (int i = 0; i < m; i++) {
            int u, v;
            std::scanf("%d %d", &u, &v);
            adj[u].push_back(v);
            adj[v].push_back(u);
        }
        std::vector<int> color(n + 1, 0);
        for (int u = n; u >= 1; u--) {  // the vertices in reverse order
            std::vector<bool> used(adj[u].size() + 2);
            for (int v : adj[u])
                if (color[v] < (int)used.size()) used[color[v]] = true;
            int c = 1;
            while (used[c]) c++;
            color[u] = c;
        }
        for (int u = 1; u <= n; u++) std::printf("%d%c", color[u], u < n ? ' ' : '\n');
    }
    """,
    r"""
    #include <cstdio>
    int main() {
        int n, m;
        if (std::scanf("%d %d", &n, &m) != 2) return 1;
        for (int u = 1; u <= n; u++) std::printf("%d%c", u % 2 + 1, u < n ? ' ' : '\n');  // wrong
    }
    """,
)

problem(
    "abc-string", "construct a string with a property",
    """
    Given n (1 <= n <= 10^5), print a string of n letters, each a, b or c, with no palindrome of
    length 2 or 3 inside it: s_i != s_(i+1) and s_i != s_(i+2) wherever those exist.
    """,
    "python",
    ["1\n", "2\n", "7\n", "10\n"],
    """
    n = int(input())
    print(("abc" * n)[:n])
    """,
    """
    import sys


    def reject(why):
        print(why, file=sys.stderr)
        sys.exit(1)


    n = int(open(sys.argv[1]).read())
    out = open(sys.argv[2]).read().split()
    if len(out) != 1:
        reject(f"expected one string, found {len(out)} tokens")
    s = out[0]
    if len(s) != n or set(s) - set("abc"):
        reject(f"expected {n} letters from a, b, c")
    for i in range(n):
        if i + 1 < n and s[i] == s[i + 1]:
            reject(f"positions {i + 1} and {i + 2} are both {s[i]}")
        if i + 2 < n and s[i] == s[i + 2]:
            reject(f"positions {i + 1} and {i + 3} are both {s[i]}")
    print("ok", file=sys.stderr)
    """,
    """
    n = int(input())
    print(("cba" * n)[:n])
    """,
    """
    n = int(input())
    print(("ab" * n)[:n])  # wrong: "aba" is a palindrome
    """,
    checker_language="python",
)

problem(
    "nontrivial-divisor", "print any solution",
    """
    Given n (2 <= n <= 10^12), print a divisor d of n with 1 < d < n, or -1 if n is prime.
    """,
    "python",
    ["12\n", "97\n", "25\n", "999999999989\n", "1000000000000\n", "4\n"],
    """
    n = int(input())
    d = 2
    while d * d <= n and n % d:
        d += 1
    print(d if d * d <= n else -1)
    """,
    testlib("""
    long long n = inf.readLong();
    bool exists = ans.readLong() != -1;
    long long d = ouf.readLong(-1, n, "d");
    if (d == -1) {
        if (exists) quitf(_wa, "%lld is not prime, the output says -1", n);
        quitf(_ok, "%lld is prime", n);
    }
    if (d <= 1 || d >= n) quitf(_wa, "%lld is not strictly between 1 and %lld", d, n);
    if (n % d != 0) quitf(_wa, "%lld does not divide %lld", d, n);
    if (!exists) quitf(_fail, "the output divided a number the answer says is prime");
    quitf(_ok, "%lld divides %lld", d, n);
    """),
    """
    n = int(input())
    d = 2
    while d * d <= n and n % d:
        d += 1
    print(n // d if d * d <= n else -1)  # the largest proper divisor
    """,
    """
    n = int(input())
    print(2 if n % 2 == 0 else 3)  # wrong: not every odd number is a multiple of 3
    """,
)

problem(
    "goldbach", "print any solution",
    """
    Given an even n (4 <= n <= 10^6), print two primes p and q with p + q = n.
    """,
    "cpp",
    ["4\n", "28\n", "100\n", "999998\n"],
    """
    n = int(input())
    prime = lambda x: x > 1 and all(x % d for d in range(2, int(x ** 0.5) + 1))
    p = next(p for p in range(2, n) if prime(p) and prime(n - p))
    print(p, n - p)
    """,
    testlib("""
    long long n = inf.readLong();
    auto prime = [](long long x) {
        if (x < 2) return false;
        for (long long d = 2; d * d <= x; d++)
            if (x % d == 0) return false;
        return true;
    };
    long long p = ouf.readLong(1, n, "p"), q = ouf.readLong(1, n, "q");
    if (p + q != n) quitf(_wa, "%lld + %lld != %lld", p, q, n);
    if (!prime(p)) quitf(_wa, "%lld is not prime", p);
    if (!prime(q)) quitf(_wa, "%lld is not prime", q);
    quitf(_ok, "%lld = %lld + %lld", n, p, q);
    """),
    r"""
    #include <cstdio>
    static bool prime(long long x) {
        if (x < 2) return false;
        for (long long d = 2; d * d <= x; d++)
            if (x % d == 0) return false;
        return true;
    }
    int main() {
        long long n;
        if (std::scanf("%lld", &n) != 1) return 1;
        for (long long p = n / 2; p >= 2; p--)  // the pair closest to n/2
            if (prime(p) && prime(n - p)) {
                std::printf("%lld %lld\n", p, n - p);
                return 0;
            }
    }
    """,
    r"""
    #include <cstdio>
    static bool prime(long long x) {
        if (x < 2) return false;
        for (long long d = 2; d * d <= x; d++)
            if (x % d == 0) return false;
        return true;
    }
    int main() {
        long long n;
        if (std::scanf("%lld", &n) != 1) return 1;
        for (long long p = 3; p < n; p += 2)  // wrong: n - p is odd, not always prime
            if (prime(p)) {
                std::printf("%lld %lld\n", p, n - p);
                return 0;
            }
    }
    """,
)

problem(
    "no-equal-neighbours", "construct a string with a property",
    """
    Given a string s of lowercase letters (1 <= |s| <= 10^5), print a rearrangement of its letters
    in which no two neighbouring letters are equal, or -1 if there is none.
    """,
    "python",
    ["aab\n", "aaab\n", "aabbcc\n", "abc\n", "a\n", "aaabbbcc\n"],
    """
    import heapq
    s = input().strip()
    counts = {}
    for ch in s:
        counts[ch] = counts.get(ch, 0) + 1
    if max(counts.values()) > (len(s) + 1) // 2:
        print(-1)
    else:
        heap = [(-c, ch) for ch, c in counts.items()]
        heapq.heapify(heap)
        out = []
        while heap:
            c, ch = heapq.heappop(heap)
            if out and out[-1] == ch:
                c2, ch2 = heapq.heappop(heap)
                heapq.heappush(heap, (c, ch))
                c, ch = c2, ch2
            out.append(ch)
            if c + 1:
                heapq.heappush(heap, (c + 1, ch))
        print("".join(out))
    """,
    testlib("""
    std::string s = inf.readToken();
    bool exists = ans.readToken() != "-1";
    std::string t = ouf.readToken();
    if (t == "-1") {
        if (exists) quitf(_wa, "a rearrangement exists, the output says -1");
        quitf(_ok, "none exists");
    }
    std::string a = s, b = t;
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    if (a != b) quitf(_wa, "\\"%s\\" is not a rearrangement of the input", compress(t).c_str());
    for (size_t i = 0; i + 1 < t.size(); i++)
        if (t[i] == t[i + 1]) quitf(_wa, "positions %zu and %zu are both '%c'", i + 1, i + 2, t[i]);
    if (!exists) quitf(_fail, "the output rearranged a string the answer says cannot be");
    quitf(_ok, "no equal neighbours in %zu letters", t.size());
    """),
    """
    s = input().strip()
    counts = {}
    for ch in s:
        counts[ch] = counts.get(ch, 0) + 1
    if max(counts.values()) > (len(s) + 1) // 2:
        print(-1)
    else:
        # the most frequent letters first, into the even positions, then the odd ones
        letters = sorted(s, key=lambda ch: (-counts[ch], ch))
        out = [""] * len(s)
        positions = list(range(0, len(s), 2)) + list(range(1, len(s), 2))
        for p, ch in zip(positions, letters):
            out[p] = ch
        print("".join(out))
    """,
    """
    print("".join(sorted(input().strip())))  # wrong: sorting puts equal letters together
    """,
)

problem(
    "bracket-depth", "construct a string with a property",
    """
    Given n and k (1 <= k <= n <= 10^5), print a balanced bracket sequence of n pairs of round
    brackets whose greatest nesting depth is exactly k.
    """,
    "python",
    ["1 1\n", "3 2\n", "5 5\n", "4 1\n", "6 3\n"],
    """
    n, k = map(int, input().split())
    print("(" * k + ")" * k + "()" * (n - k))
    """,
    """
    import sys


    def reject(why):
        print(why, file=sys.stderr)
        sys.exit(1)


    n, k = map(int, open(sys.argv[1]).read().split())
    out = open(sys.argv[2]).read().split()
    if len(out) != 1 or len(out[0]) != 2 * n or set(out[0]) - set("()"):
        reject(f"expected one sequence of {2 * n} brackets")
    depth = deepest = 0
    for ch in out[0]:
        depth += 1 if ch == "(" else -1
        if depth < 0:
            reject("a bracket closes before it opens")
        deepest = max(deepest, depth)
    if depth:
        reject("the sequence is not balanced")
    if deepest != k:
        reject(f"the depth is {deepest}, not {k}")
    print("ok", file=sys.stderr)
    """,
    """
    n, k = map(int, input().split())
    print("()" * (n - k) + "(" * k + ")" * k)
    """,
    """
    n, k = map(int, input().split())
    print("(" * n + ")" * n)  # wrong: depth n
    """,
    checker_language="python",
)

problem(
    "square-root", "floating output within a tolerance",
    """
    Given an integer a (0 <= a <= 10^12), print its square root. An absolute or relative error of
    at most 10^-4 is accepted.
    """,
    "cpp",
    ["2\n", "0\n", "1000000000000\n", "10\n"],
    """
    import math
    print("%.10f" % math.sqrt(int(input())))
    """,
    testlib("""
    long long a = inf.readLong();
    double expected = std::sqrt((double)a);
    double got = ouf.readDouble();
    if (!doubleCompare(expected, got, 1e-4))
        quitf(_wa, "expected %.10f, found %.10f (error %.3g)", expected, got, doubleDelta(expected, got));
    quitf(_ok, "sqrt(%lld) = %.10f", a, got);
    """),
    r"""
    #include <cstdio>
    int main() {
        long long a;
        if (std::scanf("%lld", &a) != 1) return 1;
        double lo = 0, hi = 1e6 + 1;  // bisection
        for (int i = 0; i < 100; i++) {
            double mid = (lo + hi) / 2;
            (mid * mid <= (double)a ? lo : hi) = mid;
        }
        std::printf("%.5f\n", lo);
    }
    """,
    r"""
    #include <cmath>
    #include <cstdio>
    int main() {
        long long a;
        if (std::scanf("%lld", &a) != 1) return 1;
        std::printf("%lld\n", (long long)std::sqrt((double)a));  // wrong: rounded down
    }
    """,
)

problem(
    "line-intersection", "floating output within a tolerance",
    """
    Two lines are each given on a line by two distinct points x1 y1 x2 y2 (integers, absolute
    values at most 10^4); they are not parallel. Print their intersection x y; each coordinate
    may have an absolute or relative error of at most 10^-4.
    """,
    "python",
    ["0 0 1 1\n0 1 1 0\n", "0 0 2 0\n1 -1 1 5\n", "-3 7 4 2\n10 10 -10 -9\n", "0 0 0 1\n5 3 6 3\n"],
    """
    x1, y1, x2, y2, x3, y3, x4, y4 = map(int, open(0).read().split())
    den = (x1 - x2) * (y3 - y4) - (y1 - y2) * (x3 - x4)
    a, b = x1 * y2 - y1 * x2, x3 * y4 - y3 * x4
    x = (a * (x3 - x4) - (x1 - x2) * b) / den
    y = (a * (y3 - y4) - (y1 - y2) * b) / den
    print("%.10f %.10f" % (x, y))
    """,
    """
    import math
    import sys
    from fractions import Fraction


    def reject(why):
        print(why, file=sys.stderr)
        sys.exit(1)


    x1, y1, x2, y2, x3, y3, x4, y4 = map(int, open(sys.argv[1]).read().split())
    den = (x1 - x2) * (y3 - y4) - (y1 - y2) * (x3 - x4)
    a, b = x1 * y2 - y1 * x2, x3 * y4 - y3 * x4
    exact = (Fraction(a * (x3 - x4) - (x1 - x2) * b, den), Fraction(a * (y3 - y4) - (y1 - y2) * b, den))
    out = open(sys.argv[2]).read().split()
    if len(out) != 2:
        reject(f"expected two numbers, found {len(out)} tokens")
    for name, token, want in zip("xy", out, exact):
        try:
            got = float(token)
        except ValueError:
            reject(f"{name}: {token!r} is not a number")
        if not math.isfinite(got):
            reject(f"{name}: {token!r} is not finite")
        want = float(want)
        if abs(got - want) > 1e-4 * max(1.0, abs(want)):
            reject(f"{name} = {got}, expected {want}")
    print("ok", file=sys.stderr)
    """,
    """
    from fractions import Fraction
    x1, y1, x2, y2, x3, y3, x4, y4 = map(int, open(0).read().split())
    # the first line as p + t * d, solved exactly for t
    dx1, dy1, dx2, dy2 = x2 - x1, y2 - y1, x4 - x3, y4 - y3
    t = Fraction((x3 - x1) * dy2 - (y3 - y1) * dx2, dx1 * dy2 - dy1 * dx2)
    print("%.4f %.4f" % (x1 + t * dx1, y1 + t * dy1))
    """,
    """
    x1, y1, x2, y2, x3, y3, x4, y4 = map(int, open(0).read().split())
    den = (x1 - x2) * (y3 - y4) - (y1 - y2) * (x3 - x4)
    a, b = x1 * y2 - y1 * x2, x3 * y4 - y3 * x4
    x = (a * (x3 - x4) - (x1 - x2) * b) / den
    y = (a * (y3 - y4) - (y1 - y2) * b) / den
    print(y, x)  # wrong: the coordinates swapped
    """,
    checker_language="python",
)

problem(
    "euler-path", "any walk with a property",
    """
    A connected undirected graph without loops or repeated edges has n vertices, each with at least
    one edge, and m edges (2 <= n <= 1000, 1 <= m <= 10^4); at most two vertices have odd degree.
    The first line holds n and m, each next line an edge u v. Print m + 1 vertices: a walk that
    uses every edge exactly once.
    """,
    "cpp",
    ["3 3\n1 2\n2 3\n3 1\n", "4 3\n1 2\n2 3\n3 4\n", "5 6\n1 2\n2 3\n3 1\n3 4\n4 5\n5 3\n",
     "4 5\n1 2\n2 3\n3 4\n4 1\n1 3\n"],
    """
    import sys
    d = list(map(int, sys.stdin.read().split()))
    n, m = d[0], d[1]
    adj = [[] for _ in range(n + 1)]
    for i in range(m):
        u, v = d[2 + 2 * i], d[3 + 2 * i]
        adj[u].append((v, i))
        adj[v].append((u, i))
    odd = [v for v in range(1, n + 1) if len(adj[v]) % 2]
    start = odd[0] if odd else 1
    used = [False] * m
    nxt = [0] * (n + 1)
    stack, walk = [start], []
    while stack:
        u = stack[-1]
        while nxt[u] < len(adj[u]) and used[adj[u][nxt[u]][1]]:
            nxt[u] += 1
        if nxt[u] == len(adj[u]):
            walk.append(stack.pop())
        else:
            v, e = adj[u][nxt[u]]
            used[e] = True
            stack.append(v)
    print(*walk[::-1])
    """,
    testlib("""
    int n = inf.readInt(), m = inf.readInt();
    std::map<std::pair<int, int>, int> left;
    for (int i = 0; i < m; i++) {
        int u = inf.readInt(), v = inf.readInt();
        left[{std::min(u, v), std::max(u, v)}]++;
    }
    std::vector<int> walk = ouf.readInts(m + 1, 1, n, "vertex");
    for (int i = 0; i < m; i++) {
        auto e = std::make_pair(std::min(walk[i], walk[i + 1]), std::max(walk[i], walk[i + 1]));
        auto it = left.find(e);
        if (it == left.end()) quitf(_wa, "step %d: no edge %d-%d", i + 1, walk[i], walk[i + 1]);
        if (it->second == 0) quitf(_wa, "step %d: edge %d-%d used twice", i + 1, walk[i], walk[i + 1]);
        it->second--;
    }
    quitf(_ok, "every one of the %d edges once", m);
    """, ["map"]),
    r"""
    #include <cstdio>
    #include <vector>
    int main() {
        int n, m;
        if (std::scanf("%d %d", &n, &m) != 2) return 1;
        std::vector<std::vector<std::pair<int, int>>> adj(n + 1);
        for (int i = 0; i < m; i++) {
            int u, v;
            std::scanf("%d %d", &u, &v);
            adj[u].push_back({v, i});
            adj[v].push_back({u, i});
        }
        int start = n;  // the last odd vertex, else the last one
        for (int v = n; v >= 1; v--)
            if (adj[v].size() % 2) {
                start = v;
                break;
            }
        std::vector<bool> used(m);
        std::vector<size_t> next(n + 1);
        std::vector<int> stack{start}, walk;
        while (!stack.empty()) {
            int u = stack.back();
            while (next[u] < adj[u].size() && used[adj[u][next[u]].second]) next[u]++;
            if (next[u] == adj[u].size()) {
                walk.push_back(u);
                stack.pop_back();
            } else {
                used[adj[u][next[u]].second] = true;
                stack.push_back(adj[u][next[u]].first);
            }
        }
        for (size_t i = 0; i < walk.size(); i++) std::printf("%d%c", walk[i], i + 1 < walk.size() ? ' ' : '\n');
    }
    """,
    r"""
    #include <algorithm>
    #include <cstdio>
    #include <vector>
    int main() {
        int n, m;
        if (std::scanf("%d %d", &n, &m) != 2) return 1;
        std::vector<std::vector<std::pair<int, int>>> adj(n + 1);
        for (int i = 0; i < m; i++) {
            int u, v;
            std::scanf("%d %d", &u, &v);
            adj[u].push_back({v, i});
            adj[v].push_back({u, i});
        }
        for (auto &a : adj) std::sort(a.begin(), a.end());
        int u = 1;
        for (int v = 1; v <= n; v++)
            if (adj[v].size() % 2) {
                u = v;
                break;
            }
        // Wrong: walks on until it is stuck, without going back for the edges it left behind.
        std::vector<bool> used(m);
        std::vector<int> walk{u};
        for (bool moved = true; moved;) {
            moved = false;
            for (auto [v, e] : adj[u])
                if (!used[e]) {
                    used[e] = moved = true;
                    walk.push_back(u = v);
                    break;
                }
        }
        for (size_t i = 0; i < walk.size(); i++) std::printf("%d%c", walk[i], i + 1 < walk.size() ? ' ' : '\n');
    }
    """,
)

problem(
    "spanning-tree", "any valid structure",
    """
    A connected undirected graph has n vertices and m edges numbered 1..m (1 <= n <= 10^5,
    n - 1 <= m <= 2*10^5): the first line holds n and m, the i-th next line edge i as u v. Print
    the numbers of n - 1 edges that form a spanning tree.
    """,
    "python",
    ["4 5\n1 2\n2 3\n3 4\n4 1\n1 3\n", "2 1\n1 2\n", "1 0\n", "5 7\n1 2\n1 3\n2 3\n3 4\n4 5\n3 5\n2 5\n"],
    """
    import sys
    d = list(map(int, sys.stdin.read().split()))
    n, m = d[0], d[1]
    parent = list(range(n + 1))


    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x


    tree = []
    for i in range(m):
        a, b = find(d[2 + 2 * i]), find(d[3 + 2 * i])
        if a != b:
            parent[a] = b
            tree.append(i + 1)
    print(*tree)
    """,
    testlib("""
    int n = inf.readInt(), m = inf.readInt();
    std::vector<std::pair<int, int>> edges(m + 1);
    for (int i = 1; i <= m; i++) edges[i].first = inf.readInt(), edges[i].second = inf.readInt();
    std::vector<int> parent(n + 1);
    for (int i = 1; i <= n; i++) parent[i] = i;
    auto find = [&](int x) {
        while (parent[x] != x) x = parent[x] = parent[parent[x]];
        return x;
    };
    for (int k = 0; k < n - 1; k++) {
        int e = ouf.readInt(1, m, "edge");
        int a = find(edges[e].first), b = find(edges[e].second);
        if (a == b) quitf(_wa, "edge %d closes a cycle (or is listed twice)", e);
        parent[a] = b;
    }
    quitf(_ok, "%d edges, no cycle: a spanning tree", n - 1);
    """),
    """
    import sys
    d = list(map(int, sys.stdin.read().split()))
    n, m = d[0], d[1]
    parent = list(range(n + 1))


    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x


    tree = []
    for i in reversed(range(m)):  # the last edges first
        a, b = find(d[2 + 2 * i]), find(d[3 + 2 * i])
        if a != b:
            parent[a] = b
            tree.append(i + 1)
    print(*sorted(tree))
    """,
    """
    n, m = map(int, input().split())
    print(*range(1, n))  # wrong: the first n - 1 edges may hold a cycle
    """,
)

problem(
    "minimum-spanning-tree", "any optimal structure",
    """
    A connected undirected graph has n vertices and m weighted edges numbered 1..m (1 <= n <= 10^5,
    n - 1 <= m <= 2*10^5, weights 1..10^9): the first line holds n and m, the i-th next line edge
    i as u v w. Print the numbers of n - 1 edges that form a spanning tree of least total weight.
    """,
    "cpp",
    ["3 3\n1 2 1\n2 3 1\n1 3 1\n", "4 5\n1 2 1\n2 3 2\n3 4 1\n4 1 2\n1 3 3\n", "2 1\n1 2 5\n",
     "5 7\n1 2 4\n1 3 4\n2 3 4\n3 4 1\n4 5 2\n3 5 2\n2 5 9\n", "3 3\n1 2 10\n2 3 10\n1 3 1\n"],
    """
    import sys
    d = list(map(int, sys.stdin.read().split()))
    n, m = d[0], d[1]
    edges = sorted(range(m), key=lambda i: d[4 + 3 * i])
    parent = list(range(n + 1))


    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x


    tree = []
    for i in edges:
        a, b = find(d[2 + 3 * i]), find(d[3 + 3 * i])
        if a != b:
            parent[a] = b
            tree.append(i + 1)
    print(*sorted(tree))
    """,
    testlib("""
    int n = inf.readInt(), m = inf.readInt();
    std::vector<int> u(m + 1), v(m + 1);
    std::vector<long long> w(m + 1);
    for (int i = 1; i <= m; i++) u[i] = inf.readInt(), v[i] = inf.readInt(), w[i] = inf.readLong();
    std::vector<int> parent(n + 1);
    auto reset = [&] {
        for (int i = 1; i <= n; i++) parent[i] = i;
    };
    auto find = [&](int x) {
        while (parent[x] != x) x = parent[x] = parent[parent[x]];
        return x;
    };
    std::vector<int> order(m);
    for (int i = 0; i < m; i++) order[i] = i + 1;
    std::sort(order.begin(), order.end(), [&](int a, int b) { return w[a] < w[b]; });
    reset();
    long long best = 0;
    for (int e : order) {
        int a = find(u[e]), b = find(v[e]);
        if (a != b) parent[a] = b, best += w[e];
    }
    reset();
    long long total = 0;
    for (int k = 0; k < n - 1; k++) {
        int e = ouf.readInt(1, m, "edge");
        int a = find(u[e]), b = find(v[e]);
        if (a == b) quitf(_wa, "edge %d closes a cycle (or is listed twice)", e);
        parent[a] = b;
        total += w[e];
    }
    if (total != best) quitf(_wa, "the tree weighs %lld, the lightest %lld", total, best);
    quitf(_ok, "a spanning tree of weight %lld", total);
    """),
    r"""
    #include <algorithm>
    #include <cstdio>
    #include <numeric>
    #include <vector>
    std::vector<int> parent;
    int find(int x) { return parent[x] == x ? x : parent[x] = find(parent[x]); }
    int main() {
        int n, m;
        if (std::scanf("%d %d", &n, &m) != 2) return 1;
        std::vector<int> u(m), v(m), order(m);
        std::vector<long long> w(m);
        for (int i = 0; i < m; i++) std::scanf("%d %d %lld", &u[i], &v[i], &w[i]);
        std::iota(order.begin(), order.end(), 0);
        // Ties go to the later edge.
        std::sort(order.begin(), order.end(), [&](int a, int b) { return w[a] != w[b] ? w[a] < w[b] : a > b; });
        parent.resize(n + 1);
        std::iota(parent.begin(), parent.end(), 0);
        std::vector<int> tree;
        for (int e : order) {
            int a = find(u[e]), b = find(v[e]);
            if (a != b) parent[a] = b, tree.push_back(e + 1);
        }
        std::sort(tree.begin(), tree.end());
        for (size_t i = 0; i < tree.size(); i++) std::printf("%d%c", tree[i], i + 1 < tree.size() ? ' ' : '\n');
        if (tree.empty()) std::puts("");
    }
    """,
    r"""
    #include <cstdio>
    #include <numeric>
    #include <vector>
    std::vector<int> parent;
    int find(int x) { return parent[x] == x ? x : parent[x] = find(parent[x]); }
    int main() {
        int n, m;
        if (std::scanf("%d %d", &n, &m) != 2) return 1;
        parent.resize(n + 1);
        std::iota(parent.begin(), parent.end(), 0);
        std::vector<int> tree;
        for (int i = 0; i < m; i++) {  // wrong: a spanning tree, the weights ignored
            int u, v;
            long long w;
            std::scanf("%d %d %lld", &u, &v, &w);
            int a = find(u), b = find(v);
            if (a != b) parent[a] = b, tree.push_back(i + 1);
        }
        for (size_t i = 0; i < tree.size(); i++) std::printf("%d%c", tree[i], i + 1 < tree.size() ? ' ' : '\n');
    }
    """,
)

problem(
    "n-queens", "any valid placement",
    """
    Given n (1 <= n <= 12), place n queens on an n x n board so that no two attack each other:
    print q_1..q_n, the column (1..n) of the queen in row i; or -1 if it cannot be done.
    """,
    "python",
    ["1\n", "2\n", "4\n", "6\n", "8\n"],
    """
    n = int(input())


    def place(row, cols):
        if row == n:
            return cols
        for c in range(1, n + 1):
            if all(c != d and abs(c - d) != row - r for r, d in enumerate(cols)):
                found = place(row + 1, cols + [c])
                if found:
                    return found
        return None


    q = place(0, [])
    print(*q if q else [-1])
    """,
    """
    import sys


    def reject(why):
        print(why, file=sys.stderr)
        sys.exit(1)


    n = int(open(sys.argv[1]).read())
    possible = open(sys.argv[3]).read().split() != ["-1"]
    out = open(sys.argv[2]).read().split()
    if out == ["-1"]:
        if possible:
            reject(f"{n} queens can be placed, the output says -1")
        print("ok, impossible", file=sys.stderr)
        sys.exit(0)
    if len(out) != n or not all(t.isdigit() and 1 <= int(t) <= n for t in out):
        reject(f"expected {n} columns between 1 and {n}")
    q = [int(t) for t in out]
    for i in range(n):
        for j in range(i):
            if q[i] == q[j] or abs(q[i] - q[j]) == i - j:
                reject(f"the queens of rows {j + 1} and {i + 1} attack each other")
    if not possible:
        raise RuntimeError("the output placed queens the answer says cannot be placed")
    print("ok", file=sys.stderr)
    """,
    """
    n = int(input())


    def place(row, cols):
        if row == n:
            return cols
        for c in range(n, 0, -1):  # the last placement in lexicographic order
            if all(c != d and abs(c - d) != row - r for r, d in enumerate(cols)):
                found = place(row + 1, cols + [c])
                if found:
                    return found
        return None


    q = place(0, [])
    print(*q if q else [-1])
    """,
    """
    n = int(input())
    print(*range(1, n + 1))  # wrong: all on one diagonal
    """,
    checker_language="python",
)

problem(
    "longest-increasing-subsequence", "any optimal structure",
    """
    The first line holds n (1 <= n <= 2000), the second n integers. Print the length L of a longest
    strictly increasing subsequence, then the indices i_1 < ... < i_L (1-based) of one.
    """,
    "cpp",
    ["6\n1 3 2 4 3 5\n", "1\n5\n", "5\n5 4 3 2 1\n", "8\n2 2 3 1 4 0 5 6\n", "5\n5 1 2 3 4\n"],
    """
    n, *a = map(int, open(0).read().split())
    best, prev = [1] * n, [-1] * n
    for i in range(n):
        for j in range(i):
            if a[j] < a[i] and best[j] + 1 > best[i]:
                best[i], prev[i] = best[j] + 1, j
    i = best.index(max(best))
    seq = []
    while i >= 0:
        seq.append(i + 1)
        i = prev[i]
    print(len(seq))
    print(*seq[::-1])
    """,
    testlib("""
    int n = inf.readInt();
    std::vector<long long> a = inf.readLongs(n);
    std::vector<long long> tails;
    for (long long x : a) {
        auto it = std::lower_bound(tails.begin(), tails.end(), x);
        if (it == tails.end()) tails.push_back(x);
        else *it = x;
    }
    int longest = tails.size();
    int l = ouf.readInt(1, n, "L");
    std::vector<int> idx = ouf.readInts(l, 1, n, "index");
    for (int k = 1; k < l; k++) {
        if (idx[k - 1] >= idx[k]) quitf(_wa, "indices %d, %d do not increase", idx[k - 1], idx[k]);
        if (a[idx[k - 1] - 1] >= a[idx[k] - 1]) quitf(_wa, "values at %d, %d do not increase", idx[k - 1], idx[k]);
    }
    if (l < longest) quitf(_wa, "length %d, the longest is %d", l, longest);
    if (l > longest) quitf(_fail, "the output beat the longest subsequence");
    quitf(_ok, "an increasing subsequence of length %d", l);
    """),
    r"""
    #include <cstdio>
    #include <vector>
    int main() {
        int n;
        if (std::scanf("%d", &n) != 1) return 1;
        std::vector<long long> a(n);
        for (auto &x : a) std::scanf("%lld", &x);
        std::vector<int> best(n, 1), prev(n, -1);
        for (int i = 0; i < n; i++)
            for (int j = 0; j < i; j++)
                if (a[j] < a[i] && best[j] + 1 >= best[i]) best[i] = best[j] + 1, prev[i] = j;  // the latest
        int end = 0;
        for (int i = 0; i < n; i++)
            if (best[i] >= best[end]) end = i;
        std::vector<int> seq;
        for (int i = end; i >= 0; i = prev[i]) seq.push_back(i + 1);
        std::printf("%zu\n", seq.size());
        for (size_t i = seq.size(); i-- > 0;) std::printf("%d%c", seq[i], i ? ' ' : '\n');
    }
    """,
    r"""
    #include <cstdio>
    #include <vector>
    int main() {
        int n;
        if (std::scanf("%d", &n) != 1) return 1;
        std::vector<long long> a(n);
        for (auto &x : a) std::scanf("%lld", &x);
        std::vector<int> seq{1};  // wrong: greedy from the first element
        for (int i = 1; i < n; i++)
            if (a[i] > a[seq.back() - 1]) seq.push_back(i + 1);
        std::printf("%zu\n", seq.size());
        for (size_t i = 0; i < seq.size(); i++) std::printf("%d%c", seq[i], i + 1 < seq.size() ? ' ' : '\n');
    }
    """,
)

problem(
    "longest-common-subsequence", "any optimal structure",
    """
    Two lines hold strings s and t of lowercase letters (1 <= |s|, |t| <= 1000) that share at least
    one letter. Print a longest common subsequence of s and t.
    """,
    "python",
    ["abcbdab\nbdcaba\n", "a\na\n", "abc\ncba\n", "xyzab\nabxyz\n", "aaaa\naa\n"],
    """
    s, t = open(0).read().split()
    dp = [[0] * (len(t) + 1) for _ in range(len(s) + 1)]
    for i in range(1, len(s) + 1):
        for j in range(1, len(t) + 1):
            dp[i][j] = dp[i - 1][j - 1] + 1 if s[i - 1] == t[j - 1] else max(dp[i - 1][j], dp[i][j - 1])
    i, j, out = len(s), len(t), []
    while i and j:
        if s[i - 1] == t[j - 1]:
            out.append(s[i - 1])
            i, j = i - 1, j - 1
        elif dp[i - 1][j] >= dp[i][j - 1]:
            i -= 1
        else:
            j -= 1
    print("".join(reversed(out)))
    """,
    testlib("""
    std::string s = inf.readToken(), t = inf.readToken();
    std::vector<std::vector<int>> dp(s.size() + 1, std::vector<int>(t.size() + 1));
    for (size_t i = 1; i <= s.size(); i++)
        for (size_t j = 1; j <= t.size(); j++)
            dp[i][j] = s[i - 1] == t[j - 1] ? dp[i - 1][j - 1] + 1 : std::max(dp[i - 1][j], dp[i][j - 1]);
    int longest = dp[s.size()][t.size()];
    std::string c = ouf.readToken();
    auto within = [](const std::string &sub, const std::string &in) {
        size_t k = 0;
        for (char ch : in)
            if (k < sub.size() && sub[k] == ch) k++;
        return k == sub.size();
    };
    if (!within(c, s)) quitf(_wa, "\\"%s\\" is not a subsequence of s", compress(c).c_str());
    if (!within(c, t)) quitf(_wa, "\\"%s\\" is not a subsequence of t", compress(c).c_str());
    if ((int)c.size() < longest) quitf(_wa, "length %zu, the longest is %d", c.size(), longest);
    if ((int)c.size() > longest) quitf(_fail, "the output beat the longest common subsequence");
    quitf(_ok, "a common subsequence of length %d", longest);
    """),
    """
    s, t = open(0).read().split()
    dp = [[0] * (len(t) + 1) for _ in range(len(s) + 1)]
    for i in range(1, len(s) + 1):
        for j in range(1, len(t) + 1):
            dp[i][j] = dp[i - 1][j - 1] + 1 if s[i - 1] == t[j - 1] else max(dp[i - 1][j], dp[i][j - 1])
    i, j, out = len(s), len(t), []
    while i and j:
        if s[i - 1] == t[j - 1]:
            out.append(s[i - 1])
            i, j = i - 1, j - 1
        elif dp[i][j - 1] >= dp[i - 1][j]:  # the other way first
            j -= 1
        else:
            i -= 1
    print("".join(reversed(out)))
    """,
    """
    s, t = open(0).read().split()
    out, k = [], 0
    for ch in s:  # wrong: greedy matching
        found = t.find(ch, k)
        if found >= 0:
            out.append(ch)
            k = found + 1
    print("".join(out))
    """,
)

problem(
    "interval-scheduling", "any optimal structure",
    """
    The first line holds n (1 <= n <= 10^5), each next line a closed interval l r (0 <= l <= r <=
    10^9); the intervals are numbered 1..n. Choose as many pairwise disjoint intervals as possible
    (intervals that share a point overlap): print their count k, then their k numbers.
    """,
    "python",
    ["3\n1 5\n4 7\n6 10\n", "1\n0 0\n", "4\n1 2\n3 4\n5 6\n7 8\n", "5\n1 3\n2 4\n3 5\n4 6\n5 7\n"],
    """
    n, *d = map(int, open(0).read().split())
    order = sorted(range(n), key=lambda i: (d[2 * i + 1], i))
    chosen, end = [], -1
    for i in order:
        if d[2 * i] > end:
            chosen.append(i + 1)
            end = d[2 * i + 1]
    print(len(chosen))
    print(*sorted(chosen))
    """,
    testlib("""
    int n = inf.readInt();
    std::vector<std::pair<long long, long long>> iv(n);
    for (auto &p : iv) p.first = inf.readLong(), p.second = inf.readLong();
    std::vector<int> order(n);
    for (int i = 0; i < n; i++) order[i] = i;
    std::sort(order.begin(), order.end(), [&](int a, int b) { return iv[a].second < iv[b].second; });
    int best = 0;
    long long end = -1;
    for (int i : order)
        if (iv[i].first > end) best++, end = iv[i].second;
    int k = ouf.readInt(1, n, "k");
    std::vector<int> chosen = ouf.readInts(k, 1, n, "interval");
    std::vector<std::pair<long long, long long>> picked;
    for (int i : chosen) picked.push_back(iv[i - 1]);
    std::sort(picked.begin(), picked.end());
    for (int i = 1; i < k; i++)
        if (picked[i].first <= picked[i - 1].second)
            quitf(_wa, "[%lld, %lld] and [%lld, %lld] overlap (or one is listed twice)", picked[i - 1].first,
                  picked[i - 1].second, picked[i].first, picked[i].second);
    if (k < best) quitf(_wa, "%d intervals, %d can be chosen", k, best);
    if (k > best) quitf(_fail, "the output beat the optimum");
    quitf(_ok, "%d disjoint intervals", k);
    """),
    """
    n, *d = map(int, open(0).read().split())
    order = sorted(range(n), key=lambda i: (-d[2 * i], i))  # the latest start first
    chosen, start = [], 10**18
    for i in order:
        if d[2 * i + 1] < start:
            chosen.append(i + 1)
            start = d[2 * i]
    print(len(chosen))
    print(*sorted(chosen))
    """,
    """
    n, *d = map(int, open(0).read().split())
    order = sorted(range(n), key=lambda i: (d[2 * i + 1] - d[2 * i], i))  # wrong: shortest first
    chosen = []
    for i in order:
        if all(d[2 * i] > d[2 * j + 1] or d[2 * j] > d[2 * i + 1] for j in chosen):
            chosen.append(i)
    print(len(chosen))
    print(*sorted(i + 1 for i in chosen))
    """,
)

problem(
    "coin-change", "any optimal structure",
    """
    The first line holds n and A (1 <= n <= 100, 0 <= A <= 10^4), the second n distinct coin values
    (1..10^4; each may be used any number of times). Print the least number k of coins that sum to
    A, then the k coin values on the next line (any order); or -1 if A cannot be paid.
    """,
    "python",
    ["3 6\n1 3 4\n", "2 7\n2 4\n", "1 0\n5\n", "4 8\n1 3 5 7\n", "3 12\n1 6 4\n"],
    """
    n, a, *c = map(int, open(0).read().split())
    inf = float("inf")
    best, coin = [0] + [inf] * a, [0] * (a + 1)
    for x in range(1, a + 1):
        for v in sorted(c):
            if v <= x and best[x - v] + 1 < best[x]:
                best[x], coin[x] = best[x - v] + 1, v
    if best[a] == inf:
        print(-1)
    else:
        used = []
        while a:
            used.append(coin[a])
            a -= coin[a]
        print(len(used))
        print(*used)
    """,
    """
    import sys


    def reject(why):
        print(why, file=sys.stderr)
        sys.exit(1)


    n, a, *coins = map(int, open(sys.argv[1]).read().split())
    best = [0] + [None] * a
    for x in range(1, a + 1):
        options = [best[x - v] for v in coins if v <= x and best[x - v] is not None]
        best[x] = min(options) + 1 if options else None
    out = open(sys.argv[2]).read().split()
    if not out or not all(t.lstrip("-").isdigit() for t in out):
        reject(f"expected integers, found {out[:3]}")
    if out == ["-1"]:
        if best[a] is not None:
            reject(f"{a} can be paid with {best[a]} coins, the output says -1")
        print("ok, cannot be paid", file=sys.stderr)
        sys.exit(0)
    k, used = int(out[0]), [int(t) for t in out[1:]]
    if k != len(used):
        reject(f"the output says {k} coins and lists {len(used)}")
    if any(v not in coins for v in used):
        reject("a listed value is not a coin")
    if sum(used) != a:
        reject(f"the coins sum to {sum(used)}, not {a}")
    if best[a] is None or k < best[a]:
        raise RuntimeError("the output beat the optimum")
    if k > best[a]:
        reject(f"{k} coins, {best[a]} suffice")
    print(f"ok, {k} coins", file=sys.stderr)
    """,
    """
    n, a, *c = map(int, open(0).read().split())
    inf = float("inf")
    best, coin = [0] + [inf] * a, [0] * (a + 1)
    for x in range(1, a + 1):
        for v in sorted(c, reverse=True):  # ties go to the largest coin
            if v <= x and best[x - v] + 1 < best[x]:
                best[x], coin[x] = best[x - v] + 1, v
    if best[a] == inf:
        print(-1)
    else:
        used = []
        while a:
            used.append(coin[a])
            a -= coin[a]
        print(len(used))
        print(*used)
    """,
    """
    n, a, *c = map(int, open(0).read().split())
    used = []
    for v in sorted(c, reverse=True):  # wrong: greedy, largest coin first
        while a >= v:
            used.append(v)
            a -= v
    if a:
        print(-1)
    else:
        print(len(used))
        print(*used)
    """,
    checker_language="python",
)

problem(
    "distinct-zero-sum", "print any solution",
    """
    Given n (1 <= n <= 1000), print n distinct integers between -10^9 and 10^9 whose sum is 0.
    """,
    "cpp",
    ["1\n", "2\n", "5\n", "6\n"],
    """
    n = int(input())
    out = []
    for i in range(1, n // 2 + 1):
        out += [i, -i]
    if n % 2:
        out.append(0)
    print(*out)
    """,
    testlib("""
    int n = inf.readInt();
    std::vector<long long> v = ouf.readLongs(n, -1000000000LL, 1000000000LL, "value");
    long long sum = 0;
    for (long long x : v) sum += x;
    std::sort(v.begin(), v.end());
    for (int i = 1; i < n; i++)
        if (v[i] == v[i - 1]) quitf(_wa, "%lld appears twice", v[i]);
    if (sum != 0) quitf(_wa, "the sum is %lld", sum);
    quitf(_ok, "%d distinct integers, sum 0", n);
    """),
    r"""
    #include <cstdio>
    int main() {
        long long n;
        if (std::scanf("%lld", &n) != 1) return 1;
        for (long long i = 1; i < n; i++) std::printf("%lld ", i);
        std::printf("%lld\n", -(n - 1) * n / 2);
    }
    """,
    r"""
    #include <cstdio>
    int main() {
        int n;
        if (std::scanf("%d", &n) != 1) return 1;
        for (int i = 0; i < n; i++) std::printf("0%c", i + 1 < n ? ' ' : '\n');  // wrong: not distinct
    }
    """,
)

problem(
    "k-inversions", "any valid permutation",
    """
    Given n and k (1 <= n <= 1000, 0 <= k <= n(n-1)/2), print a permutation of 1..n with exactly k
    inversions (pairs i < j with p_i > p_j).
    """,
    "python",
    ["1 0\n", "3 3\n", "4 2\n", "5 0\n", "6 7\n"],
    """
    n, k = map(int, input().split())
    left, out = list(range(1, n + 1)), []
    while left:
        r = min(k, len(left) - 1)  # as many inversions as early as possible
        out.append(left.pop(r))
        k -= r
    print(*out)
    """,
    testlib("""
    int n = inf.readInt();
    long long k = inf.readLong();
    std::vector<int> p = ouf.readInts(n, 1, n, "p_i");
    std::vector<bool> seen(n + 1);
    for (int x : p) {
        if (seen[x]) quitf(_wa, "%d appears twice", x);
        seen[x] = true;
    }
    long long inversions = 0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) inversions += p[i] > p[j];
    if (inversions != k) quitf(_wa, "%lld inversions, not %lld", inversions, k);
    quitf(_ok, "%lld inversions", k);
    """),
    """
    n, k = map(int, input().split())
    code = [0] * n
    for i in reversed(range(n)):  # as many inversions as late as possible
        code[i] = min(k, n - 1 - i)
        k -= code[i]
    left = list(range(1, n + 1))
    print(*(left.pop(c) for c in code))
    """,
    """
    n, k = map(int, input().split())
    m = min(n, k + 1)
    print(*list(range(m, 0, -1)) + list(range(m + 1, n + 1)))  # wrong: m(m-1)/2 inversions
    """,
)

problem(
    "grid-path", "any shortest path",
    """
    The first line holds h and w (1 <= h, w <= 100), the next h lines the grid: '.' free, '#' wall,
    one 'S' (start) and one 'T' (target), both free. Moving U, D, L or R to a free neighbouring
    cell, print the length d of a shortest way from S to T, then the d moves as one string; or -1
    if T cannot be reached.
    """,
    "cpp",
    ["3 3\nS..\n.#.\n..T\n", "1 5\nS.#.T\n", "2 2\nST\n..\n", "4 5\nS....\n.##..\n.#...\n...#T\n"],
    """
    import sys
    from collections import deque
    lines = sys.stdin.read().split()
    h, w, g = int(lines[0]), int(lines[1]), lines[2:]
    cells = [(r, c) for r in range(h) for c in range(w)]
    s = next(p for p in cells if g[p[0]][p[1]] == "S")
    t = next(p for p in cells if g[p[0]][p[1]] == "T")
    came = {s: None}
    q = deque([s])
    while q:
        r, c = q.popleft()
        for move, dr, dc in (("U", -1, 0), ("D", 1, 0), ("L", 0, -1), ("R", 0, 1)):
            p = (r + dr, c + dc)
            if 0 <= p[0] < h and 0 <= p[1] < w and g[p[0]][p[1]] != "#" and p not in came:
                came[p] = ((r, c), move)
                q.append(p)
    if t not in came:
        print(-1)
    else:
        moves, p = [], t
        while came[p]:
            p, move = came[p]
            moves.append(move)
        print(len(moves))
        print("".join(reversed(moves)))
    """,
    testlib("""
    int h = inf.readInt(), w = inf.readInt();
    std::vector<std::string> g(h);
    int sr = 0, sc = 0, tr = 0, tc = 0;
    for (int r = 0; r < h; r++) {
        g[r] = inf.readToken();
        for (int c = 0; c < w; c++) {
            if (g[r][c] == 'S') sr = r, sc = c;
            if (g[r][c] == 'T') tr = r, tc = c;
        }
    }
    const int dr[] = {-1, 1, 0, 0}, dc[] = {0, 0, -1, 1};
    const std::string names = "UDLR";
    std::vector<std::vector<int>> dist(h, std::vector<int>(w, -1));
    std::queue<std::pair<int, int>> q;
    dist[sr][sc] = 0;
    q.push({sr, sc});
    while (!q.empty()) {
        auto [r, c] = q.front();
        q.pop();
        for (int k = 0; k < 4; k++) {
            int nr = r + dr[k], nc = c + dc[k];
            if (nr >= 0 && nr < h && nc >= 0 && nc < w && g[nr][nc] != '#' && dist[nr][nc] < 0)
                dist[nr][nc] = dist[r][c] + 1, q.push({nr, nc});
        }
    }
    int best = dist[tr][tc];
    int d = ouf.readInt(-1, h * w, "d");
    if (d == -1) {
        if (best >= 0) quitf(_wa, "T is %d moves away, the output says -1", best);
        quitf(_ok, "T cannot be reached");
    }
    std::string moves = d ? ouf.readToken() : "";
    if ((int)moves.size() != d) quitf(_wa, "the output says %d moves and lists %zu", d, moves.size());
    int r = sr, c = sc;
    for (size_t i = 0; i < moves.size(); i++) {
        size_t k = names.find(moves[i]);
        if (k == std::string::npos) quitf(_wa, "move %zu is '%c'", i + 1, moves[i]);
        r += dr[k], c += dc[k];
        if (r < 0 || r >= h || c < 0 || c >= w || g[r][c] == '#')
            quitf(_wa, "move %zu leaves the grid or hits a wall", i + 1);
    }
    if (r != tr || c != tc) quitf(_wa, "the moves end at (%d, %d), not at T", r + 1, c + 1);
    if (d != best) quitf(_wa, "%d moves, the shortest way has %d", d, best);
    quitf(_ok, "a shortest way of %d moves", d);
    """, ["queue"]),
    r"""
    #include <cstdio>
    #include <queue>
    #include <string>
    #include <vector>
    int main() {
        int h, w;
        if (std::scanf("%d %d", &h, &w) != 2) return 1;
        std::vector<std::string> g(h);
        int s = 0, t = 0;
        char buffer[128];
        for (int r = 0; r < h; r++) {
            std::scanf("%127s", buffer);
            g[r] = buffer;
            for (int c = 0; c < w; c++) {
                if (g[r][c] == 'S') s = r * w + c;
                if (g[r][c] == 'T') t = r * w + c;
            }
        }
        const int dr[] = {0, 0, 1, -1}, dc[] = {1, -1, 0, 0};  // R, L, D, U: the other order
        const char names[] = "RLDU";
        std::vector<int> from(h * w, -1);
        std::vector<char> move(h * w);
        std::queue<int> q;
        from[s] = s;
        q.push(s);
        while (!q.empty()) {
            int p = q.front();
            q.pop();
            for (int k = 0; k < 4; k++) {
                int r = p / w + dr[k], c = p % w + dc[k];
                if (r < 0 || r >= h || c < 0 || c >= w || g[r][c] == '#' || from[r * w + c] >= 0) continue;
                from[r * w + c] = p, move[r * w + c] = names[k];
                q.push(r * w + c);
            }
        }
        if (from[t] < 0) {
            std::puts("-1");
            return 0;
        }
        std::string path;
        for (int p = t; p != s; p = from[p]) path.insert(path.begin(), move[p]);
        std::printf("%zu\n%s\n", path.size(), path.c_str());
    }
    """,
    r"""
    #include <cstdio>
    #include <string>
    #include <vector>
    int main() {
        int h, w;
        if (std::scanf("%d %d", &h, &w) != 2) return 1;
        int sr = 0, sc = 0, tr = 0, tc = 0;
        char buffer[128];
        for (int r = 0; r < h; r++) {
            std::scanf("%127s", buffer);
            for (int c = 0; c < w; c++) {
                if (buffer[c] == 'S') sr = r, sc = c;
                if (buffer[c] == 'T') tr = r, tc = c;
            }
        }
        // Wrong: heads straight for T, through the walls.
        std::string path(tc > sc ? tc - sc : sc - tc, tc > sc ? 'R' : 'L');
        path += std::string(tr > sr ? tr - sr : sr - tr, tr > sr ? 'D' : 'U');
        std::printf("%zu\n%s\n", path.size(), path.c_str());
    }
    """,
)

problem(
    "bezout", "print any solution",
    """
    Given a and b (1 <= a, b <= 10^9), print integers x and y (|x|, |y| <= 2*10^9) with
    a*x + b*y = gcd(a, b).
    """,
    "cpp",
    ["3 5\n", "6 4\n", "1 1\n", "1000000000 999999999\n", "12 18\n"],
    """
    def ext(a, b):
        if b == 0:
            return a, 1, 0
        g, x, y = ext(b, a % b)
        return g, y, x - a // b * y


    a, b = map(int, input().split())
    g, x, y = ext(a, b)
    print(x, y)
    """,
    testlib("""
    long long a = inf.readLong(), b = inf.readLong();
    long long x = ouf.readLong(-2000000000LL, 2000000000LL, "x");
    long long y = ouf.readLong(-2000000000LL, 2000000000LL, "y");
    long long g = a, r = b;
    while (r) std::swap(g %= r, r);
    if (a * x + b * y != g) quitf(_wa, "%lld*%lld + %lld*%lld = %lld, not gcd %lld", a, x, b, y, a * x + b * y, g);
    quitf(_ok, "%lld*%lld + %lld*%lld = %lld", a, x, b, y, g);
    """),
    r"""
    #include <cstdio>
    long long ext(long long a, long long b, long long &x, long long &y) {
        if (b == 0) {
            x = 1, y = 0;
            return a;
        }
        long long x1, y1, g = ext(b, a % b, x1, y1);
        x = y1, y = x1 - a / b * y1;
        return g;
    }
    int main() {
        long long a, b, x, y;
        if (std::scanf("%lld %lld", &a, &b) != 2) return 1;
        long long g = ext(a, b, x, y);
        std::printf("%lld %lld\n", x + b / g, y - a / g);  // another solution of the same equation
    }
    """,
    r"""
    #include <cstdio>
    long long ext(long long a, long long b, long long &x, long long &y) {
        if (b == 0) {
            x = 1, y = 0;
            return a;
        }
        long long x1, y1, g = ext(b, a % b, x1, y1);
        x = y1, y = x1 - a / b * y1;
        return g;
    }
    int main() {
        long long a, b, x, y;
        if (std::scanf("%lld %lld", &a, &b) != 2) return 1;
        ext(a, b, x, y);
        std::printf("%lld %lld\n", y, x);  // wrong: swapped
    }
    """,
)

problem(
    "equal-sum-halves", "any subset with a given sum",
    """
    Given n (1 <= n <= 10^5), split the numbers 1..n into two sets with equal sums: print the size
    k of one set, then its k numbers; or -1 if it cannot be done.
    """,
    "python",
    ["3\n", "4\n", "1\n", "2\n", "7\n", "8\n"],
    """
    n = int(input())
    total = n * (n + 1) // 2
    if total % 2:
        print(-1)
    else:
        left, part = total // 2, []
        for i in range(n, 0, -1):
            if i <= left:
                part.append(i)
                left -= i
        print(len(part))
        print(*part)
    """,
    testlib("""
    int n = inf.readInt();
    long long total = 1LL * n * (n + 1) / 2;
    bool exists = ans.readInt() != -1;
    int k = ouf.readInt(-1, n, "k");
    if (k == -1) {
        if (exists) quitf(_wa, "1..%d can be split, the output says -1", n);
        quitf(_ok, "cannot be split");
    }
    std::vector<int> part = ouf.readInts(k, 1, n, "number");
    std::vector<bool> seen(n + 1);
    long long sum = 0;
    for (int x : part) {
        if (seen[x]) quitf(_wa, "%d appears twice", x);
        seen[x] = true;
        sum += x;
    }
    if (2 * sum != total) quitf(_wa, "the set sums to %lld, half of %lld is not that", sum, total);
    if (!exists) quitf(_fail, "the output split 1..n, the answer says it cannot be");
    quitf(_ok, "%d numbers summing to %lld", k, sum);
    """),
    """
    n = int(input())
    if n % 4 in (1, 2):
        print(-1)
    else:
        # blocks of four a, a+1, a+2, a+3 give a and a+3 to this set; with n % 4 == 3, 1 and 2
        # balance 3
        part, a = ([1, 2], 4) if n % 4 == 3 else ([], 1)
        while a + 3 <= n:
            part += [a, a + 3]
            a += 4
        print(len(part))
        print(*part)
    """,
    """
    n = int(input())
    if n % 4 in (1, 2):
        print(-1)
    else:
        odd = list(range(1, n + 1, 2))  # wrong: the odd numbers
        print(len(odd))
        print(*odd)
    """,
)

problem(
    "tree-vertex-cover", "any optimal structure",
    """
    A tree has n vertices (1 <= n <= 10^5): the first line holds n, each of the n - 1 next lines an
    edge u v. Print the size k of a smallest set of vertices that touches every edge, then the k
    vertices on the next line.
    """,
    "cpp",
    ["1\n", "2\n1 2\n", "5\n1 2\n1 3\n3 4\n3 5\n", "4\n1 2\n2 3\n3 4\n",
     "7\n1 2\n2 3\n3 4\n4 5\n5 6\n6 7\n"],
    """
    import sys
    d = list(map(int, sys.stdin.read().split()))
    n = d[0]
    adj = [[] for _ in range(n + 1)]
    for i in range(n - 1):
        u, v = d[1 + 2 * i], d[2 + 2 * i]
        adj[u].append(v)
        adj[v].append(u)
    parent, order = [0] * (n + 1), [1]
    for u in order:
        for v in adj[u]:
            if v != parent[u]:
                parent[v] = u
                order.append(v)
    take, skip = [1] * (n + 1), [0] * (n + 1)  # cover sizes of each subtree with / without its root
    for u in reversed(order):
        for v in adj[u]:
            if v != parent[u]:
                take[u] += min(take[v], skip[v])
                skip[u] += take[v]
    cover, chosen = [], [False] * (n + 1)
    for u in order:
        must = u != 1 and not chosen[parent[u]]
        if must or take[u] < skip[u]:
            chosen[u] = True
            cover.append(u)
    print(len(cover))
    print(*sorted(cover))
    """,
    testlib("""
    int n = inf.readInt();
    std::vector<std::vector<int>> adj(n + 1);
    std::vector<std::pair<int, int>> edges(n - 1);
    for (auto &e : edges) {
        e.first = inf.readInt(), e.second = inf.readInt();
        adj[e.first].push_back(e.second);
        adj[e.second].push_back(e.first);
    }
    std::vector<int> parent(n + 1), order{1};
    for (size_t i = 0; i < order.size(); i++)
        for (int v : adj[order[i]])
            if (v != parent[order[i]]) parent[v] = order[i], order.push_back(v);
    std::vector<int> take(n + 1, 1), skip(n + 1, 0);
    for (size_t i = order.size(); i-- > 0;) {
        int u = order[i];
        for (int v : adj[u])
            if (v != parent[u]) take[u] += std::min(take[v], skip[v]), skip[u] += take[v];
    }
    int best = std::min(take[1], skip[1]);
    int k = ouf.readInt(0, n, "k");
    std::vector<int> cover = ouf.readInts(k, 1, n, "vertex");
    std::vector<bool> in(n + 1);
    for (int v : cover) {
        if (in[v]) quitf(_wa, "vertex %d appears twice", v);
        in[v] = true;
    }
    for (auto [u, v] : edges)
        if (!in[u] && !in[v]) quitf(_wa, "edge %d-%d is not covered", u, v);
    if (k > best) quitf(_wa, "%d vertices, %d suffice", k, best);
    if (k < best) quitf(_fail, "the output beat the optimum");
    quitf(_ok, "a cover of %d vertices", k);
    """),
    r"""
    #include <algorithm>
    #include <cstdio>
    #include <vector>
    int main() {
        int n;
        if (std::scanf("%d", &n) != 1) return 1;
        std::vector<std::vector<int>> adj(n + 1);
        for (int i = 0; i < n - 1; i++) {
            int u, v;
            std::scanf("%d %d", &u, &v);
            adj[u].push_back(v);
            adj[v].push_back(u);
        }
        std::vector<int> parent(n + 1), order{1};
        for (size_t i = 0; i < order.size(); i++)
            for (int v : adj[order[i]])
                if (v != parent[order[i]]) parent[v] = order[i], order.push_back(v);
        // Leaves up: an edge to the parent not yet covered puts the parent in.
        std::vector<bool> in(n + 1);
        for (size_t i = order.size(); i-- > 1;) {
            int u = order[i];
            if (!in[u] && !in[parent[u]]) in[parent[u]] = true;
        }
        std::vector<int> cover;
        for (int v = 1; v <= n; v++)
            if (in[v]) cover.push_back(v);
        std::printf("%zu\n", cover.size());
        for (size_t i = 0; i < cover.size(); i++) std::printf("%d%c", cover[i], i + 1 < cover.size() ? ' ' : '\n');
        if (cover.empty()) std::puts("");
    }
    """,
    r"""
    #include <cstdio>
    #include <vector>
    int main() {
        int n;
        if (std::scanf("%d", &n) != 1) return 1;
        std::vector<std::vector<int>> adj(n + 1);
        for (int i = 0; i < n - 1; i++) {
            int u, v;
            std::scanf("%d %d", &u, &v);
            adj[u].push_back(v);
            adj[v].push_back(u);
        }
        std::vector<int> depth(n + 1, -1), order{1}, cover;
        depth[1] = 0;
        for (size_t i = 0; i < order.size(); i++)
            for (int v : adj[order[i]])
                if (depth[v] < 0) depth[v] = depth[order[i]] + 1, order.push_back(v);
        for (int v = 1; v <= n; v++)
            if (depth[v] % 2 == 0) cover.push_back(v);  // wrong: a cover, not always a smallest one
        std::printf("%zu\n", cover.size());
        for (size_t i = 0; i < cover.size(); i++) std::printf("%d%c", cover[i], i + 1 < cover.size() ? ' ' : '\n');
    }
    """,
)

problem(
    "rounding-with-sum", "print any solution",
    """
    The first line holds n (1 <= n <= 10^5), the second n real numbers a_i, each written with
    exactly two digits after the point (|a_i| <= 10^6), whose sum is an integer. Print n integers
    b_i, each the floor or the ceiling of a_i, whose sum equals the sum of the a_i.
    """,
    "cpp",
    ["3\n0.50 0.50 1.00\n", "2\n-1.25 1.25\n", "1\n3.00\n", "4\n0.25 0.25 0.25 0.25\n",
     "3\n-0.40 -0.30 0.70\n"],
    """
    n, *a = open(0).read().split()
    cents = [round(float(x) * 100) for x in a]
    b = [c // 100 for c in cents]
    missing = sum(cents) // 100 - sum(b)
    for i, c in enumerate(cents):
        if missing and c % 100:
            b[i] += 1
            missing -= 1
    print(*b)
    """,
    testlib("""
    int n = inf.readInt();
    long long total = 0;
    std::vector<long long> lo(n), hi(n);
    for (int i = 0; i < n; i++) {
        std::string t = inf.readToken();
        bool negative = t[0] == '-';
        std::string digits = t.substr(negative);
        size_t dot = digits.find('.');
        ensuref(dot != std::string::npos && digits.size() - dot == 3, "a_%d = %s", i + 1, t.c_str());
        long long c = std::atoll(digits.substr(0, dot).c_str()) * 100 + std::atoll(digits.substr(dot + 1).c_str());
        if (negative) c = -c;
        total += c;
        lo[i] = (c >= 0 ? c : c - 99) / 100;  // floor
        hi[i] = lo[i] + (c % 100 != 0);
    }
    long long sum = 0;
    for (int i = 0; i < n; i++) {
        long long b = ouf.readLong(-2000000LL, 2000000LL, "b_i");
        if (b != lo[i] && b != hi[i]) quitf(_wa, "b_%d = %lld is neither %lld nor %lld", i + 1, b, lo[i], hi[i]);
        sum += b;
    }
    if (sum * 100 != total) quitf(_wa, "the b_i sum to %lld, the a_i to %lld", sum, total / 100);
    quitf(_ok, "sum %lld", sum);
    """),
    r"""
    #include <cstdio>
    #include <cstdlib>
    #include <cstring>
    #include <vector>
    int main() {
        int n;
        if (std::scanf("%d", &n) != 1) return 1;
        std::vector<long long> cents(n), b(n);
        long long total = 0, floors = 0;
        char t[64];
        for (int i = 0; i < n; i++) {
            std::scanf("%63s", t);
            bool negative = t[0] == '-';
            char *digits = t + negative, *dot = std::strchr(digits, '.');
            *dot = 0;
            long long c = std::atoll(digits) * 100 + std::atoll(dot + 1);
            cents[i] = negative ? -c : c;
            b[i] = (cents[i] >= 0 ? cents[i] : cents[i] - 99) / 100;
            total += cents[i], floors += b[i];
        }
        long long missing = total / 100 - floors;
        for (int i = n - 1; i >= 0 && missing; i--)  // the last ones round up
            if (cents[i] % 100) b[i]++, missing--;
        for (int i = 0; i < n; i++) std::printf("%lld%c", b[i], i + 1 < n ? ' ' : '\n');
    }
    """,
    r"""
    #include <cmath>
    #include <cstdio>
    int main() {
        int n;
        if (std::scanf("%d", &n) != 1) return 1;
        for (int i = 0; i < n; i++) {
            double a;
            std::scanf("%lf", &a);
            std::printf("%lld%c", std::llround(a), i + 1 < n ? ' ' : '\n');  // wrong: the sum drifts
        }
    }
    """,
)

problem(
    "any-duplicate", "print any solution",
    """
    The first line holds n (1 <= n <= 10^5), the second n + 1 integers, each between 1 and n. Print
    any value that appears at least twice.
    """,
    "python",
    ["3\n1 3 2 3\n", "4\n1 2 2 1 4\n", "1\n1 1\n", "5\n5 5 4 4 3 3\n"],
    """
    n, *a = map(int, open(0).read().split())
    print(min(x for x in set(a) if a.count(x) > 1))
    """,
    testlib("""
    int n = inf.readInt();
    std::vector<int> count(n + 1);
    for (int i = 0; i <= n; i++) count[inf.readInt(1, n)]++;
    int x = ouf.readInt(1, n, "value");
    if (count[x] < 2) quitf(_wa, "%d appears %d time(s)", x, count[x]);
    quitf(_ok, "%d appears %d times", x, count[x]);
    """),
    """
    n, *a = map(int, open(0).read().split())
    seen = set()
    for x in a:  # the first value seen twice
        if x in seen:
            print(x)
            break
        seen.add(x)
    """,
    """
    n, *a = map(int, open(0).read().split())
    print(a[0])  # wrong: the first value need not repeat
    """,
)

problem(
    "peak", "print any solution",
    """
    The first line holds n (1 <= n <= 10^5), the second n integers a_1..a_n. Print any index i with
    a_i >= a_(i-1) and a_i >= a_(i+1), where neighbours outside the array do not count.
    """,
    "cpp",
    ["5\n1 3 2 5 4\n", "1\n7\n", "4\n1 2 3 4\n", "6\n5 5 5 5 5 5\n", "3\n3 1 2\n"],
    """
    n, *a = map(int, open(0).read().split())
    print(next(i + 1 for i in range(n) if (i == 0 or a[i] >= a[i - 1]) and (i == n - 1 or a[i] >= a[i + 1])))
    """,
    testlib("""
    int n = inf.readInt();
    std::vector<long long> a = inf.readLongs(n);
    int i = ouf.readInt(1, n, "i") - 1;
    if (i > 0 && a[i] < a[i - 1]) quitf(_wa, "a_%d = %lld < a_%d = %lld", i + 1, a[i], i, a[i - 1]);
    if (i + 1 < n && a[i] < a[i + 1]) quitf(_wa, "a_%d = %lld < a_%d = %lld", i + 1, a[i], i + 2, a[i + 1]);
    quitf(_ok, "a peak at %d", i + 1);
    """),
    r"""
    #include <cstdio>
    int main() {
        int n;
        if (std::scanf("%d", &n) != 1) return 1;
        long long best = 0;
        int at = 0;
        for (int i = 1; i <= n; i++) {
            long long x;
            std::scanf("%lld", &x);
            if (i == 1 || x >= best) best = x, at = i;  // the last greatest value
        }
        std::printf("%d\n", at);
    }
    """,
    r"""
    #include <cstdio>
    int main() {
        int n;
        if (std::scanf("%d", &n) != 1) return 1;
        long long low = 0;
        int at = 0;
        for (int i = 1; i <= n; i++) {
            long long x;
            std::scanf("%lld", &x);
            if (i == 1 || x < low) low = x, at = i;  // wrong: the least value
        }
        std::printf("%d\n", at);
    }
    """,
)
