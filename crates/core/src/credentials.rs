//! Keeping secrets out of what is printed, stored and put on a remote
//! command line, and reading them from where they may be given instead.
//!
//! One rule, [`redact`], applies to any text before it is written or shown:
//! the password of a URL's user info is removed
//! (`postgres://bench:secret@h/db` -> `postgres://bench@h/db`) and the
//! values of the query parameters [`SECRET_PARAMS`] become [`MASK`]
//! (`?password=x` -> `?password=***`). [`redact_args`] applies it to a
//! command line, and masks the value of each flag in [`SECRET_FLAGS`] and of
//! credential headers (`-H 'Authorization: ...'`).
//!
//! A password left out of a database URL is read, in this order, from the
//! driver's own variable ([`PGPASSWORD`] for PostgreSQL, [`MYSQL_PWD`] for
//! MariaDB/MySQL), from the file [`PASSWORD_FILE_ENV`] names (which must be
//! readable by its owner only), or from a prompt when standard input is a
//! terminal: [`password_for`].

use std::io::IsTerminal;

use crate::error::BenchError;

/// What a secret value is replaced with.
pub const MASK: &str = "***";

/// Query parameters whose values are secrets (compared without case).
pub const SECRET_PARAMS: &[&str] = &[
    "password",
    "pass",
    "pwd",
    "token",
    "secret",
    "key",
    "apikey",
    "api_key",
    "access_token",
];

/// Words that make a key a secret's when it holds one (compared without
/// case): a tag `db_password=...`, a suite setting `net.token=...`, an
/// argument `api_key=...` keep their key and lose their value.
pub const SECRET_KEY_WORDS: &[&str] = &["password", "secret", "token", "key"];

/// Flags whose value is a secret (`--token X` or `--token=X`).
pub const SECRET_FLAGS: &[&str] = &["--token"];

/// Header names whose values are credentials, for `-H`/`--header`.
pub const SECRET_HEADERS: &[&str] = &[
    "authorization",
    "proxy-authorization",
    "cookie",
    "x-api-key",
    "x-auth-token",
];

/// PostgreSQL's password variable (libpq's), read for a `postgres://` URL
/// without a password.
pub const PGPASSWORD: &str = "PGPASSWORD";
/// MariaDB's and MySQL's password variable, read for a `mysql://` URL
/// without a password.
pub const MYSQL_PWD: &str = "MYSQL_PWD";
/// The variable that carries `--token` to a process started on a remote
/// host (and may give it locally).
pub const TOKEN_ENV: &str = "NODEBENCH_TOKEN";
/// The variable naming a file (mode 0600 or stricter) that holds a
/// database password.
pub const PASSWORD_FILE_ENV: &str = "NODEBENCH_PASSWORD_FILE";

/// The user info written as a placeholder in messages and `--help`
/// (`postgres://USER[:PASSWORD]@HOST`): left as it is.
const PLACEHOLDER_USER_INFO: &str = "USER[:PASSWORD]";

/// The length of the URL text after `SCHEME://` at the start of `rest`:
/// up to white space, a quote, `<`, `>` or a backtick, which no URL holds
/// unescaped and which end a URL written in a message.
fn url_len(rest: &str) -> usize {
    rest.find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '`' | '<' | '>'))
        .unwrap_or(rest.len())
}

/// Where the user info of a URL ends: the index of its `@` in `rest`, the
/// URL's text after `SCHEME://` (bounded by [`url_len`]).
///
/// PostgreSQL's driver takes the user info up to the first `@` anywhere,
/// so a password holding `/`, `?` or `#` is still a password; for
/// `postgres://` the user info ends at the last `@` before the query that
/// follows the first `@` (an `@` in a password is kept with it). Other
/// schemes follow the URL standard (the last `@` before `/`, `?` or `#`),
/// unless the text before the first `/` is `USER:NOT-A-PORT`, a password
/// holding `/`, which is then read as PostgreSQL's driver would.
fn user_info_at(scheme: &str, rest: &str) -> Option<usize> {
    let first = rest.find('@')?;
    let extended = || {
        let query = rest[first..]
            .find(['?', '#'])
            .map_or(rest.len(), |q| first + q);
        rest[..query].rfind('@')
    };
    if matches!(scheme, "postgres" | "postgresql") {
        return extended();
    }
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    if let Some(at) = rest[..authority_end].rfind('@') {
        return Some(at);
    }
    match rest[..authority_end].split_once(':') {
        Some((_, port)) if !port.bytes().all(|b| b.is_ascii_digit()) => extended(),
        _ => None,
    }
}

