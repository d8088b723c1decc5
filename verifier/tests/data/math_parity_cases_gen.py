"""Writes math_parity_cases.jsonl: labelled (reference, response, expected, why) cases for the
classes of issue 31, where Math-Verify was still ahead or neither checker was right: relation
spellings, intervals against the inequalities that describe them, labelled ratios, LaTeX
thousands separators, long prose answers, several boxed answers, tuples in long derivations,
trigonometric values in degrees, commutativity inside big operators, and equal ratios (behind
the `ratios` option).

Written for this project; no case is copied from any checker's test suite. Every case says why
its label is what it is. The `holdout` category was written after the fixes and not tuned against.
Run: python3 verifier/tests/data/math_parity_cases_gen.py
"""
import json
import pathlib

C = []


def add(cat, ref, resp, exp, why, **options):
    assert why, "every case needs a reason"
    case = dict(category=cat, reference=ref, response=resp, expected=exp, why=why)
    if options:
        case["options"] = options
    C.append(case)


# ---------------- relation spellings ----------------
R = "relation_spellings"
add(R, r"x < 5", r"$x \lt 5$", True, r"\lt is <")
add(R, r"x < 5", r"$x \le 5$", False, "strict against non-strict")
add(R, r"y > -1", r"$y \gt -1$", True, r"\gt is >")
add(R, r"y > -1", r"$y \gt 1$", False, "sign of the bound")
add(R, r"y \gt -1", r"$y \geq -1$", False, r"\gt is strict, \geq is not")
add(R, r"x \neq 2", r"$x \ne 2$", True, r"\neq and \ne are the same operator")
add(R, r"x \neq 2", r"$x \ne 3$", False, "different excluded value")
add(R, r"x \neq 2", r"$x = 2$", False, "equation against its negation")
add(R, r"t \leqslant 4", r"$t \le 4$", True, r"\leqslant is \le")
add(R, r"t \leqslant 4", r"$t \lt 4$", False, "non-strict against strict")
add(R, r"t \leqslant 4", r"$t \geqslant 4$", False, "opposite direction")
add(R, r"a \geqslant 0", r"$0 \leq a$", True, "the same bound written from the other side")
add(R, r"x \le 3", r"x <= 3", True, "plain-text <=")
add(R, r"x \ge 3", r"x >= 3", True, "plain-text >=")
add(R, r"x \ge 3", r"x => 3", False, "=> is an implication arrow, not >=")
add(R, r"x \ne 7", r"x != 7", True, "plain-text !=")
add(R, r"x \ne 7", r"x != 8", False, "different excluded value in plain text")
add(R, r"x \le 3", "$x ≤ 3$", True, "Unicode ≤")
add(R, r"x \ne 3", "$x ≠ 3$", True, "Unicode ≠")
add(R, r"x \ne 3", "$x ≥ 3$", False, "Unicode ≥ is not ≠")
add(R, r"x \neq 3", r"$x \not= 3$", True, r"\not= is \ne")
add(R, r"x \neq 3", r"$x \not< 3$", False, r"\not< is >=, not \ne")
add(R, r"2x \neq 6", r"$x \ne 3$", True, "equivalent non-equations (both sides halved)")
add(R, r"2 \leqslant x \leqslant 9", r"$2 \le x \le 9$", True, "chain with slanted spellings")
add(R, r"2 \leqslant x \leqslant 9", r"$2 \le x < 9$", False, "upper end differs in strictness")
add(R, r"x \lt -2", r"$-2 \gt x$", True, "the same strict bound read from the right")

