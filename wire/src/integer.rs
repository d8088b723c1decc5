//! Integers as JSON Schema reads them: a number with a zero fractional part (`3.0`) is an
//! integer, as it is for JavaScript and for `/openapi.json`'s `"type": "integer"`. serde alone
//! rejects `3.0` for an integer field; `#[serde(deserialize_with = "crate::integer::exact")]`
//! (or `optional` for an `Option`) accepts it and still rejects `3.5` and out-of-range values.

use std::fmt;
use std::marker::PhantomData;

use serde::Deserializer;
use serde::de::{Error, Unexpected, Visitor};

struct Integral<T>(PhantomData<T>);

impl<T: TryFrom<i128>> Integral<T> {
    fn fit<E: Error>(&self, v: i128, unexpected: Unexpected<'_>) -> Result<T, E> {
        T::try_from(v).map_err(|_| E::invalid_value(unexpected, self))
    }
}

impl<'de, T: TryFrom<i128>> Visitor<'de> for Integral<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "an integer that fits {}", std::any::type_name::<T>())
    }

    fn visit_i64<E: Error>(self, v: i64) -> Result<T, E> {
        self.fit(v.into(), Unexpected::Signed(v))
    }

    fn visit_u64<E: Error>(self, v: u64) -> Result<T, E> {
        self.fit(v.into(), Unexpected::Unsigned(v))
    }

    fn visit_f64<E: Error>(self, v: f64) -> Result<T, E> {
        // Every integral f64 within ±2^64 converts exactly.
        if v.fract() == 0.0 && v.abs() < 18_446_744_073_709_551_616.0 {
            self.fit(v as i128, Unexpected::Float(v))
        } else {
            Err(E::invalid_type(Unexpected::Float(v), &self))
        }
    }
}

/// An integer, also written with a zero fractional part.
pub fn exact<'de, D: Deserializer<'de>, T: TryFrom<i128>>(d: D) -> Result<T, D::Error> {
    d.deserialize_any(Integral(PhantomData))
}

/// An optional integer (null or absent: `None`), also written with a zero fractional part.
pub fn optional<'de, D: Deserializer<'de>, T: TryFrom<i128>>(d: D) -> Result<Option<T>, D::Error> {
    struct Opt<T>(PhantomData<T>);
    impl<'de, T: TryFrom<i128>> Visitor<'de> for Opt<T> {
        type Value = Option<T>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an integer or null")
        }
        fn visit_none<E: Error>(self) -> Result<Option<T>, E> {
            Ok(None)
        }
        fn visit_unit<E: Error>(self) -> Result<Option<T>, E> {
            Ok(None)
        }
        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Option<T>, D::Error> {
            exact(d).map(Some)
        }
    }
    d.deserialize_option(Opt(PhantomData))
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    struct T {
        #[serde(deserialize_with = "super::exact")]
        a: i32,
        #[serde(default, deserialize_with = "super::optional")]
        b: Option<u32>,
    }

    fn parse(s: &str) -> Result<T, serde_json::Error> {
        serde_json::from_str(s)
    }

    #[test]
    fn integral_numbers_are_integers() {
        let t = parse(r#"{"a": 3.0, "b": 4}"#).unwrap();
        assert_eq!((t.a, t.b), (3, Some(4)));
        let t = parse(r#"{"a": -7, "b": null}"#).unwrap();
        assert_eq!((t.a, t.b), (-7, None));
        assert_eq!(parse(r#"{"a": 1}"#).unwrap().b, None);
        assert!(parse(r#"{"a": 3.5}"#).is_err());
        assert!(parse(r#"{"a": 3e10}"#).is_err());
        assert!(parse(r#"{"a": 1, "b": -1}"#).is_err());
        assert!(parse(r#"{"a": 1, "b": 2.5}"#).is_err());
        assert!(parse(r#"{"a": "1"}"#).is_err());
        assert!(parse(r#"{"a": 1e300}"#).is_err());
    }
}
