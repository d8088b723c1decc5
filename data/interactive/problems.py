"""HACRL's own interactive problems (issue 56): statement, cases, interactor and the four
solutions of each, side by side. `build.py` writes the task and solution files from them.

Every interactor is Python, reads the case from `sys.argv[1]` (`input.txt` in the sandbox),
talks through stdin/stdout (flushing each line), reads at most `LINE` characters per line (a
flooding program cannot make it hold more), and exits 0 to accept, 1 to reject, with its reason
on stderr.
"""

# Shared by every interactor: bounded line reading and the rejection.
PRELUDE = '''import sys

LINE = 1 << 16


def fail(why):
    print(why, file=sys.stderr)
    sys.exit(1)


def ask():
    line = sys.stdin.readline(LINE)
    if not line:
        fail("the program ended without an answer")
    return line.split()


def number(token, lo, hi):
    if not token.lstrip("-").isdigit() or not lo <= int(token) <= hi:
        fail(f"{token[:20]!r} is not an integer in [{lo}, {hi}]")
    return int(token)
'''

FLUSH_PY = "Print each line with flush=True (or sys.stdout.flush())."
FLUSH_CPP = "Flush after each line (std::endl, fflush(stdout) or std::cout.flush())."


def statement(text, language):
    flush = FLUSH_PY if language == "python" else FLUSH_CPP
    name = {"python": "Python", "cpp": "C++"}[language]
    return (f"{text}\n\nThis is an interactive problem: your program talks to an interactor "
            f"through standard input and output. {flush}\n\nWrite a {name} program.")


GUESS = {
    "id": "guess-number",
    "language": "python",
    "text": "The interactor prints n (1 <= n <= 10^9); it has fixed a hidden integer x,\n"
            "1 <= x <= n. Ask at most 32 queries `? y` (1 <= y <= n): the answer is `<` if\n"
            "x < y, `>` if x > y, `=` if x = y. Then print `! x` and exit.",
    "cases": [("1 1", "1"), ("100 37", "37"), ("1000000000 999999999", "999999999"),
              ("2 2", "2")],
    "interactor": PRELUDE + '''
n, x = map(int, open(sys.argv[1]).read().split())
print(n, flush=True)
queries = 0
while True:
    parts = ask()
    if len(parts) != 2 or parts[0] not in ("?", "!"):
        fail(f"malformed line {' '.join(parts)[:40]!r}")
    y = number(parts[1], 1, n)
    if parts[0] == "!":
        if y != x:
            fail(f"answered {y}, the number was {x}")
        print(f"found {x} in {queries} queries", file=sys.stderr)
        sys.exit(0)
    queries += 1
    if queries > 32:
        fail("more than 32 queries")
    print("<" if x < y else ">" if x > y else "=", flush=True)
''',
    "right": '''n = int(input())
lo, hi = 1, n
while True:
    mid = (lo + hi) // 2
    print("?", mid, flush=True)
    reply = input()
    if reply == "=":
        print("!", mid, flush=True)
        break
    if reply == "<":
        hi = mid - 1
    else:
        lo = mid + 1
''',
    # Never moves past mid when x is above it: loops on the same query.
    "wrong": '''n = int(input())
lo, hi = 1, n
while True:
    mid = (lo + hi) // 2
    print("?", mid, flush=True)
    reply = input()
    if reply == "=":
        print("!", mid, flush=True)
        break
    if reply == "<":
        hi = mid - 1
    else:
        lo = mid
''',
    # Right, after a pass over the whole range first: linear in n.
    "slow": '''n = int(input())
checked = 0
for _ in range(n):
    checked += 1
lo, hi = 1, n
while True:
    mid = (lo + hi) // 2
    print("?", mid, flush=True)
    reply = input()
    if reply == "=":
        print("!", mid, flush=True)
        break
    if reply == "<":
        hi = mid - 1
    else:
        lo = mid + 1
''',
    # Fires every query at once, without reading the answers.
    "chatty": '''n = int(input())
for y in range(1, n + 1):
    print("?", y, flush=True)
''',
}