/// `url`'s scheme and the rest after `://`, bounded by [`url_len`].
fn split_url(url: &str) -> Option<(&str, &str)> {
    let (scheme, rest) = url.split_once("://")?;
    Some((scheme, &rest[..url_len(rest)]))
}

/// `url` with the password of its user info removed
/// (`postgres://bench:secret@h/db` -> `postgres://bench@h/db`); a text
/// without `://` comes back as it is. Query parameters are left as they
/// are: [`redact`] masks those too.
pub fn without_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    match user_info_at(scheme, &rest[..url_len(rest)]) {
        Some(at) if &rest[..at] != PLACEHOLDER_USER_INFO => {
            let user = rest[..at].split(':').next().unwrap_or("");
            format!("{scheme}://{user}{}", &rest[at..])
        }
        _ => url.to_string(),
    }
}

/// The password in `url`'s user info, if it has one (percent-encoding
/// left as written).
pub fn url_password(url: &str) -> Option<&str> {
    let (scheme, rest) = split_url(url)?;
    let at = user_info_at(scheme, rest)?;
    rest[..at].split_once(':').map(|(_, p)| p)
}

/// True when `url` names a user but carries no password: a password is
/// then looked up with [`password_for`].
pub fn url_lacks_password(url: &str) -> bool {
    let Some((scheme, rest)) = split_url(url) else {
        return false;
    };
    match user_info_at(scheme, rest) {
        Some(at) => !rest[..at].contains(':') && !has_secret_param(url),
        None => !has_secret_param(url),
    }
}

/// Whether `url`'s query gives a password (`password=`, `pass=`, `pwd=`).
fn has_secret_param(url: &str) -> bool {
    let Some((_, query)) = url.split_once('?') else {
        return false;
    };
    query.split('&').any(|kv| {
        let key = kv.split('=').next().unwrap_or("");
        ["password", "pass", "pwd"]
            .iter()
            .any(|p| key.eq_ignore_ascii_case(p))
    })
}

/// `text` with every secret in it hidden: URL passwords removed, the values
/// of [`SECRET_PARAMS`] query parameters masked. Anything else is kept as
/// written, so an error message stays readable.
pub fn redact(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    // URLs first: every `SCHEME://USER:PASS@` loses `:PASS`.
    while let Some(pos) = rest.find("://") {
        let (before, after) = rest.split_at(pos + 3);
        out.push_str(before);
        let scheme_start = before[..pos]
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
            .map_or(0, |i| i + 1);
        let scheme = &before[scheme_start..pos];
        let url = &after[..url_len(after)];
        match user_info_at(scheme, url) {
            Some(at) if &url[..at] != PLACEHOLDER_USER_INFO => {
                out.push_str(url[..at].split(':').next().unwrap_or(""));
                rest = &after[at..];
            }
            _ => rest = after,
        }
    }
    out.push_str(rest);
    mask_params(&out)
}

/// `text` with the value of each `KEY=VALUE` whose key is a
/// [`SECRET_PARAMS`] name, after `?`, `&` or `;`, masked up to the next
/// `&`, `;`, `#`, quote or white space.
fn mask_params(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let bytes = text.as_bytes();
    while i < text.len() {
        let c = bytes[i];
        out.push(char::from(c));
        if c.is_ascii() && matches!(c, b'?' | b'&' | b';') {
            let tail = &text[i + 1..];
            let key_len = tail
                .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_'))
                .unwrap_or(tail.len());
            let key = &tail[..key_len];
            if tail[key_len..].starts_with('=')
                && SECRET_PARAMS.iter().any(|p| key.eq_ignore_ascii_case(p))
            {
                let value = &tail[key_len + 1..];
                let mut value_len = value
                    .find(|ch: char| {
                        matches!(ch, '&' | ';' | '#' | '\'' | '"') || ch.is_whitespace()
                    })
                    .unwrap_or(value.len());
                // A colon, comma or closing parenthesis that ends the
                // value before white space is the sentence's
                // ("...?password=x: error connecting"), kept.
                let before_space = value[value_len..].starts_with(char::is_whitespace);
                if before_space
                    && value_len > 1
                    && matches!(value.as_bytes()[value_len - 1], b':' | b',' | b')')
                {
                    value_len -= 1;
                }
                out.push_str(key);
                out.push('=');
                if value_len > 0 {
                    out.push_str(MASK);
                }
                i += 1 + key_len + 1 + value_len;
                continue;
            }
        }
        // Copy the rest of a multi-byte character whole.
        if !c.is_ascii() {
            out.pop();
            let ch = text[i..].chars().next().unwrap_or('\u{fffd}');
            out.push(ch);
            i += ch.len_utf8();
            continue;
        }
        i += 1;
    }
    out
}