# ---------------- intervals and the inequalities that describe them ----------------
I = "interval_inequality"
add(I, r"x \in [-2, 7]", r"$-2 \le x \le 7$", True, "closed interval as a chain")
add(I, r"-2 \le x \le 7", r"$x \in [-2, 7]$", True, "chain as a closed interval (other direction)")
add(I, r"x \in [-2, 7]", r"$-2 < x \le 7$", False, "lower end open in the chain")
add(I, r"x \in [-2, 7)", r"$-2 \leq x < 7$", True, "half-open interval")
add(I, r"x \in [-2, 7)", r"$-2 \leq x \leq 7$", False, "half-open against closed")
add(I, r"x \in (3, \infty)", r"$x > 3$", True, "unbounded above")
add(I, r"x \in (3, \infty)", r"$x \geq 3$", False, "open end against included end")
add(I, r"x > 3", r"$x \in (3, +\infty)$", True, r"+\infty is \infty")
add(I, r"(-\infty, 5]", r"$x \le 5$", True, "bare interval against its inequality")
add(I, r"(-\infty, 5]", r"$x < 5$", False, "5 is included in the interval")
add(I, r"x \le 5", r"$(-\infty, 5]$", True, "inequality reference, interval response")
add(I, r"x \le 5", r"$(-\infty, 5)$", False, "5 excluded in the response")
add(I, r"x \in (-\infty, -1) \cup (2, \infty)", r"$x < -1$ or $x > 2$", True, "union as two inequalities joined by 'or'")
add(I, r"x \in (-\infty, -1) \cup (2, \infty)", r"$x < -1$ or $x \ge 2$", False, "2 is not in the union")
add(I, r"x \in (-\infty, -1) \cup (2, \infty)", r"$x < 1$ or $x > 2$", False, "wrong first bound")
add(I, r"-1 < x \leq 3", r"$x \in (-1, 3]$", True, "half-open the other way")
add(I, r"-1 < x \leq 3", r"$x \in [-1, 3)$", False, "openness swapped")
add(I, r"x \geq -2", r"$x\in[-2,+\infty)$", True, "unbounded interval with +infinity")
add(I, r"t \in [0, 1]", r"$0 \leqslant t \leqslant 1$", True, "slanted spellings in the chain")
add(I, r"x \in [1, 4]", r"$1 < x < 4$", False, "closed interval against strict chain")
add(I, r"x \in \left[\frac{1}{2}, 3\right]", r"$\frac12 \le x \le 3$", True, "fraction bound, sized brackets")
add(I, r"x \in \left[\frac{1}{2}, 3\right]", r"$\frac13 \le x \le 3$", False, "different fraction bound")

# ---------------- labelled ratios ----------------
L = "labelled_ratios"
add(L, "7:32", r"$S_{ABC} : S = 7:32$", True, "the ratio after the label")
add(L, "7:32", r"$S_{ABC} : S = 7:23$", False, "digits swapped")
add(L, r"S_{\triangle ABC} : S_{\triangle DEF} = 4 : 9", "$4:9$", True, "labelled reference, bare response")
add(L, "4:9", r"$AB : BC = 9 : 4$", False, "ratio reversed")
add(L, "3:4:5", r"$a:b:c = 3:4:5$", True, "three-part labelled ratio")
add(L, "3:4:5", r"$a:b:c = 3:5:4$", False, "order matters in a ratio")
add(L, "1:2", r"$BD:DC=1:2$", True, "label without spaces")
add(L, "1:2", r"$BD : DC = 2 : 1$", False, "reversed")
add(L, r"V_1 : V_2 = 1 : 8", r"The volumes are in the ratio $V_1:V_2 = 1:8$.", True, "labelled on both sides")
add(L, r"V_1 : V_2 = 1 : 8", r"The volumes are in the ratio $V_1:V_2 = 1:4$.", False, "different ratio, same label")
add(L, "2:1", r"$x:y = 2:1$", True, "letter label")
add(L, "2:1", r"$x:y = 1:2$", False, "letter label, reversed")

# ---------------- thousands separators ----------------
N = "separators"
add(N, "11111100", r"$\boxed{11,\! 111,\! 100}$", True, r",\! separators with spaces after them")
add(N, "11111100", r"$\boxed{11,\! 111,\! 10}$", False, "last group too short: not the same number")
add(N, "11111100", r"$\boxed{11,\! 111,\! 000}$", False, "one digit differs")
add(N, "1234567", r"$\boxed{1,\! 234,\! 567}$", True, "seven digits with spaced separators")
add(N, "1234567", r"$\boxed{1,\! 234,\! 576}$", False, "digits transposed")
add(N, r"11,\! 111,\! 100", "11111100", True, "separators in the reference")
add(N, r"11,\! 111,\! 100", "1111110", False, "one digit dropped")
add(N, "2016000", r"\boxed{2,\!016,\!000}", True, "compact separators")
add(N, "1000000", r"$1\, 000\, 000$", True, "thin spaces as separators")
add(N, "11111.5", r"\boxed{\$11,\! 111.50}", True, "currency, separator and decimals")
add(N, "11111.5", r"\boxed{\$11,\! 111.05}", False, "cents differ")
add(N, "12345", r"\boxed{12,\! 345}", True, "one separator with a space")
add(N, "12345", r"\boxed{12,\! 34}", False, "two digits after the separator: not a thousands group")

