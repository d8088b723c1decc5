//! The token's text form, `hacrl_<id>_<secret>`, and how its secret is kept: only the SHA-256
//! digest is stored, and a presented secret is compared with it in constant time.
//!
//! The secret is 32 random bytes from the OS, so a fast hash is enough: Argon2 protects
//! guessable passwords, and would cost tens of milliseconds of CPU on every request here.

use std::fmt;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest as _, Sha256};
use subtle::ConstantTimeEq;
use uuid::Uuid;

/// What every token starts with (so that secret scanners and people recognise one).
const PREFIX: &str = "hacrl_";

/// A token as a client presents it: the row's id (not secret) and the secret.
#[derive(Clone, PartialEq, Eq)]
pub struct Token {
    /// The `tokens` row it names.
    pub id: Uuid,
    secret: String,
}

/// The SHA-256 of a token's secret, as stored.
#[derive(Clone, PartialEq, Eq)]
pub struct SecretDigest(pub [u8; 32]);

impl Token {
    /// A new token with a fresh id and 256 random bits of secret.
    pub fn generate() -> Result<Self, getrandom::Error> {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes)?;
        Ok(Self {
            id: Uuid::new_v4(),
            secret: URL_SAFE_NO_PAD.encode(bytes),
        })
    }

    /// Reads `hacrl_<id>_<secret>`; `None` for anything else.
    pub fn parse(text: &str) -> Option<Self> {
        let (id, secret) = text.strip_prefix(PREFIX)?.split_once('_')?;
        let id = Uuid::try_parse(id).ok()?;
        // A generated secret is 43 characters; a longer one may be given (`--from-env`).
        (secret.len() >= 32 && secret.len() <= 512).then(|| Self {
            id,
            secret: secret.to_string(),
        })
    }

    /// The digest stored for this token.
    pub fn digest(&self) -> SecretDigest {
        SecretDigest(Sha256::digest(self.secret.as_bytes()).into())
    }

    /// The text to hand to the client, once: `hacrl_<id>_<secret>`.
    pub fn reveal(&self) -> String {
        format!("{PREFIX}{}_{}", self.id.simple(), self.secret)
    }
}

/// Never prints the secret, so a token in a logged struct leaks nothing.
impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Token({}, secret hidden)", self.id)
    }
}

impl SecretDigest {
    /// Whether `token`'s secret has this digest, comparing every byte whatever differs first
    /// (`subtle`), so response times say nothing about how close a guess was.
    pub fn matches(&self, token: &Token) -> bool {
        self.0.ct_eq(&token.digest().0).into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_reads_back_and_only_its_secret_matches() {
        let t = Token::generate().unwrap();
        let text = t.reveal();
        assert!(text.starts_with("hacrl_") && text.len() == 6 + 32 + 1 + 43);
        let back = Token::parse(&text).unwrap();
        assert_eq!(back, t);
        assert!(t.digest().matches(&back));
        assert!(!format!("{t:?}").contains(&t.secret));
        // A secret differing in its first or its last character does not match.
        for at in [0, t.secret.len() - 1] {
            let mut other = t.secret.clone().into_bytes();
            other[at] = if other[at] == b'A' { b'B' } else { b'A' };
            let other = Token {
                id: t.id,
                secret: String::from_utf8(other).unwrap(),
            };
            assert!(!t.digest().matches(&other));
        }
        for bad in [
            "",
            "hacrl_",
            "hacrl_x_yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy",
            "Bearer x",
        ] {
            assert!(Token::parse(bad).is_none(), "{bad}");
        }
        let short = format!("hacrl_{}_short", t.id.simple());
        assert!(Token::parse(&short).is_none());
    }
}
