//! Finding the program in a model response by its code fences: the last fenced block tagged
//! with the task's language, else the last untagged one, else the whole text. (Math answers are
//! extracted, in [`crate::math::extract`]; the word `extraction` survives here only as the
//! public JSON field and schema that say which of the three found the program.)

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// How the program was taken from the response.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Extraction {
    /// The last fenced block tagged with the task's language.
    FencedBlock,
    /// No block tagged with the language; the last untagged fenced block.
    UntaggedBlock,
    /// No fenced block; the whole response.
    WholeText,
}

/// A fenced block: its info string's first word and its body.
struct Block<'a> {
    tag: &'a str,
    body: String,
}

/// Splits `text` into fenced blocks (``` or ~~~ fences, closing fence at least as long).
fn blocks(text: &str) -> Vec<Block<'_>> {
    let mut out = Vec::new();
    let mut open: Option<(char, usize, &str, Vec<&str>)> = None;
    for line in text.lines() {
        let trimmed = line.trim_start();
        let fence_char = trimmed.chars().next().filter(|c| *c == '`' || *c == '~');
        let fence_len = fence_char.map_or(0, |c| trimmed.chars().take_while(|x| *x == c).count());
        match &mut open {
            None => {
                if let (Some(c), true) = (fence_char, fence_len >= 3) {
                    let info = trimmed[fence_len * c.len_utf8()..].trim();
                    let tag = info.split_whitespace().next().unwrap_or("");
                    open = Some((c, fence_len, tag, Vec::new()));
                }
            }
            Some((c, len, tag, lines)) => {
                let closes = fence_char == Some(*c)
                    && fence_len >= *len
                    && trimmed[fence_len * c.len_utf8()..].trim().is_empty();
                if closes {
                    out.push(Block {
                        tag,
                        body: lines.join("\n"),
                    });
                    open = None;
                } else {
                    lines.push(line);
                }
            }
        }
    }
    // An unclosed final fence (a response cut off by the token limit) still counts.
    if let Some((_, _, tag, lines)) = open {
        out.push(Block {
            tag,
            body: lines.join("\n"),
        });
    }
    out
}

/// Whether a fence tag names `language`.
fn tag_matches(tag: &str, language: sandbox::Language) -> bool {
    let tag = tag.trim_start_matches('{').trim_start_matches('.');
    sandbox::Language::parse(tag) == Some(language)
        || (language == sandbox::Language::Python && tag.eq_ignore_ascii_case("python3"))
        || (language == sandbox::Language::Cpp && tag.eq_ignore_ascii_case("cplusplus"))
}

/// The program in `response`, and how it was found.
pub fn program(response: &str, language: sandbox::Language) -> (String, Extraction) {
    let all = blocks(response);
    if let Some(b) = all.iter().rev().find(|b| tag_matches(b.tag, language)) {
        return (b.body.clone(), Extraction::FencedBlock);
    }
    if let Some(b) = all.iter().rev().find(|b| b.tag.is_empty()) {
        return (b.body.clone(), Extraction::UntaggedBlock);
    }
    (response.to_string(), Extraction::WholeText)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sandbox::Language;

    #[test]
    fn takes_the_last_block_in_the_language() {
        let r =
            "Try:\n```python\nx = 1\n```\nBetter:\n```py\nx = 2\nprint(x)\n```\n```text\nout\n```";
        assert_eq!(
            program(r, Language::Python),
            ("x = 2\nprint(x)".into(), Extraction::FencedBlock)
        );
    }

    #[test]
    fn falls_back_to_untagged_block_then_whole_text() {
        assert_eq!(
            program("```\nprint(1)\n```", Language::Python),
            ("print(1)".into(), Extraction::UntaggedBlock)
        );
        assert_eq!(
            program("print(1)\n", Language::Python),
            ("print(1)\n".into(), Extraction::WholeText)
        );
        let cpp = "```c++\nint main(){}\n```";
        assert_eq!(program(cpp, Language::Cpp).1, Extraction::FencedBlock);
        assert_eq!(program(cpp, Language::C).1, Extraction::WholeText);
    }

    #[test]
    fn handles_unclosed_and_longer_fences() {
        assert_eq!(
            program("```python\nprint(1)", Language::Python).0,
            "print(1)"
        );
        let nested = "````python\n```\ninner\n```\n````";
        assert_eq!(program(nested, Language::Python).0, "```\ninner\n```");
    }
}