# ---------------- long prose answers ----------------
P = "prose"
TOTAL = ("Ali deposits 5000 dollars at a simple rate of 4% a year. Each year the interest is "
         "5000 * 0.04 = 200 dollars, and over 3 years this gives 3 * 200 = 600 dollars. ")
add(P, "600", TOTAL + "So the total interest is 600 dollars.", True, "stated in the last sentence")
add(P, "200", TOTAL + "So the total interest is 600 dollars.", False, "yearly interest, not the total")
add(P, "600", TOTAL + "So the total interest is $600, which is 12% of the deposit.", True,
    "the value after the copula, not the trailing percentage")
add(P, "12", TOTAL + "So the total interest is $600, which is 12% of the deposit.", False,
    "the percentage is a remark")
add(P, "31", "There are 3 boxes with 12 eggs each, 36 eggs in all. Five of them break, "
    "leaving 36 - 5 = 31. The answer is 31 eggs.", True, "answer sentence with a unit word")
add(P, "36", "There are 3 boxes with 12 eggs each, 36 eggs in all. Five of them break, "
    "leaving 36 - 5 = 31. The answer is 31 eggs.", False, "an intermediate count")
add(P, r"\frac{7}{2}", r"Adding the two halves gives $\frac{7}{2}$. Hence the answer is "
    r"$\frac{7}{2}$, since 7 and 2 are coprime.", True, "math after the anchor, then a justification")
add(P, "2", r"Adding the two halves gives $\frac{7}{2}$. Hence the answer is "
    r"$\frac{7}{2}$, since 7 and 2 are coprime.", False, "a number in the justification")
add(P, "45", "Each of the 9 rows holds 5 chairs, so there are 9 * 5 = 45 chairs. "
    "Therefore, the hall has 45 chairs in total, enough for 40 guests.", True,
    "conclusion sentence: the value after its verb, not the trailing count")
add(P, "40", "Each of the 9 rows holds 5 chairs, so there are 9 * 5 = 45 chairs. "
    "Therefore, the hall has 45 chairs in total, enough for 40 guests.", False, "a number after the answer")
add(P, "18", "Janet sells 16 - 3 - 4 = 9 eggs at 2 dollars each. Thus she makes 18 dollars "
    "every day, after using 7 eggs.", True, "conclusion with a trailing remark")
add(P, "7", "Janet sells 16 - 3 - 4 = 9 eggs at 2 dollars each. Thus she makes 18 dollars "
    "every day, after using 7 eggs.", False, "a number in the remark")
add(P, "250", "The first shop charges 120 and the second 130. In total, "
    "the bill comes to 250 dollars.", True, "'in total' conclusion")
add(P, "130", "The first shop charges 120 and the second 130. In total, "
    "the bill comes to 250 dollars.", False, "an addend")
add(P, "24", "Together they need 24 / 3 = 8 hours. So the answer is eight hours, "
    "not 24.", False, "the sentence denies 24")

# ---------------- several boxed answers ----------------
B = "boxed_sets"
add(B, r"x_1 = 2, \quad x_2 = -3", r"The roots are $\boxed{2}$ and $\boxed{-3}$.", True,
    "named roots against two boxes")
