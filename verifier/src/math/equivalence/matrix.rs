//! Matrix arithmetic written in an answer (`\frac{1}{2}\begin{pmatrix}…\end{pmatrix}`, a sum or
//! product of matrices, `-M`) computed into one matrix of expressions, so that it compares
//! element by element with the reference. Shapes that do not fit make the answer undecidable.

use crate::math::expr::Expr;

/// Most elements a computed matrix, and most terms one element of a product, may have.
const MAX_ELEMENTS: usize = 256;
const MAX_INNER: usize = 16;
/// Most expression nodes a computed matrix may hold: products copy their operands' elements
/// (a chain of products would grow exponentially), so the size is checked before building.
const MAX_NODES: usize = 20_000;

type Rows = Vec<Vec<Expr>>;

/// A value during the computation.
enum Value {
    Scalar(Expr),
    Matrix(Rows),
}

/// Why a computation has no result: the shapes do not combine (`2×2 + 2×1`, `M^2`, …).
#[derive(Debug)]
pub(super) struct Incompatible;

fn contains_matrix(e: &Expr) -> bool {
    let mut found = false;
    e.walk(&mut |n| found |= matches!(n, Expr::Matrix(_)));
    found
}

fn map(rows: Rows, f: impl Fn(Expr) -> Expr) -> Rows {
    rows.into_iter()
        .map(|r| r.into_iter().map(&f).collect())
        .collect()
}

fn shape(m: &Rows) -> (usize, usize) {
    (m.len(), m.first().map_or(0, Vec::len))
}

fn node_count(e: &Expr) -> usize {
    let mut n = 0usize;
    e.walk(&mut |_| n += 1);
    n
}

fn nodes(m: &Rows) -> usize {
    m.iter().flatten().map(node_count).sum()
}

fn product(a: &Rows, b: &Rows) -> Result<Rows, Incompatible> {
    let ((n, k), (k2, m)) = (shape(a), shape(b));
    if k != k2 || k > MAX_INNER || n * m > MAX_ELEMENTS {
        return Err(Incompatible);
    }
    // Each element of `a` is copied `m` times, each of `b` `n` times, plus 2 nodes per term.
    if m * nodes(a) + n * nodes(b) + 2 * n * m * k > MAX_NODES {
        return Err(Incompatible);
    }
    Ok((0..n)
        .map(|i| {
            (0..m)
                .map(|j| {
                    Expr::Add(
                        (0..k)
                            .map(|t| Expr::Mul(vec![a[i][t].clone(), b[t][j].clone()]))
                            .collect(),
                    )
                })
                .collect()
        })
        .collect())
}

fn times(a: Value, b: Value) -> Result<Value, Incompatible> {
    Ok(match (a, b) {
        (Value::Scalar(x), Value::Scalar(y)) => Value::Scalar(Expr::Mul(vec![x, y])),
        (Value::Scalar(s), Value::Matrix(m)) | (Value::Matrix(m), Value::Scalar(s)) => {
            let elements = m.iter().map(Vec::len).sum::<usize>();
            if elements * (node_count(&s) + 1) + nodes(&m) > MAX_NODES {
                return Err(Incompatible);
            }
            Value::Matrix(map(m, |e| Expr::Mul(vec![s.clone(), e])))
        }
        (Value::Matrix(a), Value::Matrix(b)) => Value::Matrix(product(&a, &b)?),
    })
}

fn value(e: &Expr) -> Result<Value, Incompatible> {
    if !contains_matrix(e) {
        return Ok(Value::Scalar(e.clone()));
    }
    match e {
        Expr::Matrix(rows) => Ok(Value::Matrix(rows.clone())),
        Expr::Neg(a) => Ok(match value(a)? {
            Value::Matrix(m) => Value::Matrix(map(m, |x| Expr::Neg(Box::new(x)))),
            Value::Scalar(s) => Value::Scalar(Expr::Neg(Box::new(s))),
        }),
        Expr::Add(terms) => {
            let mut acc: Option<Rows> = None;
            for t in terms {
                let Value::Matrix(m) = value(t)? else {
                    // A number plus a matrix has no meaning.
                    return Err(Incompatible);
                };
                acc = Some(match acc {
                    None => m,
                    Some(a) if shape(&a) == shape(&m) => a
                        .into_iter()
                        .zip(m)
                        .map(|(ra, rb)| {
                            ra.into_iter()
                                .zip(rb)
                                .map(|(x, y)| Expr::Add(vec![x, y]))
                                .collect()
                        })
                        .collect(),
                    Some(_) => return Err(Incompatible),
                });
            }
            acc.map(Value::Matrix).ok_or(Incompatible)
        }
        Expr::Mul(factors) => {
            let mut acc = Value::Scalar(Expr::int(1));
            for f in factors {
                acc = times(acc, value(f)?)?;
            }
            Ok(acc)
        }
        Expr::Div(a, b) => match (value(a)?, value(b)?) {
            (Value::Matrix(m), Value::Scalar(s))
                if m.iter().map(Vec::len).sum::<usize>() * (node_count(&s) + 1) + nodes(&m)
                    <= MAX_NODES =>
            {
                Ok(Value::Matrix(map(m, |x| {
                    Expr::Div(Box::new(x), Box::new(s.clone()))
                })))
            }
            _ => Err(Incompatible),
        },
        // Powers, functions of matrices and matrices inside structures are not computed.
        _ => Err(Incompatible),
    }
}

/// The matrix an arithmetic expression over matrices evaluates to; `None` when `e` is not
/// such an expression (a plain matrix, a number, a structure).
pub(super) fn computed(e: &Expr) -> Option<Result<Expr, Incompatible>> {
    let arithmetic = matches!(
        e,
        Expr::Add(_) | Expr::Mul(_) | Expr::Neg(_) | Expr::Div(..)
    );
    if !arithmetic || !contains_matrix(e) {
        return None;
    }
    Some(match value(e) {
        Ok(Value::Matrix(m)) if m.iter().map(Vec::len).sum::<usize>() <= MAX_ELEMENTS => {
            Ok(Expr::Matrix(m))
        }
        Ok(_) | Err(_) => Err(Incompatible),
    })
}
