//! The schema of the free-form JSON the pool stores (`metadata`, `extra`): any JSON value whose
//! numbers stay within ±[`MAX_MAGNITUDE`] and whose strings hold no NUL, at every depth.
//! Postgres prints a jsonb number digit by digit, so a larger one would not read back; text
//! cannot hold U+0000. The service refuses both with a 422; the document says so in the schema
//! itself, through one recursive component, [`StoredJson`].

#[cfg(feature = "schema")]
pub use schema::{StoredJson, object_schema, optional_object_schema};

/// The largest magnitude of a number inside stored JSON.
pub const MAX_MAGNITUDE: f64 = 1e300;

#[cfg(feature = "schema")]
mod schema {
    use std::borrow::Cow;

    use utoipa::openapi::schema::{AnyOfBuilder, ArrayBuilder, ObjectBuilder, Schema, Type};
    use utoipa::openapi::{Ref, RefOr};

    use super::MAX_MAGNITUDE;

    /// Any JSON value the pool can store and read back (the document's `StoredJson` component).
    pub struct StoredJson;

    impl utoipa::ToSchema for StoredJson {
        fn name() -> Cow<'static, str> {
            Cow::Borrowed("StoredJson")
        }
    }

    impl utoipa::PartialSchema for StoredJson {
        fn schema() -> RefOr<Schema> {
            let me = || Ref::from_schema_name("StoredJson");
            AnyOfBuilder::new()
                .description(Some(format!(
                    "Any JSON value whose numbers are within ±{MAX_MAGNITUDE:e} and whose strings \
                 and keys hold no NUL (U+0000), at every depth"
                )))
                .item(ObjectBuilder::new().schema_type(Type::Null))
                .item(ObjectBuilder::new().schema_type(Type::Boolean))
                .item(
                    ObjectBuilder::new()
                        .schema_type(Type::String)
                        .pattern(Some(NO_NUL)),
                )
                .item(
                    ObjectBuilder::new()
                        .schema_type(Type::Number)
                        .minimum(Some(-MAX_MAGNITUDE))
                        .maximum(Some(MAX_MAGNITUDE)),
                )
                .item(ArrayBuilder::new().items(me()))
                .item(object(false))
                .into()
        }
    }

    const NO_NUL: &str = r"^[^\u0000]*$";

    /// A JSON object of [`StoredJson`] values (`null` too where `nullable`).
    fn object(nullable: bool) -> ObjectBuilder {
        let types = if nullable {
            vec![Type::Object, Type::Null]
        } else {
            vec![Type::Object]
        };
        ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::SchemaType::from_iter(types))
            .property_names(Some(
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .pattern(Some(NO_NUL)),
            ))
            .additional_properties(Some(Ref::from_schema_name("StoredJson")))
    }

    /// A stored JSON object (`metadata`, `extra`): `#[schema(schema_with = wire::json::object_schema)]`.
    pub fn object_schema() -> ObjectBuilder {
        object(false)
    }

    /// The same, optional (`null` or absent).
    pub fn optional_object_schema() -> ObjectBuilder {
        object(true)
    }
}