/// Whether `key` names a secret: it holds one of [`SECRET_KEY_WORDS`]
/// (without case: `DB_Password`, `net.token`, `apikey`).
pub fn is_secret_key(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    SECRET_KEY_WORDS.iter().any(|w| key.contains(w))
}

/// A tag's (or a setting's) value as it may be stored and shown: [`MASK`]
/// when its key names a secret ([`is_secret_key`]), else [`redact`]ed (a
/// URL's password, a secret query parameter).
pub fn redact_tag(key: &str, value: &str) -> String {
    if is_secret_key(key) && !value.is_empty() {
        MASK.to_string()
    } else {
        redact(value)
    }
}

/// `word` with its value masked when it is a `KEY=VALUE` assignment whose
/// key names a secret (`password=x`, `db.token=x`); the key is letters,
/// digits, `_`, `.` and `-` only, so URLs, thresholds and sentences are
/// left to [`redact`]. A flag's `--FLAG=KEY=VALUE` is looked at after its
/// first `=`.
fn mask_assignment(word: &str) -> Option<String> {
    let (prefix, rest) = match word.strip_prefix("--") {
        Some(_) => {
            let eq = word.find('=')?;
            word.split_at(eq + 1)
        }
        None => ("", word),
    };
    let (key, value) = rest.split_once('=')?;
    let plain = !key.is_empty()
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'));
    (plain && is_secret_key(key) && !value.is_empty()).then(|| format!("{prefix}{key}={MASK}"))
}

/// A command line with every secret hidden: each word [`redact`]ed, the
/// value of each [`SECRET_FLAGS`] flag masked, the value of a credential
/// header masked in whatever word it stands (`-H`, `-H=`, `--header=`, a
/// cluster such as `-kH`, or the word after one), and the value of a
/// `KEY=VALUE` word whose key names a secret (`--tag password=x`,
/// `--set net.token=x`).
pub fn redact_args(args: &[String]) -> Vec<String> {
    let mut out = Vec::with_capacity(args.len());
    let mut mask_next = false;
    for arg in args {
        if mask_next {
            out.push(MASK.to_string());
            mask_next = false;
            continue;
        }
        if SECRET_FLAGS.contains(&arg.as_str()) {
            mask_next = true;
            out.push(arg.clone());
            continue;
        }
        if let Some(flag) = SECRET_FLAGS
            .iter()
            .find(|f| arg.starts_with(&format!("{f}=")))
        {
            out.push(format!("{flag}={MASK}"));
            continue;
        }
        if let Some(masked) = mask_assignment(arg) {
            out.push(masked);
            continue;
        }
        out.push(redact_header(arg));
    }
    out
}

/// `text` with the value of a credential header in it masked
/// (`NAME: VALUE` where NAME ends in one of [`SECRET_HEADERS`], whatever
/// precedes it in the word), else [`redact`]ed.
pub fn redact_header(text: &str) -> String {
    let lower = text.to_ascii_lowercase();
    let colon = SECRET_HEADERS
        .iter()
        .filter_map(|h| {
            lower.match_indices(h).find_map(|(i, _)| {
                let after = &lower[i + h.len()..];
                let spaces = after.len() - after.trim_start_matches([' ', '\t']).len();
                after[spaces..]
                    .starts_with(':')
                    .then_some(i + h.len() + spaces)
            })
        })
        .min();
    match colon {
        Some(c) => format!("{}: {MASK}", text[..c].trim_end()),
        None => redact(text),
    }
}