PERMUTATION = {
    "id": "hidden-permutation",
    "language": "cpp",
    "text": "The interactor prints n (1 <= n <= 100); it has fixed a hidden permutation p of\n"
            "1..n. Ask at most 7n queries `? i j` (1 <= i, j <= n, i != j): the answer is `<` if\n"
            "p_i < p_j, else `>`. Then print `! p_1 p_2 ... p_n` and exit.",
    "cases": [("1\n1", "1"), ("2\n2 1", "2 1"), ("5\n3 1 4 5 2", "3 1 4 5 2"),
              ("8\n2 3 1 8 7 5 6 4", "2 3 1 8 7 5 6 4"),
              ("100\n" + " ".join(str((i * 37) % 101) for i in range(1, 101)),
               " ".join(str((i * 37) % 101) for i in range(1, 101)))],
    "interactor": PRELUDE + '''
data = open(sys.argv[1]).read().split()
n, p = int(data[0]), [int(t) for t in data[1:]]
print(n, flush=True)
queries = 0
while True:
    parts = ask()
    if parts[:1] == ["!"]:
        if len(parts) != n + 1:
            fail(f"the answer has {len(parts) - 1} numbers, not {n}")
        if [number(t, 1, n) for t in parts[1:]] != p:
            fail("the answer is not the hidden permutation")
        print(f"found it in {queries} queries", file=sys.stderr)
        sys.exit(0)
    if len(parts) != 3 or parts[0] != "?":
        fail(f"malformed line {' '.join(parts)[:40]!r}")
    i, j = number(parts[1], 1, n), number(parts[2], 1, n)
    if i == j:
        fail(f"asked to compare {i} with itself")
    queries += 1
    if queries > 7 * n:
        fail(f"more than {7 * n} queries")
    print("<" if p[i - 1] < p[j - 1] else ">", flush=True)
''',
    "right": r'''#include <cstdio>
#include <cstdlib>
#include <vector>

// Whether p[i] < p[j], asked of the interactor.
static bool less(int i, int j) {
    std::printf("? %d %d\n", i + 1, j + 1);
    std::fflush(stdout);
    char reply[4];
    if (std::scanf("%3s", reply) != 1) std::exit(0);
    return reply[0] == '<';
}

static void sort(std::vector<int> &a, int lo, int hi, std::vector<int> &tmp) {
    if (hi - lo < 2) return;
    int mid = (lo + hi) / 2;
    sort(a, lo, mid, tmp);
    sort(a, mid, hi, tmp);
    int i = lo, j = mid, k = lo;
    while (i < mid && j < hi) tmp[k++] = less(a[j], a[i]) ? a[j++] : a[i++];
    while (i < mid) tmp[k++] = a[i++];
    while (j < hi) tmp[k++] = a[j++];
    for (k = lo; k < hi; k++) a[k] = tmp[k];
}

int main() {
    int n;
    if (std::scanf("%d", &n) != 1) return 0;
    std::vector<int> order(n), tmp(n), p(n);
    for (int i = 0; i < n; i++) order[i] = i;
    sort(order, 0, n, tmp);
    for (int rank = 0; rank < n; rank++) p[order[rank]] = rank + 1;
    std::printf("!");
    for (int v : p) std::printf(" %d", v);
    std::printf("\n");
    std::fflush(stdout);
}
''',
    # Prints the order of the positions (the inverse permutation), not p.
    "wrong": r'''#include <cstdio>
#include <cstdlib>
#include <vector>

static bool less(int i, int j) {
    std::printf("? %d %d\n", i + 1, j + 1);
    std::fflush(stdout);
    char reply[4];
    if (std::scanf("%3s", reply) != 1) std::exit(0);
    return reply[0] == '<';
}

int main() {
    int n;
    if (std::scanf("%d", &n) != 1) return 0;
    std::vector<int> order;
    for (int i = 0; i < n; i++) {
        // Binary insertion: at most log2(n) + 1 queries each.
        int lo = 0, hi = (int)order.size();
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            if (less(order[mid], i)) lo = mid + 1; else hi = mid;
        }
        order.insert(order.begin() + lo, i);
    }
    std::printf("!");
    for (int v : order) std::printf(" %d", v + 1);
    std::printf("\n");
    std::fflush(stdout);
}
''',
    # Right, with a needless cubic pass over the answer before printing it.
    "slow": r'''#include <cstdio>
#include <cstdlib>
#include <vector>

static bool less(int i, int j) {
    std::printf("? %d %d\n", i + 1, j + 1);
    std::fflush(stdout);
    char reply[4];
    if (std::scanf("%3s", reply) != 1) std::exit(0);
    return reply[0] == '<';
}

int main() {
    int n;
    if (std::scanf("%d", &n) != 1) return 0;
    std::vector<int> order;
    for (int i = 0; i < n; i++) {
        int lo = 0, hi = (int)order.size();
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            if (less(order[mid], i)) lo = mid + 1; else hi = mid;
        }
        order.insert(order.begin() + lo, i);
    }
    std::vector<int> p(n);
    for (int rank = 0; rank < n; rank++) p[order[rank]] = rank + 1;
    volatile unsigned long long mix = 0;
    for (long long r = 0; r < 100000000000LL; r++) mix = mix * 31 + (unsigned long long)r;
    std::printf("!");
    for (int v : p) std::printf(" %d", v);
    std::printf("\n");
    std::fflush(stdout);
}
''',
    # Floods the same query without reading the answers.
    "chatty": r'''#include <cstdio>

int main() {
    int n;
    if (std::scanf("%d", &n) != 1) return 0;
    for (;;) std::printf("? 1 %d\n", n > 1 ? 2 : 1);
}
''',
}