add(B, r"x_1 = 2, \quad x_2 = -3", r"The roots are $\boxed{-3}$ and $\boxed{2}$.", True, "order-free")
add(B, r"x_1 = 2, \quad x_2 = -3", r"The roots are $\boxed{2}$ and $\boxed{3}$.", False, "sign of a root")
add(B, r"x_1 = 2, \quad x_2 = -3", r"The root is $\boxed{2}$.", False, "one root missing")
add(B, r"\boxed{2} \text{ and } \boxed{-3}", r"$x_1 = -3,\ x_2 = 2$", True, "boxes in the reference")
add(B, r"\boxed{2} \text{ and } \boxed{-3}", r"$x_1 = -3,\ x_2 = 3$", False, "wrong second root")
add(B, r"\boxed{1}, \boxed{2}, \boxed{3}", r"$\{1, 2, 3\}$", True, "three boxes as a set")
add(B, r"\boxed{1}, \boxed{2}, \boxed{3}", r"$\{1, 2\}$", False, "one element missing")
add(B, r"x = 1 \text{ or } x = 5", r"So $\boxed{5}$ or $\boxed{1}$.", True, "'or' between boxes")
add(B, r"x = 1 \text{ or } x = 5", r"So $\boxed{5}$.", False, "only one solution")
add(B, "3", r"$\boxed{3}$ and $\boxed{4}$", False, "an extra boxed answer")
add(B, r"x_1 = -1, x_2 = 4", r"$x = -1$ or $x = 4$", True, "assignments in prose")
add(B, r"x_1 = -1, x_2 = 4", r"$x = -1$ or $x = -4$", False, "sign of the second root")

# ---------------- tuples in long derivations ----------------
T = "tuples"
PROJ = (r"We have $\mathbf{v} \cdot \mathbf{u} = 2 + 2 + 2 = 6$ and $\|\mathbf{u}\|^2 = 1 + 4 + 4 = 9$, "
        r"so the projection is $\frac{6}{9} \mathbf{u} = \frac{2}{3}(1, 2, 2) = "
        r"\left(\frac{2}{3}, \frac{4}{3}, \frac{4}{3}\right)$.")
add(T, r"\left(\frac{2}{3}, \frac{4}{3}, \frac{4}{3}\right)", PROJ, True, "projection at the end of a derivation")
add(T, r"\left(\frac{2}{3}, \frac{4}{3}, \frac{2}{3}\right)", PROJ, False, "third component differs")
add(T, r"\begin{pmatrix} 2/3 \\ 4/3 \\ 4/3 \end{pmatrix}", PROJ, True, "column vector against the tuple")
add(T, r"\begin{pmatrix} 2/3 \\ 4/3 \end{pmatrix}", PROJ, False, "different length")
PT = (r"Setting $2t = 4$ gives $t = 2$, and the line then passes through "
      r"$(1 + t, 4 - t) = (3, 2)$, so the point is $(3, 2)$.")
add(T, "(3, 2)", PT, True, "point after a derivation")
add(T, "(2, 3)", PT, False, "coordinates swapped")
add(T, "(3, 2)", r"Substituting $t = 2$ gives the point $P = (1 + 2, 4 - 2) = (3, 2)$.", True,
    "labelled point at the end of a chain")
add(T, "(3, 2)", r"Substituting $t = 2$ gives the point $P = (1 + 2, 4 - 2) = (3, 4)$.", False,
    "second coordinate wrong")
add(T, r"\left(-\frac{1}{2}, 0\right)", r"Solving, $x = -\frac12$ and $y = 0$, so the vertex is "
    r"$\left(-\frac{1}{2}, 0\right)$.", True, "fraction coordinate")
add(T, r"\left(-\frac{1}{2}, 0\right)", r"Solving, $x = -\frac12$ and $y = 0$, so the vertex is "
    r"$\left(\frac{1}{2}, 0\right)$.", False, "sign of a coordinate")

# ---------------- trigonometric values in degrees ----------------
D = "trig_degrees"
add(D, r"\frac{\sqrt{3}}{2}", r"$\sin 60^\circ$", True, "sine of 60 degrees")
add(D, r"\frac{\sqrt{3}}{2}", r"$\sin 30^\circ$", False, "sine of 30 degrees is 1/2")
add(D, r"\frac{\sqrt{3}}{2}", r"$\cos 60^\circ$", False, "cosine of 60 degrees is 1/2")
add(D, r"\frac{\sqrt{3}}{2}", r"$\sin 60$", False, "60 radians, not degrees")
add(D, r"\frac12", r"$\cos 60^{\circ}$", True, r"braced \circ")
add(D, "1", r"$\tan 45^\circ$", True, "tangent of 45 degrees")
add(D, "1", r"$\tan 45$", False, "45 radians")
add(D, r"\sin 60^\circ", r"$\frac{\sqrt{3}}{2}$", True, "degrees in the reference")
add(D, r"\sin 60^\circ", r"$\frac{1}{2}$", False, "wrong value against a degree reference")
add(D, "0.5", r"$\sin(30^\circ)$", True, "parenthesised argument")
add(D, r"\sqrt{2}", r"$2\sin 45^\circ$", True, "coefficient times a degree sine")
add(D, r"-\frac{1}{2}", r"$\cos 120^\circ$", True, "obtuse angle")
add(D, r"\frac{1}{2}", r"$\cos 120^\circ$", False, "sign of the cosine")
add(D, r"\frac{\sqrt{3}}{3}", "$\\tan 30°$", True, "Unicode degree sign")
add(D, "60", r"$60^\circ$", True, "an angle answer in degrees stays its number")
add(D, "30", r"$60^\circ$", False, "a different angle")