/// The environment variable that gives the password of a URL with this
/// scheme, if the driver has one.
pub fn password_env(url: &str) -> Option<&'static str> {
    let scheme = url.split_once("://")?.0;
    match scheme {
        "postgres" | "postgresql" => Some(PGPASSWORD),
        "mysql" | "mariadb" => Some(MYSQL_PWD),
        _ => None,
    }
}

/// The password to connect to `url` with when the URL carries none:
/// [`password_env`]'s variable if set, else the file
/// [`PASSWORD_FILE_ENV`] names (refused unless only its owner may read
/// it), else a prompt when standard input and standard error are a
/// terminal; `Ok(None)` when there is none to be had (the server may
/// need none). `what` names the URL's flag for messages.
pub fn password_for(url: &str, what: &str) -> Result<Option<String>, BenchError> {
    if !url_lacks_password(url) {
        return Ok(None);
    }
    if let Some(var) = password_env(url)
        && let Some(value) = std::env::var_os(var).filter(|v| !v.is_empty())
    {
        return value
            .into_string()
            .map(Some)
            .map_err(|_| BenchError::Invalid(format!("{var}: not valid UTF-8")));
    }
    if let Some(path) = std::env::var_os(PASSWORD_FILE_ENV).filter(|v| !v.is_empty()) {
        return read_password_file(std::path::Path::new(&path)).map(Some);
    }
    if std::io::stdin().is_terminal() && std::io::stderr().is_terminal() && has_user(url) {
        let prompt = format!("password for {}: ", without_password(url));
        return rpassword::prompt_password(prompt)
            .map(|p| Some(p).filter(|p| !p.is_empty()))
            .map_err(|e| {
                BenchError::Invalid(format!(
                    "{what}: cannot read the password from the terminal: {e}"
                ))
            });
    }
    Ok(None)
}

/// Checks, without prompting, where [`password_for`] would read `url`'s
/// password from: a password file named by [`PASSWORD_FILE_ENV`] that
/// others may read, or that cannot be read, is refused here, before
/// anything runs.
pub fn check_password_source(url: &str) -> Result<(), BenchError> {
    if !url_lacks_password(url)
        || password_env(url).is_some_and(|v| std::env::var_os(v).is_some_and(|v| !v.is_empty()))
    {
        return Ok(());
    }
    match std::env::var_os(PASSWORD_FILE_ENV).filter(|v| !v.is_empty()) {
        Some(path) => read_password_file(std::path::Path::new(&path)).map(drop),
        None => Ok(()),
    }
}

/// Whether `url` names a user (`SCHEME://USER@...`).
fn has_user(url: &str) -> bool {
    split_url(url).is_some_and(|(scheme, rest)| user_info_at(scheme, rest).is_some())
}

/// The password in `path`, its first line without the line end; refused
/// when group or others may read or write the file.
pub fn read_password_file(path: &std::path::Path) -> Result<String, BenchError> {
    use std::os::unix::fs::PermissionsExt;
    let name = format!("{PASSWORD_FILE_ENV}={}", path.display());
    let meta = std::fs::metadata(path).map_err(|e| BenchError::Invalid(format!("{name}: {e}")))?;
    let mode = meta.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        return Err(BenchError::Invalid(format!(
            "{name}: mode {mode:04o} lets others read it; accepted: a file only its owner may read (chmod 600)"
        )));
    }
    let text =
        std::fs::read_to_string(path).map_err(|e| BenchError::Invalid(format!("{name}: {e}")))?;
    Ok(text.lines().next().unwrap_or("").to_string())
}

/// A command line without its secrets, and the secrets as
/// `(VARIABLE, value)` pairs: [`split_secrets`].
pub type Split = (Vec<String>, Vec<(String, String)>);