PEAK = {
    "id": "find-a-peak",
    "language": "python",
    "text": "The interactor prints n (1 <= n <= 10^5); it has fixed hidden distinct integers\n"
            "a_1..a_n. Ask at most 40 queries `? i` (1 <= i <= n): the answer is a_i. Then\n"
            "print `! i` for any peak i (a_i greater than its neighbours; a_0 = a_(n+1) =\n"
            "-infinity) and exit. Any peak is accepted.",
    "cases": [("1\n5", "1"), ("3\n1 3 2", "2"), ("6\n9 1 2 3 8 7", "1"), ("5\n1 5 2 4 3", "2"),
              ("7\n1 2 3 4 5 6 7", "7"),
              ("20000\n" + " ".join(str((i * 7919) % 20011) for i in range(1, 20001)), "")],
    "interactor": PRELUDE + '''
data = open(sys.argv[1]).read().split()
n, a = int(data[0]), [int(t) for t in data[1:]]
print(n, flush=True)
queries = 0
while True:
    parts = ask()
    if len(parts) != 2 or parts[0] not in ("?", "!"):
        fail(f"malformed line {' '.join(parts)[:40]!r}")
    i = number(parts[1], 1, n)
    if parts[0] == "!":
        left = a[i - 2] if i > 1 else float("-inf")
        right = a[i] if i < n else float("-inf")
        if not left < a[i - 1] > right:
            fail(f"{i} is not a peak")
        print(f"peak {i} in {queries} queries", file=sys.stderr)
        sys.exit(0)
    queries += 1
    if queries > 40:
        fail("more than 40 queries")
    print(a[i - 1], flush=True)
''',
    "right": '''seen = {}


def value(i):
    if i not in seen:
        print("?", i, flush=True)
        seen[i] = int(input())
    return seen[i]


n = int(input())
lo, hi = 1, n
while lo < hi:
    mid = (lo + hi) // 2
    if value(mid) < value(mid + 1):
        lo = mid + 1
    else:
        hi = mid
print("!", lo, flush=True)
''',
    # The largest of the two ends and the middle: not a peak in general.
    "wrong": '''n = int(input())
best, where = None, 1
for i in sorted({1, (n + 1) // 2, n}):
    print("?", i, flush=True)
    v = int(input())
    if best is None or v > best:
        best, where = v, i
print("!", where, flush=True)
''',
    # Right, after a quadratic warm-up over n.
    "slow": '''seen = {}


def value(i):
    if i not in seen:
        print("?", i, flush=True)
        seen[i] = int(input())
    return seen[i]


n = int(input())
pairs = 0
for i in range(n):
    for j in range(i):
        pairs += 1
lo, hi = 1, n
while lo < hi:
    mid = (lo + hi) // 2
    if value(mid) < value(mid + 1):
        lo = mid + 1
    else:
        hi = mid
print("!", lo, flush=True)
''',
    # Dumps a million debugging lines to stdout first.
    "chatty": '''n = int(input())
for i in range(10 ** 6):
    print("debug: looking at", i)
print("!", 1, flush=True)
''',
}

