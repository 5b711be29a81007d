//! Keeping secrets out of what is printed and stored: a database URL is
//! shown and saved without its password.

/// `url` with the password of its user info removed
/// (`postgres://bench:secret@h/db` -> `postgres://bench@h/db`); a text
/// without `://` comes back as it is.
pub fn without_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => {
            let user = rest[..at].split(':').next().unwrap_or("");
            format!("{scheme}://{user}{}", &rest[at..])
        }
        None => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::without_password;

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
}