/// A command line for another process (a remote host's nodebench) with
/// its secrets taken out: each URL password is removed from its word and
/// given back as the value of the URL's driver variable ([`PGPASSWORD`],
/// [`MYSQL_PWD`]), the value of `--token` as [`TOKEN_ENV`]; a word may be
/// the URL itself or `--FLAG=URL`. The caller hands the variables over on
/// standard input, never in argv.
///
/// A secret with no variable to carry it (the password of an `http://`
/// URL, a `password=` or `token=` query parameter, a credential header) is
/// refused, as are two different secrets for one variable: the caller
/// checks this before any host is touched.
pub fn split_secrets(args: &[String]) -> Result<Split, BenchError> {
    let mut words = Vec::with_capacity(args.len());
    let mut env: Vec<(String, String)> = Vec::new();
    let mut put = |var: &str, value: String| -> Result<(), BenchError> {
        if value.contains(['\n', '\r']) {
            return Err(BenchError::Invalid(format!(
                "the secret passed as {var} holds a line break, which cannot be handed over"
            )));
        }
        match env.iter().find(|(k, _)| k == var) {
            Some((_, v)) if *v != value => Err(BenchError::Invalid(format!(
                "two different secrets would be passed as {var}: give each remote command one {var}"
            ))),
            Some(_) => Ok(()),
            None => {
                env.push((var.to_string(), value));
                Ok(())
            }
        }
    };
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        if SECRET_FLAGS.contains(&arg.as_str()) && i + 1 < args.len() {
            put(TOKEN_ENV, args[i + 1].clone())?;
            i += 2;
            continue;
        }
        i += 1;
        if let Some(value) = SECRET_FLAGS
            .iter()
            .find_map(|f| arg.strip_prefix(&format!("{f}=")))
        {
            put(TOKEN_ENV, value.to_string())?;
            continue;
        }
        // `--db=URL`: the URL is the part after the first `=`.
        let (flag, value) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with('-') && !f.contains("://") => (format!("{f}="), v),
            _ => (String::new(), arg.as_str()),
        };
        if let Some(password) = url_password(value) {
            let Some(var) = password_env(value) else {
                return Err(BenchError::Invalid(unmovable(
                    "the password of a URL",
                    value,
                )));
            };
            put(var, percent_decode(password))?;
            words.push(format!("{flag}{}", without_password(value)));
            continue;
        }
        if redact_header(arg) != *arg {
            return Err(BenchError::Invalid(unmovable("a secret", arg)));
        }
        words.push(arg.clone());
    }
    Ok((words, env))
}

/// Why `word`'s secret cannot be handed to a remote host.
fn unmovable(what: &str, word: &str) -> String {
    format!(
        "'{}': {what} there cannot be handed to a remote host without putting it on its command line; accepted: a database URL's password (sent as {PGPASSWORD} or {MYSQL_PWD}) and --token (sent as {TOKEN_ENV})",
        redact_header(word)
    )
}