COINS = {
    "id": "heavy-coin",
    "language": "python",
    "text": "The interactor prints n (1 <= n <= 2187) and q, the number of queries you may ask\n"
            "(the least that always suffices: ceil(log3 n)). Coins 1..n weigh the same but one,\n"
            "which is heavier. A query `? k a_1 .. a_k b_1 .. b_k` (2k distinct coins) weighs\n"
            "a against b: `<` if a is lighter, `>` if heavier, `=` if equal. Then print `! i`\n"
            "for the heavy coin and exit.",
    "cases": [("1 1", "1"), ("2 2", "2"), ("9 5", "5"), ("10 10", "10"), ("2187 1000", "1000"),
              ("2000 1", "1")],
    "interactor": PRELUDE + '''
n, heavy = map(int, open(sys.argv[1]).read().split())
limit = 0
while 3 ** limit < n:
    limit += 1
print(n, limit, flush=True)
queries = 0
while True:
    parts = ask()
    if parts[:1] == ["!"] and len(parts) == 2:
        i = number(parts[1], 1, n)
        if i != heavy:
            fail(f"answered {i}, the heavy coin was {heavy}")
        print(f"found coin {heavy} in {queries} weighings", file=sys.stderr)
        sys.exit(0)
    if len(parts) < 4 or parts[0] != "?":
        fail(f"malformed line {' '.join(parts)[:40]!r}")
    k = number(parts[1], 1, n // 2)
    if len(parts) != 2 + 2 * k:
        fail(f"a weighing of {k} against {k} coins names {len(parts) - 2}")
    coins = [number(t, 1, n) for t in parts[2:]]
    if len(set(coins)) != 2 * k:
        fail("a coin is on the scales twice")
    queries += 1
    if queries > limit:
        fail(f"more than {limit} weighings")
    left, right = heavy in coins[:k], heavy in coins[k:]
    print(">" if left else "<" if right else "=", flush=True)
''',
    "right": '''n, q = map(int, input().split())
coins = list(range(1, n + 1))
while len(coins) > 1:
    k = (len(coins) + 2) // 3
    a, b, rest = coins[:k], coins[k:2 * k], coins[2 * k:]
    print("?", k, *a, *b, flush=True)
    reply = input()
    coins = a if reply == ">" else b if reply == "<" else rest
print("!", coins[0], flush=True)
''',
    # Halves instead of thirds: more weighings than allowed once n > 3.
    "wrong": '''n, q = map(int, input().split())
coins = list(range(1, n + 1))
while len(coins) > 1:
    k = len(coins) // 2
    a, b, rest = coins[:k], coins[k:2 * k], coins[2 * k:]
    print("?", k, *a, *b, flush=True)
    reply = input()
    coins = a if reply == ">" else b if reply == "<" else rest
print("!", coins[0], flush=True)
''',
    # Right, after weighing every split of the coins in its head first.
    "slow": '''n, q = map(int, input().split())
splits = 0
for i in range(n * n):
    for j in range(n):
        splits += 1
coins = list(range(1, n + 1))
while len(coins) > 1:
    k = (len(coins) + 2) // 3
    a, b, rest = coins[:k], coins[k:2 * k], coins[2 * k:]
    print("?", k, *a, *b, flush=True)
    reply = input()
    coins = a if reply == ">" else b if reply == "<" else rest
print("!", coins[0], flush=True)
''',
    # Echoes a running commentary to stdout, which the interactor reads as queries.
    "chatty": '''n, q = map(int, input().split())
coins = list(range(1, n + 1))
while len(coins) > 1:
    print("candidates:", *coins, flush=True)
    k = (len(coins) + 2) // 3
    a, b, rest = coins[:k], coins[k:2 * k], coins[2 * k:]
    print("?", k, *a, *b, flush=True)
    reply = input()
    coins = a if reply == ">" else b if reply == "<" else rest
print("!", coins[0], flush=True)
''',
}

