//! Other projects' protocols, translated to and from the verifier's own types without HTTP, so
//! that each is unit-tested on its own and its handler stays read the request → call → map.

pub mod openrlhf;
pub mod sandbox_fusion;