# ---------------- commutativity in symbolic sums and products ----------------
K = "commutativity"
add(K, r"\sum_{k=0}^{n-1} F_k F_{n-k-1}", r"$\sum_{k=0}^{n-1} F_{n-k-1} F_k$", True, "factors swapped inside a sum")
add(K, r"\sum_{k=0}^{n-1} F_k F_{n-k-1}", r"$\sum_{k=0}^{n-1} F_k F_{n-k}$", False, "different index")
add(K, r"\sum_{k=0}^{n-1} F_k F_{n-k-1}", r"$\sum_{k=0}^{n} F_{n-k-1} F_k$", False, "different upper bound")
add(K, r"\sum_{k=0}^{n-1} F_k F_{n-k-1}", r"$\sum_{k=0}^{n-1} (F_k + F_{n-k-1})$", False, "sum instead of product")
add(K, r"\prod_{i=1}^{n} a_i b_i", r"$\prod_{i=1}^{n} b_i a_i$", True, "factors swapped inside a product")
add(K, r"\prod_{i=1}^{n} a_i b_i", r"$\prod_{i=1}^{n} a_i b_{i+1}$", False, "shifted index")
add(K, r"\sum_{i=1}^{n} (x_i + y_i)", r"$\sum_{i=1}^{n} (y_i + x_i)$", True, "terms swapped inside a sum")
add(K, r"\sum_{i=1}^{n} (x_i + y_i)", r"$\sum_{i=1}^{n} (y_i - x_i)$", False, "sign of a term")
add(K, r"2\sum_{k=1}^{m} k a_k", r"$\sum_{k=1}^{m} a_k k \cdot 2$", True,
    "a constant factor moved into the sum: equal (needs algebra on the operator)")
add(K, r"\int_0^1 f(x) g(x)\,dx", r"$\int_0^1 g(x) f(x)\,dx$", True, "factors swapped inside an integral")
add(K, r"\int_0^1 f(x) g(x)\,dx", r"$\int_0^2 g(x) f(x)\,dx$", False, "different limits")
add(K, r"\gcd(a, b)", r"$\gcd(b, a)$", True, "gcd of unknowns is symmetric")
add(K, r"\operatorname{lcm}(m, n)", r"$\operatorname{lcm}(n, m)$", True, "lcm of unknowns is symmetric")
add(K, r"\gcd(a, b)", r"$\gcd(a, 2b)$", False, "a different argument")
add(K, r"\gcd(a, b)", r"$\operatorname{lcm}(a, b)$", False, "lcm is not gcd")

# ---------------- equal ratios (behind the `ratios` option) ----------------
E = "equal_ratios"
add(E, "3:4", "$6:8$", False, "by default a ratio compares as written (simplest-form problems)")
add(E, "3:4", "$6:8$", True, "proportional ratios with the option", ratios="value")
add(E, "3:4", "$4:3$", False, "reversed, even with the option", ratios="value")
add(E, "3:4", "$6:9$", False, "not proportional", ratios="value")
add(E, "1:2:3", "$2:4:6$", True, "three parts scaled together", ratios="value")
add(E, "1:2:3", "$2:4:5$", False, "one part off", ratios="value")
add(E, "1:2:3", "$1:2$", False, "different number of parts", ratios="value")
add(E, "3:4", r"$\frac{3}{4}$", True, "a two-part ratio is its quotient with the option", ratios="value")
add(E, "3:4", r"$\frac{4}{3}$", False, "the reciprocal", ratios="value")
add(E, "12:00", "$1:00$", False, "a zero part keeps the ratio as written (clock times)", ratios="value")
add(E, r"\sqrt{2}:1", r"$2:\sqrt{2}$", True, "irrational parts scale too", ratios="value")
add(E, "3:4", "$3:4$", True, "identical ratio, default options")

