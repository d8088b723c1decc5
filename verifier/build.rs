//! `sqlx::migrate!` embeds `migrations/` at compile time but does not tell cargo to watch it:
//! without this, a new migration file would not rebuild the service that must apply it.
fn main() {
    println!("cargo:rerun-if-changed=../migrations");
}
