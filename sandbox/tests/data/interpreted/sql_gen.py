"""Writes sql.txt: 30 SQL problems, each a setup, an accepted query, a wrong one, a crashing one
and a slow one (sandbox/tests/interpreted_judge.rs). The expected output of each accepted script
is what the host's native `sqlite3 :memory:` prints for it (a different SQLite build from the
sandbox's wasm one). Run: python3 sql_gen.py"""

import os
import subprocess

STAFF = """CREATE TABLE staff(id INTEGER PRIMARY KEY, name TEXT, dept TEXT, salary INTEGER, manager_id INTEGER);
INSERT INTO staff VALUES (1, 'Ada', 'eng', 120, NULL), (2, 'Bob', 'eng', 90, 1), (3, 'Cyd', 'ops', 70, 1),
  (4, 'Dee', 'ops', 80, 3), (5, 'Eve', 'eng', 90, 1), (6, 'Fay', 'hr', 60, NULL), (7, 'Gus', 'hr', 65, 6);
"""
SHOP = """CREATE TABLE customers(name TEXT PRIMARY KEY, city TEXT);
CREATE TABLE orders(id INTEGER PRIMARY KEY, customer TEXT, amount INTEGER, day TEXT);
INSERT INTO customers VALUES ('ann', 'Oslo'), ('ben', 'Rome'), ('cat', 'Oslo'), ('dan', 'Lima');
INSERT INTO orders VALUES (1, 'ann', 50, '2026-03-01'), (2, 'ben', 120, '2026-03-02'), (3, 'ann', 70, '2026-04-01'),
  (4, 'cat', 20, '2026-03-02'), (5, 'ben', 5, '2026-05-10'), (6, 'cat', 30, '2026-03-15');
"""
SCHOOL = """CREATE TABLE students(id INTEGER PRIMARY KEY, name TEXT);
CREATE TABLE grades(student_id INTEGER, course TEXT, score INTEGER);
INSERT INTO students VALUES (1, 'Ivy'), (2, 'Jon'), (3, 'Kim'), (4, 'Lou');
INSERT INTO grades VALUES (1, 'math', 91), (1, 'art', 78), (2, 'math', 55), (2, 'art', 88), (3, 'math', 91),
  (3, 'bio', 67), (4, 'bio', 49), (4, 'math', 73), (3, 'art', 60);
"""
NUMS = """CREATE TABLE t(x INTEGER);
INSERT INTO t VALUES (4), (8), (15), (16), (23), (42), (8), (4), (1);
"""
GRAPH = """CREATE TABLE edges(src INTEGER, dst INTEGER);
INSERT INTO edges VALUES (1, 2), (2, 3), (3, 1), (3, 4), (5, 6), (4, 7), (2, 7);
"""
FOREVER = "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) "