# ---------------- holdout: written after the fixes, not tuned against ----------------
H = "holdout"
add(H, r"z \neq -4", r"$z \ne -4$", True, "spelling of not-equal, negative value")
add(H, r"z \neq -4", r"$z \ne 4$", False, "sign of the excluded value")
add(H, r"m \geqslant 10", r"$m \gt 10$", False, "strict against non-strict")
add(H, r"m \geqslant 10", "m >= 10", True, "plain-text spelling")
add(H, r"x \in [0, 5)", r"$0 \le x < 5$", True, "half-open interval as a chain")
add(H, r"x \in [0, 5)", r"$0 < x < 5$", False, "0 is in the interval")
add(H, r"x < 0 \text{ or } x \ge 3", r"$x \in (-\infty, 0) \cup [3, \infty)$", True, "two rays as a union")
add(H, r"x < 0 \text{ or } x \ge 3", r"$x \in (-\infty, 0] \cup [3, \infty)$", False, "0 wrongly included")
add(H, "5:3", r"$BE:EC = 5:3$", True, "segment ratio with a label")
add(H, "5:3", r"$BE:EC = 3:5$", False, "segment ratio reversed")
add(H, "3000000", r"$\boxed{3,\! 000,\! 000}$", True, "millions with spaced separators")
add(H, "300000", r"$\boxed{3,\! 000,\! 000}$", False, "one group too many")
add(H, "84", "The garden has 12 rows of 7 plants. Thus there are 84 plants, "
    "which is 4 more than last year.", True, "remark after the concluding value")
add(H, "4", "The garden has 12 rows of 7 plants. Thus there are 84 plants, "
    "which is 4 more than last year.", False, "the number in the remark")
add(H, r"\{-2, 5\}", r"The solutions are $\boxed{-2}$ and $\boxed{5}$.", True, "two boxes against a set")
add(H, r"\{-2, 5\}", r"The solutions are $\boxed{2}$ and $\boxed{5}$.", False, "a sign lost")
add(H, r"y_1 = 0, y_2 = 6", r"Hence $y = 0$ or $y = 6$", True, "indexed reference, bare unknown in the response")
add(H, r"y_1 = 0, y_2 = 6", r"Hence $y = 0$ or $y = 5$", False, "second root wrong")
add(H, "(4, -1)", r"Substituting back, $y = 3 - 4 = -1$, so the intersection point is $(4, -1)$.", True,
    "point after a short derivation")
add(H, "(4, -1)", r"Substituting back, $y = 3 - 4 = -1$, so the intersection point is $(-1, 4)$.", False,
    "coordinates swapped")
add(H, r"\frac{\sqrt{2}}{2}", r"$\cos 45^\circ$", True, "cosine of 45 degrees")
add(H, r"\frac{\sqrt{2}}{2}", r"$\cos 45$", False, "45 radians")
add(H, r"\sqrt{3}", r"$\tan 60^{\circ}$", True, "tangent of 60 degrees")
add(H, r"\sqrt{3}", r"$\tan 30^{\circ}$", False, "tangent of 30 degrees")
add(H, r"\sum_{j=1}^{n} a_j b_{n-j}", r"$\sum_{j=1}^{n} b_{n-j} a_j$", True, "factors of a sum body swapped")
add(H, r"\sum_{j=1}^{n} a_j b_{n-j}", r"$\sum_{j=1}^{n} a_{n-j} b_j$", False, "indices moved between factors")
add(H, "2:5", "$4:10$", True, "scaled ratio with the option", ratios="value")
add(H, "2:5", "$5:2$", False, "reversed ratio with the option", ratios="value")
add(H, "2:5", "$4:10$", False, "scaled ratio without the option")


def main():
    out = pathlib.Path(__file__).with_name("math_parity_cases.jsonl")
    with out.open("w") as f:
        for c in C:
            f.write(json.dumps(c, ensure_ascii=False) + "\n")
    print(f"{len(C)} cases -> {out}")


if __name__ == "__main__":
    main()