/// `%XX` escapes decoded (a URL's user info may escape `@`, `:`, `/`).
pub fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(hi), Some(lo)) = (hex(bytes[i + 1]), hex(bytes[i + 2]))
        {
            out.push(hi << 4 | lo);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The value of one hexadecimal digit.
fn hex(b: u8) -> Option<u8> {
    char::from(b).to_digit(16).map(|d| d as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(words: &[&str]) -> Vec<String> {
        words.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_password_is_removed_and_the_rest_kept() {
        assert_eq!(
            without_password("postgres://bench:s3cr@t@127.0.0.1:15432/db?sslmode=disable"),
            "postgres://bench@127.0.0.1:15432/db?sslmode=disable"
        );
        assert_eq!(
            without_password("postgres://bench@h/db"),
            "postgres://bench@h/db"
        );
        assert_eq!(without_password("postgres://h/db"), "postgres://h/db");
        assert_eq!(
            without_password("postgresql://u:p@h?dbname=x"),
            "postgresql://u@h?dbname=x"
        );
        assert_eq!(
            without_password("/var/lib/results.db"),
            "/var/lib/results.db"
        );
    }

    #[test]
    fn redact_hides_user_info_and_query_secrets_anywhere_in_a_text() {
        assert_eq!(
            redact("cannot open mysql://nb:s3cretPW@127.0.0.1/nb: refused"),
            "cannot open mysql://nb@127.0.0.1/nb: refused"
        );
        assert_eq!(
            redact("postgres://h/db?user=u&password=s3cret&sslmode=disable"),
            "postgres://h/db?user=u&password=***&sslmode=disable"
        );
        assert_eq!(
            redact("x?PWD=a;token=b#frag and ?pass=c"),
            "x?PWD=***;token=***#frag and ?pass=***"
        );
        assert_eq!(redact("?secret="), "?secret=");
        assert_eq!(
            redact("accepted: postgres://USER[:PASSWORD]@HOST[:PORT]/DB"),
            "accepted: postgres://USER[:PASSWORD]@HOST[:PORT]/DB"
        );
        assert_eq!(redact("a=b?passes=1&user=x"), "a=b?passes=1&user=x");
        assert_eq!(redact("héllo ?token=é x"), "héllo ?token=*** x");
        assert_eq!(
            redact("'mysql://a:b@h/d' and http://c:d@e/"),
            "'mysql://a@h/d' and http://c@e/"
        );
    }

    #[test]
    fn command_lines_lose_token_values_and_credential_headers() {
        let args = strings(&[
            "nodebench",
            "net",
            "tcp",
            "--token",
            "tok1",
            "--token=tok2",
            "-H",
            "Authorization: Bearer abc",
            "--header=Cookie: sid=1",
            "-HX-Trace: 1",
            "--db",
            "mysql://u:pw@h/d?password=pw2",
        ]);
        let out = redact_args(&args).join(" ");
        for secret in ["tok1", "tok2", "Bearer", "sid=1", "pw@", "pw2"] {
            assert!(!out.contains(secret), "{secret} in {out}");
        }
        assert!(out.contains("-HX-Trace: 1"), "{out}");
        assert!(out.contains("mysql://u@h/d?password=***"), "{out}");
    }

    #[test]
    fn secrets_move_from_argv_to_driver_variables() {
        let (words, env) = split_secrets(&strings(&[
            "db",
            "as3ap",
            "--db",
            "mysql://u:p%40ss@h/d",
            "--token",
            "t",
        ]))
        .unwrap();
        assert_eq!(words, strings(&["db", "as3ap", "--db", "mysql://u@h/d"]));
        assert_eq!(
            env,
            vec![
                (MYSQL_PWD.to_string(), "p@ss".to_string()),
                (TOKEN_ENV.to_string(), "t".to_string())
            ]
        );
        let err =
            split_secrets(&strings(&["postgres://a:x@h/d", "postgres://a:y@h/e"])).unwrap_err();
        assert!(err.to_string().contains(PGPASSWORD), "{err}");
    }

    #[test]
    fn passwords_holding_url_delimiters_are_still_hidden() {
        // PostgreSQL's driver reads the user info up to the first `@`.
        for (url, pw) in [
            ("postgres://u:a/b?c#d@h:5432/db", "a/b?c#d"),
            ("postgres://u:s3cr@t@h/db?application_name=x@y", "s3cr@t"),
            ("postgresql://u:p[1]@h/db", "p[1]"),
            ("mysql://u:p/w@h/d", "p/w"),
            ("mysql://u:[x]@h/d", "[x]"),
            ("http://u:p#q@h/", "p#q"),
        ] {
            assert_eq!(url_password(url), Some(pw), "{url}");
            let shown = without_password(url);
            assert!(!shown.contains(pw), "{url} -> {shown}");
            for text in [
                format!("cannot open {url}: refused"),
                format!("\"{url}\""),
                format!("<{url}>"),
                format!("`{url}`"),
            ] {
                let r = redact(&text);
                assert!(!r.contains(pw), "{text} -> {r}");
                assert!(r.contains("://u@"), "{text} -> {r}");
            }
        }
        // A port, and an `@` in a query, are not user info.
        assert_eq!(url_password("http://h:8080/x?e=a@b"), None);
        assert_eq!(redact("http://h:8080/x?e=a@b"), "http://h:8080/x?e=a@b");
        assert_eq!(
            redact("postgres://u@h/db?application_name=a@b"),
            "postgres://u@h/db?application_name=a@b"
        );
        // Only the literal placeholder is spared.
        assert_eq!(
            redact("mysql://USER[:PASSWORD]@HOST/DB"),
            "mysql://USER[:PASSWORD]@HOST/DB"
        );
        assert_eq!(redact("mysql://USER[:x]@HOST/DB"), "mysql://USER[@HOST/DB");
    }

    #[test]
    fn masking_keeps_the_sentence_around_the_secret() {
        assert_eq!(
            redact("cannot connect to mysql://u@h/x?password=hunter2: error connecting"),
            "cannot connect to mysql://u@h/x?password=***: error connecting"
        );
        assert_eq!(redact("a ?key=abc, then"), "a ?key=***, then");
        // At the end of the text a trailing colon may be the secret's own.
        assert_eq!(redact("x?token=abc:"), "x?token=***");
    }

    #[test]
    fn tags_and_settings_named_as_secrets_are_masked() {
        assert!(is_secret_key("DB_Password"));
        assert!(is_secret_key("net.token"));
        assert!(is_secret_key("apikey"));
        assert!(!is_secret_key("config"));
        assert_eq!(redact_tag("password", "hunter2"), MASK);
        assert_eq!(redact_tag("api_key", "k1"), MASK);
        assert_eq!(
            redact_tag("db_url", "mysql://u:TopSecret123@h/x"),
            "mysql://u@h/x"
        );
        assert_eq!(redact_tag("config", "2cpu-4gb"), "2cpu-4gb");
        assert_eq!(
            redact_args(&strings(&[
                "nodebench",
                "--tag",
                "password=hunter2",
                "--tag=db_url=mysql://u:TopSecret123@h/x",
                "--set",
                "net.token=abc",
                "--set=step.secret_key=k",
                "--tag",
                "config=a",
                "--assert",
                "cpu.ops rate >= 1",
                "--max-key-age=5",
            ])),
            strings(&[
                "nodebench",
                "--tag",
                "password=***",
                "--tag=db_url=mysql://u@h/x",
                "--set",
                "net.token=***",
                "--set=step.secret_key=***",
                "--tag",
                "config=a",
                "--assert",
                "cpu.ops rate >= 1",
                "--max-key-age=5",
            ])
        );
    }

    #[test]
    fn credential_headers_are_masked_in_any_spelling() {
        let args = strings(&[
            "-H=Authorization: Bearer t1",
            "-kHAuthorization:Bearer t2",
            "-kH",
            "cookie :  sid=t3",
            "--header",
            "X-Api-Key: t4",
            "-HAccept: text/html",
        ]);
        let out = redact_args(&args);
        let joined = out.join(" ");
        for secret in ["t1", "t2", "t3", "t4"] {
            assert!(!joined.contains(secret), "{secret} in {joined}");
        }
        assert_eq!(out[0], "-H=Authorization: ***");
        assert_eq!(out[1], "-kHAuthorization: ***");
        assert_eq!(out[6], "-HAccept: text/html");
    }

    #[test]
    fn secrets_that_cannot_move_are_refused() {
        let (words, env) = split_secrets(&strings(&[
            "db",
            "as3ap",
            "--db=postgres://u:a/b@h/d",
            "--store=sqlite:///tmp/x.db",
        ]))
        .unwrap();
        assert_eq!(
            words,
            strings(&[
                "db",
                "as3ap",
                "--db=postgres://u@h/d",
                "--store=sqlite:///tmp/x.db"
            ])
        );
        assert_eq!(env, vec![(PGPASSWORD.to_string(), "a/b".to_string())]);
        for bad in [
            &["http", "load", "http://u:pw@h/"][..],
            &["db", "as3ap", "--db", "postgres://h/d?password=pw"],
            &[
                "http",
                "load",
                "http://h/",
                "-H",
                "Authorization: Bearer pw",
            ],
            &["http", "load", "http://h/", "-kHCookie: pw"],
        ] {
            let err = split_secrets(&strings(bad)).unwrap_err();
            assert!(
                err.to_string()
                    .contains("cannot be handed to a remote host"),
                "{err}"
            );
            assert!(!err.to_string().contains("pw"), "{err}");
        }
    }

    #[test]
    fn a_url_without_a_password_asks_for_one() {
        assert!(url_lacks_password("postgres://u@h/d"));
        assert!(url_lacks_password("postgres://h/d"));
        assert!(!url_lacks_password("postgres://u:p@h/d"));
        assert!(!url_lacks_password("postgres://u@h/d?password=x"));
        assert!(!url_lacks_password("/a/file"));
        assert_eq!(password_env("mysql://u@h/d"), Some(MYSQL_PWD));
        assert_eq!(password_env("postgresql://u@h/d"), Some(PGPASSWORD));
        assert_eq!(password_env("sqlite:x"), None);
    }

    #[test]
    fn a_password_file_others_may_read_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("nb-cred-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("pw");
        std::fs::write(&f, "s3cret\nignored\n").unwrap();
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o644)).unwrap();
        let err = read_password_file(&f).unwrap_err();
        assert!(
            err.to_string().contains("0644") && err.to_string().contains("chmod 600"),
            "{err}"
        );
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert_eq!(read_password_file(&f).unwrap(), "s3cret");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
