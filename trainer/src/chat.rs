//! Chat templates: the Jinja template a model ships in `tokenizer_config.json` (or
//! `chat_template.jinja`), rendered with minijinja the way `transformers` renders it.

use anyhow::{Context, Result};
use minijinja::{Environment, ErrorKind, context};
use serde::{Deserialize, Serialize};

/// One chat message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    /// `system`, `user` or `assistant`.
    pub role: String,
    /// The text.
    pub content: String,
}

impl Message {
    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        Self {
            role: "user".into(),
            content: content.into(),
        }
    }
}

/// A compiled chat template plus the special-token strings it may reference.
pub struct ChatTemplate {
    env: Environment<'static>,
    source: String,
    bos_token: String,
    eos_token: String,
}

impl std::fmt::Debug for ChatTemplate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChatTemplate")
            .field("bos_token", &self.bos_token)
            .field("eos_token", &self.eos_token)
            .finish()
    }
}

impl Clone for ChatTemplate {
    fn clone(&self) -> Self {
        Self::new(&self.source, &self.bos_token, &self.eos_token).expect("template compiled before")
    }
}

impl ChatTemplate {
    /// Compiles `source`; fails on a syntax error.
    pub fn new(source: &str, bos_token: &str, eos_token: &str) -> Result<Self> {
        let mut env = Environment::new();
        // transformers renders with trim_blocks and lstrip_blocks on.
        env.set_syntax(
            minijinja::syntax::SyntaxConfig::builder()
                .trim_blocks(true)
                .lstrip_blocks(true)
                .build()
                .context("syntax config")?,
        );
        // Templates call Python string methods (.strip(), .startswith(), …).
        env.set_unknown_method_callback(minijinja_contrib::pycompat::unknown_method_callback);
        env.add_function(
            "raise_exception",
            |msg: String| -> Result<String, minijinja::Error> {
                Err(minijinja::Error::new(ErrorKind::InvalidOperation, msg))
            },
        );
        env.add_template_owned("chat", source.to_owned())
            .context("chat template does not compile")?;
        Ok(Self {
            env,
            source: source.to_owned(),
            bos_token: bos_token.to_owned(),
            eos_token: eos_token.to_owned(),
        })
    }

    /// The template's Jinja source.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Renders `messages`; with `add_generation_prompt` the text ends where the assistant's
    /// reply begins.
    pub fn render(&self, messages: &[Message], add_generation_prompt: bool) -> Result<String> {
        let tmpl = self.env.get_template("chat").context("chat template")?;
        tmpl.render(context! {
            messages => minijinja::value::Serde(messages),
            add_generation_prompt => add_generation_prompt,
            bos_token => self.bos_token.as_str(),
            eos_token => self.eos_token.as_str(),
        })
        .context("chat template rendering failed")
    }
}

/// The prompt text of a user message: `template` with the generation prompt, or the message
/// itself for a model without a template.
pub fn prompt_text(template: Option<&ChatTemplate>, user: &str) -> Result<String> {
    match template {
        Some(t) => t.render(&[Message::user(user)], true),
        None => Ok(user.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Python-isms that Llama 3 and Qwen3 templates rely on: namespace, reverse slicing, string
    /// methods, `trim`, `is string`, `raise_exception`, and whitespace control with trim/lstrip.
    const QWEN3_STYLE: &str = r#"{%- set ns = namespace(last_query_index=messages|length - 1) %}
{%- for message in messages[::-1] %}
    {%- set index = (messages|length - 1) - loop.index0 %}
    {%- if message.role == "user" and message.content is string and not message.content.startswith('<tool_response>') %}
        {%- set ns.last_query_index = index %}
    {%- endif %}
{%- endfor %}
{%- for message in messages %}
    {%- if message.role == "system" and not loop.first %}{{ raise_exception("system message must come first") }}{% endif %}
    {%- set content = message.content %}
    {%- if message.role == "assistant" and '</think>' in content %}
        {%- set content = content.split('</think>')[-1].lstrip('\n') %}
    {%- endif %}
    {{- '<|im_start|>' + message.role + '\n' + content|trim + '<|im_end|>\n' }}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|im_start|>assistant\n' }}
{%- endif %}
{{- ns.last_query_index }}"#;

    fn msg(role: &str, content: &str) -> Message {
        Message {
            role: role.into(),
            content: content.into(),
        }
    }

    /// Expected strings were produced by Python Jinja2 (what transformers uses) with the same
    /// template and settings.
    #[test]
    fn renders_python_style_templates() {
        let t = ChatTemplate::new(QWEN3_STYLE, "", "<|im_end|>").unwrap();
        let out = t
            .render(
                &[
                    msg("user", " hi "),
                    msg("assistant", "<think>\nhmm\n</think>\n\nhello"),
                    msg("user", "bye"),
                ],
                true,
            )
            .unwrap();
        assert_eq!(
            out,
            "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\nhello<|im_end|>\n\
             <|im_start|>user\nbye<|im_end|>\n<|im_start|>assistant\n0"
        );
    }

    #[test]
    fn template_errors_are_reported() {
        let t = ChatTemplate::new(QWEN3_STYLE, "", "").unwrap();
        let err = t
            .render(&[msg("user", "a"), msg("system", "b")], false)
            .unwrap_err();
        assert!(
            format!("{err:#}").contains("system message must come first"),
            "{err:#}"
        );
        assert!(ChatTemplate::new("{% if %}", "", "").is_err());
    }

    #[test]
    fn block_whitespace_is_trimmed_like_transformers() {
        // trim_blocks drops the newline after a block tag; lstrip_blocks the indentation before it.
        let t = ChatTemplate::new("{% for m in messages %}\n  {% if true %}\n[{{ m.content }}]\n  {% endif %}\n{% endfor %}", "", "").unwrap();
        assert_eq!(
            t.render(&[msg("user", "x"), msg("user", "y")], false)
                .unwrap(),
            "[x]\n[y]\n"
        );
    }
}