PROBLEMS = [
    ("01_count_staff", STAFF,
     "SELECT count(*) FROM staff;",
     "SELECT count(manager_id) FROM staff;",
     "SELECT count(*) FROM staf;",
     FOREVER + "SELECT count(*) FROM r, staff WHERE r.n = staff.id AND r.n > 100;"),
    ("02_salary_per_dept", STAFF,
     "SELECT dept, sum(salary) FROM staff GROUP BY dept ORDER BY dept;",
     "SELECT dept, max(salary) FROM staff GROUP BY dept ORDER BY dept;",
     "SELECT dept, sum(salary) FROM staff GROUP BY department ORDER BY dept;",
     FOREVER + "SELECT dept, sum(salary) FROM staff JOIN r ON r.n = staff.id GROUP BY dept ORDER BY dept;"),
    ("03_top_earner", STAFF,
     "SELECT name FROM staff ORDER BY salary DESC LIMIT 1;",
     "SELECT name FROM staff ORDER BY salary LIMIT 1;",
     "SELECT name FROM staff ORDER BY salary DESC LIMIT 'one';",
     FOREVER + "SELECT name FROM staff WHERE salary = (SELECT max(n) FROM r);"),
    ("04_above_dept_average", STAFF,
     "SELECT name FROM staff s WHERE salary > (SELECT avg(salary) FROM staff WHERE dept = s.dept) ORDER BY name;",
     "SELECT name FROM staff WHERE salary > (SELECT avg(salary) FROM staff) ORDER BY name;",
     "SELECT name FROM staff s WHERE salary > avg(salary) ORDER BY name;",
     FOREVER + "SELECT name FROM staff s WHERE salary > (SELECT avg(salary) FROM staff, r WHERE dept = s.dept) ORDER BY name;"),
    ("05_reports_per_manager", STAFF,
     "SELECT m.name, count(*) FROM staff e JOIN staff m ON e.manager_id = m.id GROUP BY m.id ORDER BY m.name;",
     "SELECT m.name, count(*) FROM staff e JOIN staff m ON e.id = m.manager_id GROUP BY m.id ORDER BY m.name;",
     "SELECT m.name, count(*) FROM staff e JOIN staff m ON e.manager_id = m.id GROUP BY m.id ORDER BY boss;",
     FOREVER + "SELECT m.name, count(*) FROM staff e JOIN staff m ON e.manager_id = m.id JOIN r ON r.n = e.id GROUP BY m.id;"),
    ("06_no_manager", STAFF,
     "SELECT name FROM staff WHERE manager_id IS NULL ORDER BY name;",
     "SELECT name FROM staff WHERE manager_id = NULL ORDER BY name;",
     "SELECT name FROM staff WHERE manager_id IS NULL ORDER BY name COLLATE german;",
     FOREVER + "SELECT name FROM staff WHERE coalesce(manager_id, 0) IN (SELECT n - 1 FROM r) ORDER BY name;"),
    ("07_second_salary", STAFF,
     "SELECT DISTINCT salary FROM staff ORDER BY salary DESC LIMIT 1 OFFSET 1;",
     "SELECT DISTINCT salary FROM staff ORDER BY salary LIMIT 1 OFFSET 1;",
     "SELECT DISTINCT salary FROM staff ORDER BY salary DESC LIMIT 1 OFFSET -;",
     FOREVER + "SELECT max(n) FROM r WHERE n < (SELECT max(salary) FROM staff);"),
    ("08_big_customers", SHOP,
     "SELECT customer, sum(amount) FROM orders GROUP BY customer HAVING sum(amount) > 100 ORDER BY customer;",
     "SELECT customer, sum(amount) FROM orders WHERE amount > 100 GROUP BY customer ORDER BY customer;",
     "SELECT customer, sum(amount) FROM orders HAVING sum(amount) > 100 GROUP BY customer;",
     FOREVER + "SELECT customer, sum(amount) FROM orders, r GROUP BY customer HAVING sum(amount) > 100;"),
    ("09_orders_per_city", SHOP,
     "SELECT c.city, count(o.id) FROM customers c LEFT JOIN orders o ON o.customer = c.name GROUP BY c.city ORDER BY c.city;",
     "SELECT c.city, count(*) FROM customers c LEFT JOIN orders o ON o.customer = c.name GROUP BY c.city ORDER BY c.city;",
     "SELECT c.city, count(o.id) FROM customers c LEFT JOIN orders o ON o.customer = c.cust_name GROUP BY c.city;",
     FOREVER + "SELECT c.city, count(o.id) FROM customers c JOIN r LEFT JOIN orders o ON o.customer = c.name GROUP BY c.city;"),
    ("10_customers_without_orders", SHOP,
     "SELECT name FROM customers WHERE name NOT IN (SELECT customer FROM orders) ORDER BY name;",
     "SELECT name FROM customers WHERE name IN (SELECT customer FROM orders) ORDER BY name;",
     "SELECT name FROM customers WHERE name NOT IN (SELECT customer, amount FROM orders) ORDER BY name;",
     FOREVER + "SELECT name FROM customers WHERE name NOT IN (SELECT customer FROM orders JOIN r ON r.n > 0) ORDER BY name;"),
    ("11_running_total", SHOP,
     "SELECT day, sum(sum(amount)) OVER (ORDER BY day) FROM orders GROUP BY day ORDER BY day;",
     "SELECT day, sum(amount) FROM orders GROUP BY day ORDER BY day;",
     "SELECT day, sum(sum(amount)) OVER (ORDER BY dya) FROM orders GROUP BY day ORDER BY day;",
     FOREVER + "SELECT day, (SELECT sum(amount) FROM orders o2, r WHERE o2.day <= o.day AND r.n < 0) FROM orders o GROUP BY day;"),
    ("12_top_customer", SHOP,
     "SELECT customer FROM orders GROUP BY customer ORDER BY sum(amount) DESC LIMIT 1;",
     "SELECT customer FROM orders ORDER BY amount DESC LIMIT 1 OFFSET 1;",
     "SELECT customer FROM orders GROUP BY customer ORDER BY sum(amount) DESC LIMIT 1 2;",
     FOREVER + "SELECT customer FROM orders, r GROUP BY customer ORDER BY sum(amount) DESC LIMIT 1;"),
    ("13_course_averages", SCHOOL,
     "SELECT course, round(avg(score), 2) FROM grades GROUP BY course ORDER BY course;",
     "SELECT course, sum(score) / count(*) FROM grades GROUP BY course ORDER BY course;",
     "SELECT course, round(avg(score), 2) FROM grade GROUP BY course ORDER BY course;",
     FOREVER + "SELECT course, round(avg(score), 2) FROM grades JOIN r ON r.n = score GROUP BY course;"),
    ("14_passed_everything", SCHOOL,
     "SELECT s.name FROM students s JOIN grades g ON g.student_id = s.id GROUP BY s.id HAVING min(g.score) >= 60 ORDER BY s.name;",
     "SELECT DISTINCT s.name FROM students s JOIN grades g ON g.student_id = s.id WHERE g.score >= 60 ORDER BY s.name;",
     "SELECT s.name FROM students s JOIN grades g ON g.student_id = s.id GROUP BY s.id HAVING min(g.grade) >= 60 ORDER BY s.name;",
     FOREVER + "SELECT s.name FROM students s JOIN grades g ON g.student_id = s.id, r GROUP BY s.id HAVING min(g.score) >= 60;"),
    ("15_rank_by_total", SCHOOL,
     "SELECT name, total, dense_rank() OVER (ORDER BY total DESC) FROM (SELECT s.name, sum(score) AS total FROM students s JOIN grades g ON g.student_id = s.id GROUP BY s.id) ORDER BY total DESC, name;",
     "SELECT name, total, row_number() OVER (ORDER BY total) FROM (SELECT s.name, sum(score) AS total FROM students s JOIN grades g ON g.student_id = s.id GROUP BY s.id) ORDER BY total DESC, name;",
     "SELECT name, total, dense_rank() OVER (ORDER BY total DESC) FROM (SELECT s.name, sum(score) AS total FROM students s JOIN grades g ON g.student_id = s.id GROUP BY s.id) ORDER BY totl DESC;",
     FOREVER + "SELECT name, sum(score) FROM students s JOIN grades g ON g.student_id = s.id JOIN r ON r.n > 0 GROUP BY s.id;"),
    ("16_busiest_course", SCHOOL,
     "SELECT course FROM grades GROUP BY course ORDER BY count(*) DESC, course LIMIT 1;",
     "SELECT course FROM grades GROUP BY course ORDER BY count(*), course LIMIT 1;",
     "SELECT course FROM grades GROUP BY course ORDER BY count(**) DESC LIMIT 1;",
     FOREVER + "SELECT course FROM grades, r GROUP BY course ORDER BY count(*) DESC LIMIT 1;"),
    ("17_median", NUMS,
     "SELECT x FROM t ORDER BY x LIMIT 1 OFFSET (SELECT count(*) / 2 FROM t);",
     "SELECT avg(x) FROM t;",
     "SELECT x FROM t ORDER BY x LIMIT 1 OFFSET (SELECT count(*) / 2, 1 FROM t);",
     FOREVER + "SELECT x FROM t ORDER BY x LIMIT 1 OFFSET (SELECT count(*) / 2 FROM t, r);"),
    ("18_distinct_values", NUMS,
     "SELECT count(DISTINCT x) FROM t;",
     "SELECT count(x) FROM t;",
     "SELECT count(DISTINCT x, x) FROM t;",
     FOREVER + "SELECT count(DISTINCT n) FROM r WHERE n IN (SELECT x FROM t);"),
    ("19_sum_of_evens", NUMS,
     "SELECT sum(x) FROM t WHERE x % 2 = 0;",
     "SELECT sum(x) FROM t WHERE x % 2 = 1;",
     "SELECT sum(x) FROM t WHERE x % 2 = 0 AND abs(-9223372036854775807 - 1) > 0;",
     FOREVER + "SELECT sum(n) FROM r WHERE n IN (SELECT x FROM t) AND n % 2 = 0;"),
    ("20_sum_of_squares", "",
     "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 10) SELECT sum(n * n) FROM r;",
     "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n <= 10) SELECT sum(n * n) FROM r;",
     "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 10) SELECT sum(n * m) FROM r;",
     "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 2 FROM r WHERE n != 10) SELECT sum(n * n) FROM r;"),
    ("21_fibonacci", "",
     "WITH RECURSIVE f(i, a, b) AS (SELECT 1, 0, 1 UNION ALL SELECT i + 1, b, a + b FROM f WHERE i < 10) SELECT group_concat(a, ' ') FROM f;",
     "WITH RECURSIVE f(i, a, b) AS (SELECT 1, 1, 1 UNION ALL SELECT i + 1, b, a + b FROM f WHERE i < 10) SELECT group_concat(a, ' ') FROM f;",
     "WITH RECURSIVE f(i, a, b) AS (SELECT 1, 0, 1 UNION ALL SELECT i + 1, b, a + b FROM f WHERE i < 10) SELECT group_concat(a, ' ', 'and') FROM f;",
     "WITH RECURSIVE f(i, a, b) AS (SELECT 1, 0, 1 UNION ALL SELECT i + 1, b, (a + b) % 1000 FROM f WHERE i != 0) SELECT group_concat(a, ' ') FROM f;"),
    ("22_reachable", GRAPH,
     "WITH RECURSIVE seen(node) AS (SELECT 1 UNION SELECT dst FROM edges JOIN seen ON src = node) SELECT group_concat(node, ' ') FROM (SELECT node FROM seen ORDER BY node);",
     "SELECT group_concat(dst, ' ') FROM (SELECT dst FROM edges WHERE src = 1 ORDER BY dst);",
     "WITH RECURSIVE seen(node) AS (SELECT 1 UNION SELECT dst FROM edges JOIN seen ON src = node) SELECT group_concat(node, ' ') FROM (SELECT nod FROM seen ORDER BY node);",
     "WITH RECURSIVE seen(node) AS (SELECT 1 UNION ALL SELECT dst FROM edges JOIN seen ON src = node) SELECT group_concat(node, ' ') FROM (SELECT DISTINCT node FROM seen ORDER BY node);"),
    ("23_out_degree", GRAPH,
     "SELECT src, count(*) FROM edges GROUP BY src ORDER BY count(*) DESC, src;",
     "SELECT dst, count(*) FROM edges GROUP BY dst ORDER BY count(*) DESC, dst;",
     "SELECT src, count(*) FROM edges GROUP BY src ORDER BY count(*) DESC, source;",
     FOREVER + "SELECT src, count(*) FROM edges JOIN r ON r.n > src GROUP BY src;"),
    ("24_names_by_dept", STAFF,
     "SELECT dept, group_concat(name, ',') FROM (SELECT dept, name FROM staff ORDER BY dept, name) GROUP BY dept ORDER BY dept;",
     "SELECT dept, group_concat(name, ',') FROM (SELECT dept, name FROM staff ORDER BY dept, name DESC) GROUP BY dept ORDER BY dept;",
     "SELECT dept, group_concat(name, ',', ';') FROM staff GROUP BY dept ORDER BY dept;",
     FOREVER + "SELECT dept, group_concat(name, ',') FROM staff JOIN r ON r.n > 0 GROUP BY dept;"),
    ("25_salary_bands", STAFF,
     "SELECT CASE WHEN salary >= 90 THEN 'high' WHEN salary >= 70 THEN 'mid' ELSE 'low' END AS band, count(*) FROM staff GROUP BY band ORDER BY band;",
     "SELECT CASE WHEN salary > 90 THEN 'high' WHEN salary > 70 THEN 'mid' ELSE 'low' END AS band, count(*) FROM staff GROUP BY band ORDER BY band;",
     "SELECT CASE WHEN salary >= 90 THEN 'high' WHEN salary >= 70 THEN 'mid' ELSE 'low' AS band, count(*) FROM staff GROUP BY band;",
     FOREVER + "SELECT CASE WHEN salary >= 90 THEN 'high' ELSE 'low' END AS band, count(*) FROM staff JOIN r ON r.n > 0 GROUP BY band;"),
    ("26_march_orders", SHOP,
     "SELECT count(*), sum(amount) FROM orders WHERE strftime('%m', day) = '03';",
     "SELECT count(*), sum(amount) FROM orders WHERE day BETWEEN '2026-03-01' AND '2026-03-14';",
     "SELECT count(*), sum(amount) FROM orders WHERE strftime('%m', day) = '03' GROUP BY;",
     FOREVER + "SELECT count(*), sum(amount) FROM orders JOIN r ON r.n > 0 WHERE strftime('%m', day) = '03';"),
    ("27_initials", STAFF,
     "SELECT group_concat(substr(name, 1, 1), '') FROM (SELECT name FROM staff ORDER BY id);",
     "SELECT group_concat(substr(name, 0, 1), '') FROM (SELECT name FROM staff ORDER BY id);",
     "SELECT group_concat(substring(name, 1, 1, 1), '') FROM (SELECT name FROM staff ORDER BY id);",
     FOREVER + "SELECT group_concat(substr(name, 1, 1), '') FROM staff JOIN r ON r.n > 0;"),
    ("28_same_dept_pairs", STAFF,
     "SELECT a.name, b.name FROM staff a JOIN staff b ON a.dept = b.dept AND a.id < b.id ORDER BY a.id, b.id;",
     "SELECT a.name, b.name FROM staff a JOIN staff b ON a.dept = b.dept AND a.id != b.id ORDER BY a.id, b.id;",
     "SELECT a.name, b.name FROM staff a JOIN staff b ON a.dept = b.dept AND a.id < b.id ORDER BY a.id, c.id;",
     FOREVER + "SELECT a.name, b.name FROM staff a JOIN staff b ON a.dept = b.dept AND a.id < b.id WHERE (SELECT count(*) FROM r) > 0;"),
    ("29_raise_then_total", STAFF,
     "UPDATE staff SET salary = salary * 11 / 10 WHERE dept = 'ops';\nSELECT sum(salary) FROM staff;",
     "UPDATE staff SET salary = salary * (11 / 10) WHERE dept = 'ops';\nSELECT sum(salary) FROM staff;",
     "UPDATE staff SET id = 1 WHERE dept = 'ops';\nSELECT sum(salary) FROM staff;",
     FOREVER + "UPDATE staff SET salary = salary * 11 / 10 WHERE dept = 'ops' AND id NOT IN (SELECT n FROM r WHERE n < 0);\nSELECT sum(salary) FROM staff;"),
    ("30_drop_duplicates", NUMS,
     "DELETE FROM t WHERE rowid NOT IN (SELECT min(rowid) FROM t GROUP BY x);\nSELECT count(*), sum(x) FROM t;",
     "DELETE FROM t WHERE rowid IN (SELECT min(rowid) FROM t GROUP BY x);\nSELECT count(*), sum(x) FROM t;",
     "CREATE UNIQUE INDEX one_x ON t(x);\nSELECT count(*), sum(x) FROM t;",
     FOREVER + "DELETE FROM t WHERE x IN (SELECT n FROM r WHERE n > 1000);\nSELECT count(*), sum(x) FROM t;"),
]


def native(script):
    return subprocess.run(["sqlite3", "-batch", ":memory:"], input=script, capture_output=True, text=True, timeout=10)


here = os.path.dirname(os.path.abspath(__file__))
out = []
for name, setup, accepted, wrong, crash, slow in PROBLEMS:
    run = native(setup + accepted)
    assert run.returncode == 0 and run.stdout and not run.stderr, (name, run)
    assert native(setup + wrong).stdout != run.stdout, name
    assert native(setup + crash).returncode != 0, name
    out.append(f"=== {name}\n--- setup\n{setup}--- accepted\n{accepted}\n--- wrong\n{wrong}\n"
               f"--- crash\n{crash}\n--- slow\n{slow}\n--- expect\n{run.stdout}")
with open(os.path.join(here, "sql.txt"), "w") as f:
    f.write("".join(out))
print(f"{len(PROBLEMS)} problems")
