"""Writes cases.json: stdin -> expected stdout for the 30 problems that lua.txt, js.txt, ts.txt
and ruby.txt solve (sandbox/tests/interpreted_judge.rs). The expected outputs come from these
Python references, written independently of the Lua, JavaScript, TypeScript and Ruby solutions.
Run: python3 cases_gen.py"""

import json
import math
import os

MOD = 1_000_000_007


def ints(text):
    return [int(x) for x in text.split()]


def fib(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, (a + b) % MOD
    return a


def is_prime(n):
    return n >= 2 and all(n % d for d in range(2, math.isqrt(n) + 1))


def kadane(xs):
    best = cur = xs[0]
    for x in xs[1:]:
        cur = max(x, cur + x)
        best = max(best, cur)
    return best


def lis(xs):
    best = [1] * len(xs)
    for i in range(len(xs)):
        for j in range(i):
            if xs[j] < xs[i]:
                best[i] = max(best[i], best[j] + 1)
    return max(best)


def balanced(s):
    stack, pairs = [], {")": "(", "]": "[", "}": "{"}
    for c in s:
        if c in "([{":
            stack.append(c)
        elif not stack or stack.pop() != pairs[c]:
            return False
    return not stack


def coins(amount, cs):
    inf = float("inf")
    best = [0] + [inf] * amount
    for a in range(1, amount + 1):
        for c in cs:
            if c <= a and best[a - c] + 1 < best[a]:
                best[a] = best[a - c] + 1
    return -1 if best[amount] == inf else best[amount]


def prefix(words):
    p = os.path.commonprefix(words)
    return p if p else "-"


def second(xs):
    d = sorted(set(xs), reverse=True)
    return str(d[1]) if len(d) > 1 else "NONE"


def rle(s):
    out, i = [], 0
    while i < len(s):
        j = i
        while j < len(s) and s[j] == s[i]:
            j += 1
        out.append(f"{s[i]}{j - i}")
        i = j
    return "".join(out)


def range_sums(text):
    lines = text.split("\n")
    n, q = ints(lines[0])
    a = ints(lines[1])
    out = []
    for line in lines[2 : 2 + q]:
        l, r = ints(line)
        out.append(str(sum(a[l - 1 : r])))
    return "\n".join(out)


def row_sums(text):
    lines = text.split("\n")
    r, _ = ints(lines[0])
    return "\n".join(str(sum(ints(lines[1 + i]))) for i in range(r))


def listed(f):
    """A problem whose input is `n` then n integers."""
    return lambda text: f(ints(text)[1:])


def two_sum(text):
    v = ints(text)
    target, xs = v[1], v[2:]
    return yes(any(xs[i] + xs[j] == target for i in range(len(xs)) for j in range(i + 1, len(xs))))


def inversions(xs):
    return sum(1 for i in range(len(xs)) for j in range(i + 1, len(xs)) if xs[i] > xs[j])


def yes(b):
    return "YES" if b else "NO"


def fizzbuzz(n):
    return "\n".join("FizzBuzz" if i % 15 == 0 else "Fizz" if i % 3 == 0 else "Buzz" if i % 5 == 0 else str(i) for i in range(1, n + 1))


def sieve(n):
    return sum(1 for k in range(n + 1) if is_prime(k))


PROBLEMS = {
    "01_sum_two": (lambda t: str(sum(ints(t))), ["3 4\n", "1000000000 2000000000\n", "-5 12\n"]),
    "02_sum_list": (listed(lambda xs: str(sum(xs))), ["5\n1 2 3 4 5\n", "3\n-1 -2 10\n"]),
    "03_max_list": (listed(lambda xs: str(max(xs))), ["4\n3 9 -2 7\n", "3\n-5 -1 -7\n"]),
    "04_reverse_line": (lambda t: t.rstrip("\n")[::-1], ["hello\n", "abc def\n"]),
    "05_count_vowels": (lambda t: str(sum(c in "aeiou" for c in t.lower())), ["programming\n", "AEIOU xyz\n"]),
    "06_factorial_mod": (lambda t: str(math.factorial(int(t)) % MOD), ["5\n", "20\n", "1000\n"]),
    "07_fibonacci_mod": (lambda t: str(fib(int(t))), ["10\n", "1\n", "100\n"]),
    "08_gcd": (lambda t: str(math.gcd(*ints(t))), ["12 18\n", "17 5\n", "1000000000000 250000000000\n"]),
    "09_is_prime": (lambda t: yes(is_prime(int(t))), ["97\n", "1\n", "1000000007\n", "561\n"]),
    "10_sort_numbers": (listed(lambda xs: " ".join(map(str, sorted(xs)))), ["5\n5 3 10 -1 3\n", "1\n42\n"]),
    "11_count_distinct": (listed(lambda xs: str(len(set(xs)))), ["6\n1 2 2 3 3 3\n", "4\n7 7 7 7\n"]),
    "12_palindrome": (lambda t: yes(t.strip() == t.strip()[::-1]), ["racecar\n", "abca\n"]),
    "13_range_sums": (range_sums, ["5 3\n1 2 3 4 5\n1 5\n2 3\n4 4\n", "3 2\n-1 5 -2\n1 2\n2 3\n"]),
    "14_binary": (lambda t: bin(int(t))[2:], ["10\n", "0\n", "255\n"]),
    "15_word_count": (lambda t: str(len(t.split())), ["the quick  brown fox\n", "   single   \n"]),
    "16_max_subarray": (listed(lambda xs: str(kadane(xs))), ["9\n-2 1 -3 4 -1 2 1 -5 4\n", "3\n-3 -1 -2\n"]),
    "17_two_sum_exists": (two_sum, ["4 9\n2 7 11 15\n", "3 10\n1 2 3\n", "2 8\n4 4\n", "2 6\n3 4\n"]),
    "18_row_sums": (row_sums, ["2 3\n1 2 3\n4 5 6\n", "3 1\n-1\n0\n7\n"]),
    "19_digit_sum": (lambda t: str(sum(int(c) for c in t.strip())), ["12345\n", "999999999999999999\n"]),
    "20_fizzbuzz": (lambda t: fizzbuzz(int(t)), ["15\n", "3\n"]),
    "21_power_mod": (lambda t: str(pow(*ints(t))), ["2 10 1000\n", "123456789 987654321 1000000007\n", "5 0 7\n"]),
    "22_lis_length": (listed(lambda xs: str(lis(xs))), ["8\n10 9 2 5 3 7 101 18\n", "4\n4 3 2 1\n"]),
    "23_count_inversions": (listed(lambda xs: str(inversions(xs))), ["5\n2 4 1 3 5\n", "4\n4 3 2 1\n"]),
    "24_anagram": (lambda t: yes(sorted(t.split()[0]) == sorted(t.split()[1])), ["listen silent\n", "abc abd\n"]),
    "25_balanced_brackets": (lambda t: yes(balanced(t.strip())), ["{[()()]}\n", "([)]\n", "((\n"]),
    "26_coin_change": (lambda t: str(coins(ints(t)[1], ints(t)[2:])), ["3 11\n1 2 5\n", "1 3\n2\n", "2 0\n3 7\n"]),
    "27_common_prefix": (lambda t: prefix(t.split()[1:]), ["3\nflower\nflow\nflight\n", "2\ndog\ncat\n"]),
    "28_second_largest": (listed(second), ["5\n4 1 4 3 2\n", "3\n9 9 9\n"]),
    "29_run_length": (lambda t: rle(t.strip()), ["aaabccdddd\n", "x\n"]),
    "30_count_primes": (lambda t: str(sieve(int(t))), ["10\n", "100\n", "1\n"]),
}

cases = {
    name: [{"stdin": stdin, "stdout": solve(stdin) + "\n"} for stdin in inputs]
    for name, (solve, inputs) in PROBLEMS.items()
}
here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "cases.json"), "w") as f:
    json.dump(cases, f, indent=1)
    f.write("\n")
print(f"{len(cases)} problems, {sum(len(c) for c in cases.values())} cases")