BITS = {
    "id": "hidden-bits",
    "language": "cpp",
    "text": "The interactor prints n (1 <= n <= 1000); it has fixed a hidden binary string s of\n"
            "length n. Ask at most n + 1 queries `? t` (t a binary string of length n): the\n"
            "answer is the number of positions where t and s agree. Then print `! s` and exit.",
    "cases": [("1 1", "1"), ("4 0110", "0110"), ("7 1110001", "1110001"),
              ("1000 " + "".join("1" if (i * i) % 7 < 3 else "0" for i in range(1000)),
               "".join("1" if (i * i) % 7 < 3 else "0" for i in range(1000)))],
    "interactor": PRELUDE + '''
n, s = open(sys.argv[1]).read().split()
n = int(n)
print(n, flush=True)
queries = 0
while True:
    parts = ask()
    if len(parts) != 2 or parts[0] not in ("?", "!"):
        fail(f"malformed line {' '.join(parts)[:40]!r}")
    t = parts[1]
    if len(t) != n or set(t) - {"0", "1"}:
        fail(f"{t[:20]!r} is not a binary string of length {n}")
    if parts[0] == "!":
        if t != s:
            fail("the answer is not the hidden string")
        print(f"found it in {queries} queries", file=sys.stderr)
        sys.exit(0)
    queries += 1
    if queries > n + 1:
        fail(f"more than {n + 1} queries")
    print(sum(a == b for a, b in zip(t, s)), flush=True)
''',
    "right": r'''#include <cstdlib>
#include <iostream>
#include <string>

static int ask(const std::string &t) {
    std::cout << "? " << t << std::endl;
    int agree = 0;
    if (!(std::cin >> agree)) std::exit(0);
    return agree;
}

int main() {
    int n;
    if (!(std::cin >> n)) return 0;
    std::string zeros(n, '0'), s(n, '0');
    int base = ask(zeros);
    for (int i = 0; i < n; i++) {
        std::string t = zeros;
        t[i] = '1';
        if (ask(t) > base) s[i] = '1';
    }
    std::cout << "! " << s << std::endl;
}
''',
    # Finds every bit, then answers the string reversed.
    "wrong": r'''#include <cstdlib>
#include <iostream>
#include <string>

static int ask(const std::string &t) {
    std::cout << "? " << t << std::endl;
    int agree = 0;
    if (!(std::cin >> agree)) std::exit(0);
    return agree;
}

int main() {
    int n;
    if (!(std::cin >> n)) return 0;
    std::string zeros(n, '0'), s(n, '0');
    int base = ask(zeros);
    for (int i = 0; i < n; i++) {
        std::string t = zeros;
        t[i] = '1';
        if (ask(t) > base) s[n - 1 - i] = '1';
    }
    std::cout << "! " << s << std::endl;
}
''',
    # Right, re-checking every pair of positions, a hundred times, after each query.
    "slow": r'''#include <cstdlib>
#include <iostream>
#include <string>

static int ask(const std::string &t) {
    std::cout << "? " << t << std::endl;
    int agree = 0;
    if (!(std::cin >> agree)) std::exit(0);
    return agree;
}

int main() {
    int n;
    if (!(std::cin >> n)) return 0;
    std::string zeros(n, '0'), s(n, '0');
    int base = ask(zeros);
    volatile long long pairs = 0;
    for (int i = 0; i < n; i++) {
        std::string t = zeros;
        t[i] = '1';
        if (ask(t) > base) s[i] = '1';
        for (int round = 0; round < 100; round++)
            for (int a = 0; a < n; a++)
                for (int b = 0; b < n; b++) pairs = pairs + (s[a] == s[b]);
    }
    std::cout << "! " << s << std::endl;
}
''',
    # Logs each step to stdout, where the interactor expects queries.
    "chatty": r'''#include <cstdlib>
#include <iostream>
#include <string>

static int ask(const std::string &t) {
    std::cout << "? " << t << std::endl;
    int agree = 0;
    if (!(std::cin >> agree)) std::exit(0);
    std::cout << "got " << agree << std::endl;
    return agree;
}

int main() {
    int n;
    if (!(std::cin >> n)) return 0;
    std::string zeros(n, '0'), s(n, '0');
    int base = ask(zeros);
    for (int i = 0; i < n; i++) {
        std::string t = zeros;
        t[i] = '1';
        if (ask(t) > base) s[i] = '1';
    }
    std::cout << "! " << s << std::endl;
}
''',
}

PROBLEMS = [GUESS, PERMUTATION, PEAK, COINS, BITS]
