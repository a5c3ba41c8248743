//! Named choices (strategies, sides, rules, ...): each variant's name written once, beside it,
//! and `ALL`, `name` and `from_name` made from that.

/// `ALL`, `name` and `from_name` of an enum whose variants each have a name, as the command
/// line, the statistics and the page spell it; old spellings still read after a `|`:
///
/// ```ignore
/// names!(Side { Seed => "seed", Variant => "variant" | "v" });
/// ```
#[macro_export]
macro_rules! names {
    ($E:ident { $($V:ident => $name:literal $(| $alias:literal)*),+ $(,)? }) => {
        impl $E {
            /// Every variant, in the order they are listed.
            pub const ALL: [$E; [$($name),+].len()] = [$($E::$V),+];

            /// Its name.
            pub fn name(self) -> &'static str {
                match self {
                    $($E::$V => $name,)+
                }
            }

            /// The variant of this name (or of an old spelling of it).
            pub fn from_name(name: &str) -> Option<$E> {
                match name {
                    $($name $(| $alias)* => Some($E::$V),)+
                    _ => None,
                }
            }
        }
    };
}

#[cfg(test)]
mod tests {
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    enum Side {
        Seed,
        Variant,
    }
    crate::names!(Side {
        Seed => "seed",
        Variant => "variant" | "v",
    });

    #[test]
    fn names_aliases_and_every_variant() {
        assert_eq!(Side::ALL, [Side::Seed, Side::Variant]);
        assert_eq!(Side::Variant.name(), "variant");
        assert_eq!(Side::from_name("v"), Some(Side::Variant));
        assert_eq!(Side::from_name("seed"), Some(Side::Seed));
        assert_eq!(Side::from_name("Seed"), None, "names are exact");
    }
}
