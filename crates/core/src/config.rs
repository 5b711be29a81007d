//! The one rule from arguments to a benchmark's configuration:
//!
//! * every benchmark config implements [`Config`]: `Default` gives the
//!   classic tool's defaults, and `validate` checks every field once, before
//!   the store is opened or anything runs, with a one-line error naming the
//!   flag and the accepted form;
//! * every domain enum a flag selects implements [`Choice`] (its names, once)
//!   and `FromStr` through [`choice_from_str!`](crate::choice_from_str), so
//!   an unknown name is answered with the list of accepted ones;
//! * the CLI maps its arguments with `From<&Args>` / `TryFrom<&Args>` next to
//!   each argument struct and calls nothing else to build a config.

use std::fmt;

use crate::bench::BenchError;

/// A benchmark's configuration.
pub trait Config: Default {
    /// Checks every field; the error is one line naming the flag and the
    /// accepted form (`--threads: expected 1..=1024, got 0`).
    fn validate(&self) -> Result<(), BenchError>;
}

/// The default block sizes of the block-size x thread matrices
/// (`memory blocks` and `disk blocks`): 8 B, 8 KiB, 8 MiB and 80 MiB.
pub const MATRIX_BLOCK_SIZES: [u64; 4] = [8, 8 << 10, 8 << 20, 80 << 20];

/// The default thread counts of the block-size x thread matrices: 1, 2, 4, 8.
pub const MATRIX_THREADS: [usize; 4] = [1, 2, 4, 8];

/// A domain enum chosen by name on the command line and stored by name in
/// results (a kernel, an engine, an IOzone test).
pub trait Choice: Copy + PartialEq + 'static {
    /// Every value, in the order help texts list them.
    const ALL: &'static [Self];

    /// The name written on the command line and in results.
    fn as_str(self) -> &'static str;

    /// The value named `s` (exact match), or an error listing the accepted names.
    fn from_name(s: &str) -> Result<Self, UnknownChoice> {
        Self::ALL
            .iter()
            .copied()
            .find(|v| v.as_str() == s)
            .ok_or_else(|| UnknownChoice {
                given: s.to_string(),
                accepted: Self::accepted(),
            })
    }

    /// The accepted names, comma-separated, for help and error texts.
    fn accepted() -> String {
        Self::ALL
            .iter()
            .map(|v| v.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// A name that is not one of a [`Choice`]'s values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownChoice {
    /// What was given.
    pub given: String,
    /// The accepted names, comma-separated.
    pub accepted: String,
}

impl fmt::Display for UnknownChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown value '{}' (accepted: {})",
            self.given, self.accepted
        )
    }
}

impl std::error::Error for UnknownChoice {}

/// Declares a [`Choice`] enum: each variant with the name it is written by
/// on the command line and in results, in the order of [`Choice::ALL`].
/// The enum derives `Debug, Clone, Copy, PartialEq, Eq` and gets `FromStr`
/// and `Display` through [`choice_from_str!`](crate::choice_from_str).
///
/// ```text
/// nodebench_core::choice! {
///     /// How a file is synced.
///     pub enum Sync {
///         /// Nothing.
///         None => "none",
///         /// fsync(2).
///         Fsync => "fsync",
///     }
/// }
/// assert_eq!("fsync".parse::<Sync>().unwrap(), Sync::Fsync);
/// ```
///
/// (The unit test `choice_declares_the_enum_its_names_and_order` runs this
/// example: a doctest cost the tests' build 17 s of linking.)
#[macro_export]
macro_rules! choice {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident => $text:expr ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        $vis enum $name {
            $( $(#[$vmeta])* $variant ),+
        }

        impl $crate::config::Choice for $name {
            const ALL: &'static [Self] = &[$($name::$variant),+];

            fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }
        }

        $crate::choice_from_str!($name);
    };
}

/// Implements `FromStr` (through [`Choice::from_name`]) and `Display` (the
/// name) for a [`Choice`] enum.
#[macro_export]
macro_rules! choice_from_str {
    ($t:ty) => {
        impl ::std::str::FromStr for $t {
            type Err = $crate::config::UnknownChoice;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                <$t as $crate::config::Choice>::from_name(s)
            }
        }
        impl ::std::fmt::Display for $t {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str($crate::config::Choice::as_str(*self))
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, Copy, PartialEq)]
    enum Engine {
        Psync,
        IoUring,
    }

    impl Choice for Engine {
        const ALL: &'static [Self] = &[Engine::Psync, Engine::IoUring];
        fn as_str(self) -> &'static str {
            match self {
                Engine::Psync => "psync",
                Engine::IoUring => "io_uring",
            }
        }
    }

    crate::choice_from_str!(Engine);

    crate::choice! {
        /// How a file is synced.
        pub enum Sync {
            /// Nothing.
            None => "none",
            /// fsync(2).
            Fsync => "fsync",
        }
    }

    #[test]
    fn choice_declares_the_enum_its_names_and_order() {
        assert_eq!("fsync".parse::<Sync>().unwrap(), Sync::Fsync);
        assert_eq!(Sync::ALL, &[Sync::None, Sync::Fsync]);
        assert_eq!(Sync::None.to_string(), "none");
        assert_eq!(
            "fdatasync".parse::<Sync>().unwrap_err().to_string(),
            "unknown value 'fdatasync' (accepted: none, fsync)"
        );
    }

    #[test]
    fn parses_and_lists_accepted_names() {
        assert_eq!("io_uring".parse::<Engine>().unwrap(), Engine::IoUring);
        assert_eq!(Engine::Psync.to_string(), "psync");
        let e = "aio".parse::<Engine>().unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown value 'aio' (accepted: psync, io_uring)"
        );
    }
}
